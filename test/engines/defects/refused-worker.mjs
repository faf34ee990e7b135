// Engine defect, standalone: at a thread limit, once `new Worker` has been refused, Bun aborts
// the process ("panic: abort() called") a moment later, while the program goes on normally.
// Node throws ERR_WORKER_INIT_FAILED (EAGAIN), Deno a WouldBlock error, Bun a TypeError
// ("Failed to spawn worker thread"); all three let the program catch it, and Node and Deno then
// run on. Filling the limit without a refusal (a count below it) ends normally on all three.
//
// A thread limit as a container's pids limit sets one: RLIMIT_NPROC binds a user other than
// root, so run it as one, e.g. as root:
//   su nobody -s /bin/bash -c 'ulimit -u 64; cd DIR && bun refused-worker.mjs'
//   (the same with `node refused-worker.mjs`, `deno run -A refused-worker.mjs`)
// `refused-worker.mjs N` starts at most N idle threads (40 under `ulimit -u 64`: no refusal).
// Prints how many idle threads it started and whether one was refused, ends them, and prints
// "ended" before it exits 0. Results are in README.md beside this file.
import { Worker, isMainThread, workerData } from 'node:worker_threads';

if (!isMainThread) {
  Atomics.wait(new Int32Array(workerData), 0, 0); // an idle thread until the main one says end
} else {
  const word = new Int32Array(new SharedArrayBuffer(4));
  const max = Number(process.argv[2] ?? Infinity);
  const threads = [];
  let refused = null;
  while (threads.length < max) {
    let w;
    try {
      w = new Worker(new URL(import.meta.url), { workerData: word.buffer });
    } catch (e) {
      refused = `${e.name}${e.code ? ` ${e.code}` : ''}: ${e.message}`;
      break;
    }
    await new Promise((resolve) => w.once('online', resolve));
    threads.push(w);
  }
  console.log(`started ${threads.length} idle threads; refused: ${refused ?? 'none'}`);
  Atomics.store(word, 0, 1);
  Atomics.notify(word, 0);
  await Promise.all(threads.map((w) => new Promise((resolve) => w.once('exit', resolve))));
  console.log('ended');
}
