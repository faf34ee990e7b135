// Platform behaviour, standalone: what a worker thread writes with console.log while it never
// gives its event loop a turn. On Node and Bun a worker's process.stdout posts its first write to
// the main thread at once and keeps every later one until the main thread acknowledges the
// first, which the worker reads only on a turn of its event loop; Deno's writes to the file
// descriptor at once. The worker prints N numbered lines, tells the main thread through
// a shared word, then does what the mode says; the main thread waits for the word (without
// blocking its own event loop), lets the worker go (unref) and ends. The parent's stdout is
// counted by the caller: `node worker-stdio.mjs MODE N | wc -l` (N defaults to 1000).
//
// Modes (what the worker does after its lines):
//   block   sleeps in Atomics.wait (as a pool's idle thread does), never woken
//   idle    returns to its event loop, which has nothing left to do (the main thread unrefs it)
//   kill    as block, and the main thread terminates it (await worker.terminate()) before it ends
// With `+post` (block+post, idle+post, kill+post) the worker first makes each write post its
// message at once: its stream's _writev callback is called without waiting for the main
// thread's acknowledgement. With `+write` the lines are process.stdout.write calls, not
// console.log.
//
// Prints nothing of its own on stdout; on stderr, the line count the worker wrote. Results are
// in README.md beside this file.
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import process from 'node:process';

if (!isMainThread) {
  const { word, mode, n } = workerData;
  const i32 = new Int32Array(word);
  if (mode.includes('+post')) {
    for (const s of [process.stdout, process.stderr]) {
      const writev = s._writev;
      if (typeof writev === 'function') s._writev = function (chunks, cb) { writev.call(this, chunks, () => {}); cb(); };
    }
  }
  const write = mode.includes('+write') ? (l) => process.stdout.write(`${l}\n`) : (l) => console.log(l);
  for (let i = 0; i < n; i++) write(`line ${i}`);
  Atomics.store(i32, 0, 1);
  Atomics.notify(i32, 0);
  if (!mode.startsWith('idle')) Atomics.wait(i32, 1, 0); // never notified
} else {
  const mode = process.argv[2] ?? 'block';
  const n = Number(process.argv[3] ?? 1000);
  const word = new SharedArrayBuffer(8);
  const w = new Worker(new URL(import.meta.url), { workerData: { word, mode, n } });
  const r = Atomics.waitAsync(new Int32Array(word), 0, 0);
  if (r.async) await r.value;
  console.error(`worker wrote ${n} lines (${mode})`);
  if (mode.startsWith('kill')) await w.terminate();
  else w.unref();
}
