// Task module of bench/fork.mjs: fork per call (work-first fork-join, DESIGN.md "Fork-join").

/** fib with a fork per call: the README's example. */
export function ffib(ctx, n) {
  if (n < 2) return n;
  const b = ctx.fork('ffib', n - 2);
  const a = ffib(ctx, n - 1);
  return a + b.join();
}

/** The same recursion without forks: one plain JS thread's baseline. */
export function seqfib(n) {
  return n < 2 ? n : seqfib(n - 1) + seqfib(n - 2);
}

/** The continuation form (no fork): a task per call, joined by a continuation (ctx.join). */
export function fibc(ctx, n) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

/** fibc's continuation: the sum of its children's results. */
export function sum(ctx, a, b) {
  return a + b;
}
