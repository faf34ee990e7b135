// piscina's worker file for bench/workloads.mjs: the kernels of bench/kernels/ behind the
// one-argument signature a pool calls. A pool task cannot fork, so the main thread splits each
// workload into these tasks (workloads.mjs, "piscina").

import { walk } from './kernels/uts.mjs';
import { TREE_LIST } from './kernels/trees.mjs';
import { count } from './kernels/nqueens.mjs';
import { merge, sort } from './kernels/msort.mjs';
import { rows } from './kernels/mandel.mjs';

export function utsWalk({ ti, nodes6 }) {
  return walk(TREE_LIST[ti], nodes6);
}

export function queens({ n, row, cols, left, right }) {
  return count(n, row, cols, left, right);
}

export function msortRange({ abuf, bbuf, lo, hi, toB }) {
  sort(new Float64Array(abuf), new Float64Array(bbuf), lo, hi, toB);
  return hi - lo;
}

/** The merge of one msort step: the halves are in the other buffer than the result's. */
export function msortMerge({ abuf, bbuf, lo, mid, hi, toB }) {
  const a = new Float64Array(abuf);
  const b = new Float64Array(bbuf);
  if (toB) merge(a, b, lo, mid, hi);
  else merge(b, a, lo, mid, hi);
  return hi - lo;
}

export function mandelRows({ buf, w, h, y0, y1, maxIter }) {
  return rows(new Int32Array(buf), w, h, y0, y1, maxIter);
}
