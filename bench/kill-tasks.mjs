// Tasks of bench/kill-cost.mjs.

/** Marks slot 0 of sab, then never returns: only a kill stops it. */
export function runaway(ctx, sab) {
  const a = new Int32Array(sab);
  Atomics.store(a, 0, 1);
  for (;;) { /* runaway */ }
}

export function add(ctx, a, b) {
  return a + b;
}
