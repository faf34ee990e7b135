// Task output (docs/DESIGN.md "Task output"): what a task writes on process.stdout and
// process.stderr (console.* included) reaches the process's output, in the order its thread
// wrote it, before the program ends, whether the thread then blocks, idles out or is killed.
//
// On Node and Bun a worker's stdout and stderr are Writables over a message port to the main
// thread: `_writev` posts a message and keeps its callback until the main thread asks for more,
// which the worker reads only on a turn of its event loop; an M that runs tasks and sleeps in
// Atomics.wait takes no such turn, so everything after the first write waited in the worker.
// Two halves:
//   worker  each write posts its message at once (postOutputAtOnce): nothing waits in the
//           thread, so it may block, and a terminated thread's messages are read as it exits.
//           It counts the chunks it posted in a word the main thread reads.
//   main    counts the chunks each thread's output delivered (OutputWatch), and tells whoever
//           waits (the keep-alive, close) when every live thread's output arrived: the process
//           does not end with a thread's output still in a message queue.
// Deno's worker streams write to the file descriptor synchronously: nothing to do there.

import type { ThreadHandle } from './platform.js';

/** The words of a thread's output counter (a SharedArrayBuffer of OUTPUT_BYTES per thread). */
const POSTED = 0; // chunks of output the thread posted to the main thread
const COUNTING = 1; // 1 once the thread counts them (its streams post to the main thread)
export const OUTPUT_BYTES = 8;

interface WorkerStream {
  _writev?: ((chunks: Array<{ chunk: { length: number }; encoding: string }>, cb: (err?: Error | null) => void) => void) | null;
}

const keep = (): void => undefined;

/**
 * Makes this worker's process.stdout and process.stderr post each write to the main thread at
 * once, and count the chunks that carry output in `counter` (the main thread compares it with
 * what arrived). Where the streams do not post to the main thread (Deno, browsers) it does
 * nothing. Call once, before the task module loads. Worker threads.
 */
export function postOutputAtOnce(counter: SharedArrayBuffer): void {
  const proc = (globalThis as { process?: { stdout?: unknown; stderr?: unknown } }).process;
  if (proc === undefined) return;
  const i32 = new Int32Array(counter);
  let counting = false;
  for (const name of ['stdout', 'stderr'] as const) {
    let s: WorkerStream | undefined;
    try {
      s = proc[name] as WorkerStream | undefined;
    } catch {
      continue;
    }
    const writev = s?._writev;
    if (s === undefined || typeof writev !== 'function') continue;
    counting = true;
    s._writev = function (chunks, cb) {
      let n = 0;
      for (let i = 0; i < chunks.length; i++) if (chunks[i].chunk.length > 0) n++;
      // Counted before the post, and before the task that wrote goes on: a task that finished
      // is seen with its output counted (the main thread's look reads the counter after).
      if (n !== 0) Atomics.add(i32, POSTED, n);
      // The platform's own callback waits for the main thread's request for more; the stream's
      // is called now, so the next write posts at once too.
      writev.call(this, chunks, keep);
      cb();
    };
  }
  if (counting) Atomics.store(i32, COUNTING, 1);
}

/** One thread's output: chunks posted (its counter) and chunks that arrived here. */
interface Tracked {
  counter: Int32Array;
  arrived: number;
}

/**
 * The main thread's count of every live thread's output: in flight while some thread posted
 * chunks not arrived yet. Event-driven: each arriving chunk is counted as its stream delivers
 * it, and a waiter is told when the last one in flight arrives or its thread is gone. Main thread.
 */
export class OutputWatch {
  private readonly threads = new Map<object, Tracked>();
  private waiters: Array<() => void> = [];

  /** Counts thread t's output from its start; `counter` is the buffer its init message carries.
   *  False (nothing tracked) where the platform gives the thread no output streams here. */
  track(t: ThreadHandle<unknown, unknown>, counter: SharedArrayBuffer): boolean {
    const rec: Tracked = { counter: new Int32Array(counter), arrived: 0 };
    if (!t.onOutput(() => { rec.arrived++; if (this.waiters.length !== 0 && this.arrivedAll(rec)) this.tell(); })) return false;
    this.threads.set(t, rec);
    return true;
  }

  /** Thread t is gone (its exit read every message it posted): its output is no longer waited
   *  for. */
  forget(t: object): void {
    if (this.threads.delete(t) && this.waiters.length !== 0) this.tell();
  }

  private arrivedAll(r: Tracked): boolean {
    return Atomics.load(r.counter, COUNTING) === 0 || r.arrived >= Atomics.load(r.counter, POSTED);
  }

  /** Some live thread's output has not all arrived. */
  inFlight(): boolean {
    for (const r of this.threads.values()) if (!this.arrivedAll(r)) return true;
    return false;
  }

  /** Calls f once, when no output is in flight (at once if none is) or on wake(). */
  whenArrived(f: () => void): void {
    if (!this.inFlight()) { f(); return; }
    this.waiters.push(f);
  }

  /** Tells every waiter now, whatever is in flight (a forced close, the scheduler's failure). */
  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private tell(): void {
    if (!this.inFlight()) this.wake();
  }
}
