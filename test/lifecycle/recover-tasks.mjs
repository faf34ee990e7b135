// Tasks of the recovery programs (test/lifecycle/crash-idle.mjs, pending-exit.mjs): a task
// that awaits a child running on the other thread while its own thread dies. Every export is
// a task.

/** Spins until word i of `flags` is not 0 (another thread set it), at most `ms`. */
function spinFor(flags, i, ms) {
  const a = new Int32Array(flags);
  const end = Date.now() + ms;
  while (Atomics.load(a, i) === 0 && Date.now() < end) { /* the child is being stolen */ }
  return Atomics.load(a, i) !== 0;
}

/**
 * Spawns `slow` and holds this thread until another thread has started it (so the child runs on
 * the other thread; at most `stealMs`), then awaits it while this thread dies: `mode` 'exit' ends it from a timer
 * (process.exit), 'kill' lets the main thread kill a task on it (flags word 1 says the
 * parent awaits; the main thread then spawns `hog` with kill: true, which lands here).
 */
export async function awaitOther(ctx, flags, mode, childMs, stealMs = 5000) {
  const child = ctx.spawn('slow', flags, childMs);
  // With one P in service nobody steals it: it runs here, after this task awaits.
  if (!spinFor(flags, 0, stealMs) && stealMs >= 5000) return 'child not stolen';
  if (mode === 'exit') setTimeout(() => process.exit(3), 20);
  Atomics.store(new Int32Array(flags), 1, 1);
  return await child;
}

/** Marks flags[0] (it started), then blocks its thread for ms, synchronously. */
export function slow(ctx, flags, ms) {
  const a = new Int32Array(flags);
  Atomics.store(a, 0, 1);
  Atomics.wait(a, 3, 0, ms); // never notified: a sleep that holds the thread
  return 'slow done';
}

/** Runs synchronously until cancelled (a kill: true root stops it by ending its thread). */
export function hog(ctx, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* busy */ }
  return 'hog ran out';
}

export function fibc(ctx, n) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

export function sum(ctx, a, b) {
  return a + b;
}

/** Busy for ms, then returns x. */
export function busy(ctx, ms, x) {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* busy */ }
  return x;
}

/** Counts itself in marks[i] (every task exactly once). */
export function mark(ctx, marks, i) {
  Atomics.add(new Int32Array(marks), i, 1);
  return i;
}

/** Reads word 0 of a shared buffer and writes x there (a task that takes a buffer and drops it);
 *  every gcEvery-th call collects this thread's garbage when gc is exposed. */
export function touch(ctx, sab, x, gcEvery = 0) {
  // Run with --expose-gc: V8 does not count a shared buffer's memory as pressure for a
  // collection, so an idle thread may keep a dropped one's pages until it collects.
  if (gcEvery > 0 && x % gcEvery === 0) { if (globalThis.gc) globalThis.gc(); else globalThis.Bun?.gc(true); }
  const a = new Int32Array(sab);
  const old = Atomics.load(a, 0);
  Atomics.store(a, 0, x);
  return old;
}

/** Collects this thread's garbage (when gc is exposed), then holds the thread for ms, so two
 *  run at once land on two threads. */
export function collect(ctx, ms) {
  if (globalThis.gc) globalThis.gc(); else globalThis.Bun?.gc(true);
  const end = Date.now() + ms;
  while (Date.now() < end) { /* hold this thread */ }
  return 0;
}

/** Returns a string of mb megabytes (a result larger than the shared memory may hold). */
export function bigResult(ctx, mb) {
  return 'x'.repeat(mb << 20);
}
