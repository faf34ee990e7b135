// tasks.mjs: every exported function is a task; the context comes first, then the arguments.
export function fibc(ctx, n) {             // continuation-passing join: no Promise, nothing pinned
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}
export function sum(ctx, ...xs) { return xs.reduce((a, b) => a + b, 0); }

export function ffib(ctx, n) {             // work-first fork-join: join() returns the result,
  if (n < 2) return n;                      // running the fork right here unless a thread
  const b = ctx.fork('ffib', n - 2);        // with nothing to do stole it meanwhile
  const a = ffib(ctx, n - 1);
  return a + b.join();
}

export async function fib(ctx, n) {        // async tasks may await children, timers, I/O
  if (n < 2) return n;
  const [a, b] = await Promise.all([ctx.spawn('fib', n - 1), ctx.spawn('fib', n - 2)]);
  return a + b;
}
