// Task module of bench/par.mjs: the items of the data-parallel calls, and the hand-written
// fork-join each call is measured against (a fixed grain: the chunk size the bench sweeps).

/** The sum of src[lo..hi): the chunk of the parallel sum (and the one JS thread's loop). */
export function sumChunk(ctx, lo, hi, src) {
  let s = 0;
  for (let i = lo; i < hi; i++) s += src[i];
  return s;
}

export function add(ctx, a, b) {
  return a + b;
}

/** `rounds` rounds of an integer hash of x (rayon-par's `hash`, bit for bit). Not a task: a
 *  helper, also the one JS thread's loop. */
export function hashRounds(x, rounds) {
  let h = x | 0;
  for (let k = 0; k < rounds; k++) h = (Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) + k) | 0;
  return h;
}

/** A small item: 32 rounds of the hash of x (a map item: `(ctx, item, index, source)`). */
export function hash(ctx, x) {
  return hashRounds(x, 32);
}

/** A large item: hash with `rounds` given by the bench (about 10 ms of work). */
let spinRounds = 0;
export function setSpin(ctx, rounds) {
  spinRounds = rounds;
  return ctx.thread;
}
export function spinItem(ctx, x) {
  return [hashRounds(x, spinRounds), ctx.thread];
}

/** The hand-written fork-join's array, set on every thread by a broadcast: its forks then carry
 *  numbers only (a typed array argument would go through the codec at each fork). */
let fjSrc = null;
export function setSrc(ctx, src) {
  fjSrc = src;
  return ctx.thread;
}

/** Hand-written fork-join sum over [lo, hi) of the shared Float64Array setSrc gave, halving
 *  down to `grain`. */
export function fjSum(ctx, lo, hi, grain) {
  if (hi - lo <= grain) return sumChunk(ctx, lo, hi, fjSrc);
  const mid = lo + ((hi - lo) >>> 1);
  const r = ctx.fork('fjSum', mid, hi, grain);
  const l = fjSum(ctx, lo, mid, grain);
  return l + r.join();
}

/** Hand-written fork-join map of hash over [lo, hi), halving down to `grain`: the results in
 *  order (each half's array, concatenated). */
export function fjMap(ctx, lo, hi, grain) {
  if (hi - lo <= grain) {
    const out = new Array(hi - lo);
    for (let i = lo; i < hi; i++) out[i - lo] = hash(ctx, i);
    return out;
  }
  const mid = lo + ((hi - lo) >>> 1);
  const r = ctx.fork('fjMap', mid, hi, grain);
  const l = fjMap(ctx, lo, mid, grain);
  const rr = r.join();
  for (let i = 0; i < rr.length; i++) l.push(rr[i]);
  return l;
}

/** The time (ms) of sumChunk over the whole of src on this thread (a probe of the loop's speed). */
export function timeSum(ctx, src) {
  const t0 = performance.now();
  sumChunk(ctx, 0, src.length, src);
  return performance.now() - t0;
}

/** ctx.parMap of hash over n indices inside a task: [its time (ms), the result's length]. */
export function mapInTask(ctx, n) {
  const t0 = performance.now();
  const r = ctx.parMap('hash', n);
  return [performance.now() - t0, r.length];
}

/** The one-thread loop of the map, on a worker: its time (ms). */
export function mapSeqInTask(ctx, n) {
  const t0 = performance.now();
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = hash(ctx, i);
  return [performance.now() - t0, out.length];
}

/** ctx.parForEach of hash over n indices inside a task: its time (ms). */
export function forEachInTask(ctx, n) {
  const t0 = performance.now();
  ctx.parForEach('hash', n);
  return performance.now() - t0;
}

/** The map's results written in place: out[i] = hash(i) for i in [lo, hi) of a shared
 *  Int32Array (the chunk form of parForEach, the source being the output). */
export function hashInto(ctx, lo, hi, out) {
  for (let i = lo; i < hi; i++) out[i] = hashRounds(i, 32);
}
