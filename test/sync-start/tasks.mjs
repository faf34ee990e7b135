// Tasks for test/sync-start/scheduler-block.mjs.

/** Raises word i of `sab` (an Int32Array's buffer) and wakes its waiters: the caller, blocked in
 *  Atomics.wait, sees the task started. Then holds its thread until word 8 is raised. */
export function hold(ctx, sab, i) {
  const words = new Int32Array(sab);
  Atomics.store(words, i, 1);
  Atomics.notify(words, i);
  while (Atomics.load(words, 8) === 0) Atomics.wait(words, 8, 0);
  return i;
}

/** Raises word 8 and wakes every task waiting on it. */
export function release(ctx, sab) {
  const words = new Int32Array(sab);
  Atomics.store(words, 8, 1);
  Atomics.notify(words, 8);
  return 'released';
}
