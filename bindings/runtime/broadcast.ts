// Broadcast, the main thread's side (docs/DESIGN.md "Broadcast"): `sched.broadcast(name,
// ...args)` runs task `name` once on every worker thread running now, by a message to each
// (a thread takes it at its next turn of its event loop: at once when idle), and once on every
// thread started later, before it takes any task (the hooks go in its init message). Rayon's
// `broadcast` and its `start_handler` in one call. Main thread only.

import type { ThreadHandle } from './host/platform.js';
import type { BroadcastDoneMessage, HookEntry, ToWorker } from './messages.js';
import type { Views } from './memory/values.js';
import { wakeForMessage } from './sleep/park.js';

/** One broadcast under way: a result per thread it was sent to, in thread order. */
interface Pending {
  readonly results: unknown[];
  /** Thread index (1-based) -> its slot in `results`, for the threads not answered yet. */
  readonly waiting: Map<number, number>;
  /** Threads that went away before answering: their slots are left out of the result. */
  readonly gone: Set<number>;
  error: unknown;
  failed: boolean;
  readonly resolve: (r: unknown[]) => void;
  readonly reject: (e: unknown) => void;
}

export class Broadcasts {
  /** Every broadcast so far: a thread started later runs each, in order, at its start. */
  readonly hooks: HookEntry[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** While a broadcast waits for answers, a timer holds the process: the threads hold it only
   *  while root tasks are pending (threads/keepalive.ts), and the answers come on their ports. */
  private keep: ReturnType<typeof setInterval> | null = null;

  /** Sends a broadcast to the threads running now (`threads[i]`: thread i + 1, or null) and
   *  records it as a start hook; resolves with their results in thread order. */
  send(name: string, args: unknown[], threads: ReadonlyArray<ThreadHandle<ToWorker, unknown> | null>, views: Views): Promise<unknown[]> {
    const id = this.nextId++;
    // Cloned now, once: a thread started later gets the arguments as they were at the call.
    const entry: HookEntry = { id, name, args: structuredClone(args) };
    return new Promise<unknown[]>((resolve, reject) => {
      const p: Pending = { results: [], waiting: new Map(), gone: new Set(), error: undefined, failed: false, resolve, reject };
      threads.forEach((t, i) => {
        if (t === null) return; // no thread in the slot: one started there later runs the hook
        p.waiting.set(i + 1, p.results.length);
        p.results.push(undefined);
        t.onGone(() => this.gone(id, i + 1));
        t.post({ type: 'stealwork:broadcast', hook: entry });
        wakeForMessage(views, i + 1); // a sleeping M takes a turn of its event loop
      });
      this.hooks.push(entry);
      if (p.waiting.size === 0) { resolve([]); return; }
      this.pending.set(id, p);
      this.keep ??= setInterval(() => undefined, 1 << 30);
    });
  }

  /** Thread m answered broadcast msg.id. */
  done(m: number, msg: BroadcastDoneMessage): void {
    const p = this.pending.get(msg.id);
    if (p === undefined) return;
    const slot = p.waiting.get(m);
    if (slot === undefined) return;
    p.waiting.delete(m);
    if (msg.ok) p.results[slot] = msg.value;
    else if (!p.failed) { p.failed = true; p.error = msg.value; }
    this.settleIfDone(msg.id, p);
  }

  /** Thread m ended before it answered broadcast id (a crash, a kill, an idle exit): its slot is
   *  dropped; a thread started in its place runs the hook at its start. */
  private gone(id: number, m: number): void {
    const p = this.pending.get(id);
    if (p === undefined || !p.waiting.has(m)) return;
    p.gone.add(p.waiting.get(m)!);
    p.waiting.delete(m);
    this.settleIfDone(id, p);
  }

  private settleIfDone(id: number, p: Pending): void {
    if (p.waiting.size !== 0) return;
    this.pending.delete(id);
    if (this.pending.size === 0 && this.keep !== null) { clearInterval(this.keep); this.keep = null; }
    if (p.failed) p.reject(p.error);
    else p.resolve(p.gone.size === 0 ? p.results : p.results.filter((_, i) => !p.gone.has(i)));
  }

}
