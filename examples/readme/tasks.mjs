// tasks.mjs: every exported function is a task; the context comes first, then the arguments.
// The JSDoc types are optional: with them, `// @ts-check` or TypeScript checks the names,
// arguments and results of the tasks each task spawns, forks and joins.
/** @typedef {import('stealwork').TaskContext<typeof import('./tasks.mjs')>} Ctx */
/** @template T @typedef {import('stealwork').JoinRequest<T>} Join */

/** @param {Ctx} ctx @param {number} n @returns {number | Join<number>} */
export function fibc(ctx, n) {             // continuation-passing join: no Promise, nothing pinned
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}
/** @param {Ctx} ctx @param {...number} xs */
export function sum(ctx, ...xs) { return xs.reduce((a, b) => a + b, 0); }

/** @param {Ctx} ctx @param {number} n @returns {number} */
export function ffib(ctx, n) {             // work-first fork-join: join() returns the result,
  if (n < 2) return n;                      // running the fork right here unless a thread
  const b = ctx.fork('ffib', n - 2);        // with nothing to do stole it meanwhile
  const a = ffib(ctx, n - 1);
  return a + b.join();
}

/** @param {Ctx} ctx @param {number} n @returns {Promise<number>} */
export async function fib(ctx, n) {        // async tasks may await children, timers, I/O
  if (n < 2) return n;
  const [a, b] = await Promise.all([ctx.spawn('fib', n - 1), ctx.spawn('fib', n - 2)]);
  return a + b;
}
