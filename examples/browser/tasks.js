// Tasks for the browser example: every export is a task; the context comes first, then the
// arguments. The same module loads in every worker (M), so it must not touch the DOM.

/** fib with a task per call, joined by continuation: no Promise, nothing pinned. */
export function fibc(ctx, n) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

export function sum(ctx, ...xs) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

/** fib with async tasks that await their children. */
export async function fib(ctx, n) {
  if (n < 2) return n;
  const [a, b] = await Promise.all([ctx.spawn('fib', n - 1), ctx.spawn('fib', n - 2)]);
  return a + b;
}

/** Marks leaves lo..hi-1 of a shared Int32Array, splitting the range in two down to one leaf. */
export function markRange(ctx, sab, lo, hi) {
  if (hi - lo === 1) {
    Atomics.add(new Int32Array(sab), lo, 1);
    return 1;
  }
  const mid = (lo + hi) >>> 1;
  return ctx.join('sum', ctx.spawn('markRange', sab, lo, mid), ctx.spawn('markRange', sab, mid, hi));
}

export function fail(ctx, message) {
  throw new RangeError(message);
}
