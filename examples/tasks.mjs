// Tasks for the demo: every export is a task; the context comes first, then the arguments.

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

/** Plain recursion: the single-thread baseline, and the leaves of fibcut. */
export function fib(ctx, n) {
  return fibSeq(n);
}

function fibSeq(n) {
  return n < 2 ? n : fibSeq(n - 1) + fibSeq(n - 2);
}

/** Fork-join above `cut`, plain recursion below (coarse grain). */
export function fibcut(ctx, n, cut) {
  if (n <= cut) return fibSeq(n);
  return ctx.join('sum', ctx.spawn('fibcut', n - 1, cut), ctx.spawn('fibcut', n - 2, cut));
}

/** Busy work for about `us` microseconds; returns the iterations done. */
export function work(ctx, us) {
  const end = performance.now() + us / 1000;
  let x = 0;
  while (performance.now() < end) x++;
  return x > 0 ? us : 0;
}

/**
 * A skewed fork-join: `n` leaves where one leaf in ten costs 50x the others. All leaves are
 * spawned by one task on one P, so the others only get work by stealing.
 */
export function skewed(ctx, n, shortUs, seed) {
  const kids = [];
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    kids.push(ctx.spawn('work', s % 10 === 0 ? shortUs * 50 : shortUs));
  }
  return ctx.join('sum', ...kids);
}
