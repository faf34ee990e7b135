// @ts-check
// The JSDoc form of typed-tasks.ts: a JavaScript task module that types its context by its own
// exports. Every line under an expect-error directive must be an error.

/** @typedef {import('../../dist/bindings/index.js').TaskContext<typeof import('./typed-tasks-jsdoc.mjs')>} Ctx */
/** @template T @typedef {import('../../dist/bindings/index.js').JoinRequest<T>} Join */

/** @param {Ctx} ctx @param {number} n @returns {number | Join<number>} */
export function fibc(ctx, n) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

/** @param {Ctx} ctx @param {...number} xs */
export function sum(ctx, ...xs) {
  return xs.reduce((a, b) => a + b, 0);
}

/** @param {Ctx} ctx @param {number} n @returns {Promise<number>} */
export async function fib(ctx, n) {
  if (n < 2) return n;
  const [a, b] = await Promise.all([ctx.spawn('fib', n - 1), ctx.spawn('fib', n - 2)]);
  return a + b;
}

/** @param {Ctx} ctx */
export async function misuse(ctx) {
  // @ts-expect-error a misspelt task name
  ctx.spawn('fibx', 3);
  // @ts-expect-error fib takes a number
  ctx.spawn('fib', 'three');
  // @ts-expect-error fib gives a number
  /** @type {string} */ const s = await ctx.spawn('fib', 3);
  void s;
}
