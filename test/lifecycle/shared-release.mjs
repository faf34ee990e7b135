// Shared buffers are released (DESIGN.md "Shared buffers"): N fresh 1 MB buffers, each filled
// on the main thread, passed to one task and dropped, must leave the process's RSS within
// LIMIT_MB of where it started. Run with --expose-gc: V8 does not count a shared buffer's memory
// as pressure for a collection, so the program and its tasks collect now and then, as a busier
// program would anyway. Before the release, the scheduler kept every buffer on every thread.
// Prints the growth, then `ok` or `grew`.
//
//   node --expose-gc test/lifecycle/shared-release.mjs [N]      (deno run -A --v8-flags=--expose-gc, bun)
import process from 'node:process';
import { Scheduler } from 'stealwork';

const n = Number(process.argv[2] ?? 1000);
const LIMIT_MB = 64;
const gc = globalThis.gc ?? (globalThis.Bun ? () => globalThis.Bun.gc(true) : () => {});
const rss = () => process.memoryUsage().rss / 1048576;
const sched = await Scheduler.start({ tasks: new URL('./recover-tasks.mjs', import.meta.url), procs: 2, spareThreads: 0 });
for (let i = 0; i < 20; i++) await sched.run('touch', new SharedArrayBuffer(1 << 20), i); // warm up
gc();
const r0 = rss();
let peak = 0;
for (let i = 0; i < n; i++) {
  const b = new SharedArrayBuffer(1 << 20);
  new Uint8Array(b).fill(1); // every page resident
  await Promise.all([sched.run('touch', b, i, 10), sched.run('touch', new SharedArrayBuffer(8), i, 10)]);
  if (i % 10 === 0) gc();
  peak = Math.max(peak, rss() - r0);
}
// The last buffers: collected here (their ids die), released to the threads at the next idle
// look (after a root), forgotten there at a turn of their loops, then collected on each thread.
gc();
await new Promise((r) => setTimeout(r, 50));
await sched.run('touch', new SharedArrayBuffer(8), 1);
await new Promise((r) => setTimeout(r, 50));
for (let k = 0; k < 2; k++) await Promise.all([sched.run('collect', 20), sched.run('collect', 20)]);
gc();
const grew = rss() - r0;
console.log(`grew ${Math.round(grew)} MB (peak ${Math.round(peak)} MB) over ${n} buffers; ${sched.stats().sched.sharesReleased ?? '?'} released, ${sched.stats().sched.sharedBuffers} held`);
await sched.close();
console.log(grew <= LIMIT_MB ? 'ok' : 'grew');
