// Does process.cpuUsage(), read on a worker thread, count the whole process? asyncPerThread's
// 'auto' (bindings/runtime/threads/admit.ts) grows its limit only while the process leaves a CPU
// idle, and reads the process's CPU time on each worker thread. A worker reads cpuUsage, the
// main thread computes until its own reading grew by 200 ms, then the worker reads again: if
// the reading counts the process, the worker's difference includes those 200 ms of another
// thread's work; if it counted only the calling thread, it would be near 0 (the worker slept).
// Prints one JSON line { delta } (ms); exits 0. Run by test/platform-cpu.test.ts on Node, Deno
// and Bun. No wall clock is involved: the main thread stops on CPU time, whatever the load.
import { Worker } from 'node:worker_threads';

const sab = new SharedArrayBuffer(8);
const flag = new Int32Array(sab);
const ms = (u) => (u.user + u.system) / 1000;
const src = `
  const { workerData, parentPort } = require('node:worker_threads');
  const flag = new Int32Array(workerData);
  const ms = (u) => (u.user + u.system) / 1000;
  const before = ms(process.cpuUsage());
  Atomics.store(flag, 0, 1); Atomics.notify(flag, 0);
  Atomics.wait(flag, 1, 0);
  parentPort.postMessage(ms(process.cpuUsage()) - before);
`;
const w = new Worker(src, { eval: true, workerData: sab });
while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 50);
const start = ms(process.cpuUsage());
let x = 0;
while (ms(process.cpuUsage()) - start < 200) for (let i = 0; i < 1e5; i++) x = (x * 31 + i) | 0;
Atomics.store(flag, 1, 1); Atomics.notify(flag, 1);
w.on('message', (delta) => {
  console.log(JSON.stringify({ delta, x: x & 1 }));
  w.terminate();
});
