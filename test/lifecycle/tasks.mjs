// Tasks of the lifecycle programs (test/lifecycle/*): what keeps a process alive, and what
// must not. Every export is a task.

export function fibc(ctx, n) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

export function sum(ctx, a, b) {
  return a + b;
}

/** An async task: its timer is in flight while the root is pending. */
export async function later(ctx, ms, value) {
  await new Promise((r) => setTimeout(r, ms));
  return value;
}

/** Returns at once, leaving a child running (detached: nobody awaits it). */
export function detach(ctx, hits, ms) {
  ctx.spawn('bump', hits, ms);
  return 'root done';
}

/** After ms (a timer on its thread), counts itself in the shared word hits[0]. */
export async function bump(ctx, hits, ms) {
  await new Promise((r) => setTimeout(r, ms));
  Atomics.add(new Int32Array(hits), 0, 1);
}
