// The benchmark task module: every export is a task (context first, then the arguments), loaded
// in every worker. Tasks that spawn nothing also run on the main thread with `ctx = null`, so a
// single-thread baseline runs exactly the same bodies. bench/pool-worker.mjs wraps these same
// bodies for piscina and tinypool.

import { readFile } from 'node:fs/promises';

const wallNow = () => performance.timeOrigin + performance.now();

// ---- fork-join fib -------------------------------------------------------------------------

function fibSeq(n) {
  return n < 2 ? n : fibSeq(n - 1) + fibSeq(n - 2);
}

/** fib with a task per call, joined by continuation (`sum`): the fine-grained workload. */
export function fibc(ctx, n) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

export function sum(ctx, ...xs) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

/** Plain recursion: the single-thread baseline, and the leaves of every coarse split. */
export function fib(ctx, n) {
  return fibSeq(n);
}

/** Fork-join above `cut`, plain recursion at and below it (coarse grain). */
export function fibcut(ctx, n, cut) {
  if (n <= cut) return fibSeq(n);
  return ctx.join('sum', ctx.spawn('fibcut', n - 1, cut), ctx.spawn('fibcut', n - 2, cut));
}

// ---- small values: fibc with other results and arguments (the scheduler suite's "small values")
//
// The same tree as fibc; only what the tasks exchange differs: a tuple [fib, leaves, depth] as
// each result, a record { fib, leaves, depth }, a short string ('one' per leaf, the longer of
// two), or seven number arguments per spawn. Each is timed against fibc on the same backend.

/** fib as [fib(n), leaves, deepest depth]: each result a 3-number tuple. */
export function fibt(ctx, n, d) {
  if (n < 2) return [n, 1, d];
  return ctx.join('sumt', ctx.spawn('fibt', n - 1, d + 1), ctx.spawn('fibt', n - 2, d + 1));
}

export function sumt(ctx, a, b) {
  return [a[0] + b[0], a[1] + b[1], a[2] > b[2] ? a[2] : b[2]];
}

/** fib as { fib, leaves, depth }: each result a small record. */
export function fibr(ctx, n, d) {
  if (n < 2) return { fib: n, leaves: 1, depth: d };
  return ctx.join('sumr', ctx.spawn('fibr', n - 1, d + 1), ctx.spawn('fibr', n - 2, d + 1));
}

export function sumr(ctx, a, b) {
  return { fib: a.fib + b.fib, leaves: a.leaves + b.leaves, depth: a.depth > b.depth ? a.depth : b.depth };
}

/** fibc's tree with a short string as each result: 'zero' or 'one' at a leaf, the longer of two
 *  above (every result a string; the root's is 'zero' only for n = 0). */
export function fibstr(ctx, n) {
  if (n < 2) return n === 0 ? 'zero' : 'one';
  return ctx.join('longer', ctx.spawn('fibstr', n - 1), ctx.spawn('fibstr', n - 2));
}

export function longer(ctx, a, b) {
  return a.length >= b.length ? a : b;
}

/** fibc with six more number arguments per spawn (seven: spawnNew's one core call). */
export function fib7(ctx, n, a, b, c, d, e, f) {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fib7', n - 1, a, b, c, d, e, f), ctx.spawn('fib7', n - 2, a, b, c, d, e, f));
}

// ---- tiny, timed and CPU-bound bodies ------------------------------------------------------

/** The smallest task there is. */
export function inc(ctx, x) {
  return x + 1;
}

/** CPU work: `iters` rounds of xorshift32, no memory traffic; returns the checksum. */
export function burn(ctx, iters, seed = 1) {
  let x = (seed | 0) || 1;
  for (let i = 0; i < iters; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return x >>> 0;
}

/** Holds its thread for `ms` of wall time (a long task that occupies a P). */
export function hold(ctx, ms) {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) n++;
  return n;
}

/** The wall-clock time (ms since the epoch, comparable across threads) at which it started. */
export function stamp(ctx) {
  return wallNow();
}

// ---- skewed fork: every leaf spawned by one task on one P; the others only get work by stealing

/** Spawns burn(iters[i], i + 1) for every i and joins the checksums with `sum`. */
export function skewfork(ctx, iters) {
  const kids = new Array(iters.length);
  for (let i = 0; i < iters.length; i++) kids[i] = ctx.spawn('burn', iters[i], i + 1);
  return ctx.join('sum', ...kids);
}

// ---- UTS-style unbalanced tree search (binomial, like UTS's T3 family) --------------------
//
// A node is a 32-bit state. Its hash costs `rounds` rounds of a mixing function (the node's
// work, UTS's SHA-1 in miniature). The root has b0 children; every other node has M children
// when hash / 2^32 < q (qThr = q * 2^32), else none. With q * M just below 1 the expected size
// is 1 + b0 / (1 - qM), and subtrees differ wildly: most die at once, a few run deep.

const UTS_M = 8;

