// The wake-up suite's floor (futexRunner in lib/runners.mjs): a bare thread parked in
// Atomics.wait; each time the main thread notifies it, it reads the clock and answers through
// shared memory. Words: i32[0] 1 = go, 2 = quit; i32[1] 1 = answered; f64[1] the clock reading.

import { parentPort, workerData } from 'node:worker_threads';

const i32 = new Int32Array(workerData);
const f64 = new Float64Array(workerData);
parentPort.postMessage('ready');
for (;;) {
  Atomics.wait(i32, 0, 0);
  const t = performance.timeOrigin + performance.now();
  if (Atomics.load(i32, 0) === 2) break;
  f64[1] = t;
  Atomics.store(i32, 0, 0);
  Atomics.store(i32, 1, 1);
  Atomics.notify(i32, 1);
}