function mix(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function utsHash(state, rounds) {
  let h = state >>> 0;
  for (let i = 0; i < rounds; i++) h = mix(h + i);
  return h;
}

function utsChild(h, i) {
  return mix(h ^ Math.imul(i + 1, 0x9e3779b9));
}

/** A non-root node: 1 if a leaf, else a join of its M children counted by `plus1`. */
export function uts(ctx, state, qThr, rounds) {
  const h = utsHash(state, rounds);
  if (h >= qThr) return 1;
  const kids = new Array(UTS_M);
  for (let i = 0; i < UTS_M; i++) kids[i] = ctx.spawn('uts', utsChild(h, i), qThr, rounds);
  return ctx.join('plus1', ...kids);
}

export function plus1(ctx, ...xs) {
  let s = 1;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

/** The root's children lo..hi-1, spread by binary splitting (a range of one is the child). */
export function utsRange(ctx, h, lo, hi, qThr, rounds) {
  if (hi - lo === 1) return uts(ctx, utsChild(h, lo), qThr, rounds);
  const mid = (lo + hi) >>> 1;
  return ctx.join('sum', ctx.spawn('utsRange', h, lo, mid, qThr, rounds), ctx.spawn('utsRange', h, mid, hi, qThr, rounds));
}

/** The whole tree: its node count. */
export function utsRoot(ctx, seed, b0, qThr, rounds) {
  const h = utsHash(seed, rounds);
  return ctx.join('plus1', ctx.spawn('utsRange', h, 0, b0, qThr, rounds));
}

/**
 * UTS with a chunk size, in the spirit of the UTS reference implementation's work-stealing
 * versions (a worker explores from its own stack and releases work in chunks): a task explores
 * its stack depth-first; every `chunk` nodes, if the stack holds more than one node, it hands the
 * oldest half of it (the biggest subtrees, in depth-first order) to a new task and goes on with
 * the rest. Its result joins its own count with its children's.
 */
export function utsChunk(ctx, states, qThr, rounds, chunk) {
  let stack = typeof states === 'number' ? [states] : Array.from(states);
  let nodes = 0;
  const kids = [];
  while (stack.length !== 0) {
    const h = utsHash(stack.pop(), rounds);
    nodes++;
    if (h < qThr) for (let i = 0; i < UTS_M; i++) stack.push(utsChild(h, i));
    if (nodes % chunk === 0 && stack.length > 1) {
      const half = stack.length >> 1;
      kids.push(ctx.spawn('utsChunk', Uint32Array.from(stack.slice(0, half)), qThr, rounds, chunk));
      stack = stack.slice(half);
    }
  }
  if (kids.length === 0) return nodes;
  return ctx.join('sum', ctx.spawn('value', nodes), ...kids);
}

export function value(ctx, x) {
  return x;
}

/** The chunked tree: the root's children spread by binary splitting, each a utsChunk. */
export function utsChunkRange(ctx, h, lo, hi, qThr, rounds, chunk) {
  if (hi - lo === 1) return utsChunk(ctx, utsChild(h, lo), qThr, rounds, chunk);
  const mid = (lo + hi) >>> 1;
  return ctx.join('sum', ctx.spawn('utsChunkRange', h, lo, mid, qThr, rounds, chunk), ctx.spawn('utsChunkRange', h, mid, hi, qThr, rounds, chunk));
}

export function utsChunkRoot(ctx, seed, b0, qThr, rounds, chunk) {
  const h = utsHash(seed, rounds);
  return ctx.join('plus1', ctx.spawn('utsChunkRange', h, 0, b0, qThr, rounds, chunk));
}

/** The same tree walked on one thread (explicit stack): its node count and deepest level. */
export function utsSeq(ctx, seed, b0, qThr, rounds) {
  const h = utsHash(seed, rounds);
  const stack = [];
  const depth = [];
  for (let i = 0; i < b0; i++) { stack.push(utsChild(h, i)); depth.push(1); }
  let nodes = 1;
  let maxDepth = 0;
  while (stack.length !== 0) {
    const s = stack.pop();
    const d = depth.pop();
    nodes++;
    if (d > maxDepth) maxDepth = d;
    const hh = utsHash(s, rounds);
    if (hh < qThr) for (let i = 0; i < UTS_M; i++) { stack.push(utsChild(hh, i)); depth.push(d + 1); }
  }
  return ctx === null ? { nodes, maxDepth } : nodes;
}

// ---- request-style workloads (the policies suite) -----------------------------------------

/** A synchronous fork-join request: k children of `iters` CPU work each. */
export function fanout(ctx, k, iters) {
  const kids = new Array(k);
  for (let i = 0; i < k; i++) kids[i] = ctx.spawn('burn', iters, i + 1);
  return ctx.join('sum', ...kids);
}

const SELF = new URL(import.meta.url);

/**
 * A mixed request: forks k CPU children and awaits them, then reads a file (async I/O through
 * the runtime's thread pool), then a little more CPU. Its G waits without holding the P.
 */
export async function ioreq(ctx, k, iters) {
  const kids = new Array(k);
  for (let i = 0; i < k; i++) kids[i] = ctx.spawn('burn', iters, i + 1);
  let s = 0;
  for (let i = 0; i < k; i++) s += await kids[i];
  const text = await readFile(SELF);
  return (s + text.length + burn(null, iters)) >>> 0;
}
