// The data-parallel calls' arguments (docs/DESIGN.md "Data-parallel calls", docs/guide.md
// "Data-parallel calls"): the source of items, the options, and the job they make (par-job.ts).
// Checked eagerly, with TypeError/RangeError naming the argument, on the calling thread (the
// main thread's Scheduler methods, a task's ctx methods). Any thread.

import { optionRangeError, optionTypeError, unknownOptionError } from '../base/errors.js';
import { PAR_REDUCE, type ParJob } from './par-job.js';

/** The items of a data-parallel call: a count n (the indices 0..n-1), a range `{ start, end }`
 *  (start..end-1), an array, or a typed array (on a SharedArrayBuffer: shared, never copied). */
export type ParSource = number | {
  /** The first index (an integer). */
  start: number;
  /** One past the last index (an integer, at least start; end === start has no items). */
  end: number;
} | readonly unknown[] | ParTypedArray;

/** The typed arrays a data-parallel call takes as its source. */
export type ParTypedArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** Options of a data-parallel call. */
export interface ParOptions {
  /** No leaf range shorter than this (default 1): raise it when one item costs about as much as
   *  a fork (tens of nanoseconds), so a leaf amortises it. */
  minLen?: number;
  /** No leaf range longer than this (default no bound): ranges longer are split whatever the
   *  splitter's count, so items of very uneven cost still spread. */
  maxLen?: number;
  /** Call the function once per leaf range, `fn(ctx, lo, hi, source)`, instead of once per item,
   *  `fn(ctx, item, index, source)`. A map's chunk call returns the chunk's `hi - lo` results. */
  chunk?: boolean;
}

/** Options of a parallel reduce: the result of an empty source. */
export interface ParReduceOptions extends ParOptions {
  /** What an empty source reduces to (default undefined). */
  identity?: unknown;
}

const PAR_KEYS = ['minLen', 'maxLen', 'chunk', 'identity'];
// Not `kill`: the call's own bookkeeping runs as a task's code, which a kill may stop anywhere.
const SPAWN_KEYS = ['signal', 'timeout', 'priority'];

function isTyped(x: unknown): x is ParTypedArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

/**
 * The job of a call: `what` names the call in errors ('parMap', 'ctx.parReduce'); `threads` is
 * the splitter's count (the Ps). Throws a TypeError or RangeError naming the bad argument.
 * Returns the job and the spawn options among `options` (main thread: the root task's).
 */
export function parJob(what: string, kind: number, fn: unknown, source: unknown, combine: unknown, options: unknown,
  threads: number, spawnKeys: boolean): { job: ParJob; spawn: Record<string, unknown> | null } {
  if (typeof fn !== 'string') throw optionTypeError(`${what}: name`, `must be a task name (a string), got ${typeof fn}`);
  if (kind === PAR_REDUCE && typeof combine !== 'string') throw optionTypeError(`${what}: combine`, `must be a task name (a string), got ${typeof combine}`);
  let src: ArrayLike<unknown> | null = null;
  let start = 0;
  let len: number;
  if (typeof source === 'number') {
    if (!Number.isSafeInteger(source) || source < 0) throw optionRangeError(`${what}: source`, `a count must be a non-negative integer, got ${source}`);
    len = source;
  } else if (Array.isArray(source) || isTyped(source)) {
    src = source as ArrayLike<unknown>;
    len = src.length;
  } else if (source !== null && typeof source === 'object' && 'start' in source && 'end' in source) {
    const { start: s, end: e } = source as { start: unknown; end: unknown };
    if (typeof s !== 'number' || !Number.isSafeInteger(s)) throw optionTypeError(`${what}: source.start`, `must be an integer, got ${String(s)}`);
    if (typeof e !== 'number' || !Number.isSafeInteger(e)) throw optionTypeError(`${what}: source.end`, `must be an integer, got ${String(e)}`);
    if (e < s) throw optionRangeError(`${what}: source`, `end (${e}) is below start (${s})`);
    start = s;
    len = e - s;
  } else {
    throw optionTypeError(`${what}: source`, `must be a count, a { start, end } range, an array or a typed array, got ${source === null ? 'null' : typeof source}`);
  }
  const o = (options ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object') throw optionTypeError(`${what}: options`, `must be an object, got ${typeof o}`);
  const spawn: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    if (PAR_KEYS.includes(k) && (k !== 'identity' || kind === PAR_REDUCE)) continue;
    if (spawnKeys && SPAWN_KEYS.includes(k)) { spawn[k] = o[k]; continue; }
    throw unknownOptionError(`${what}: options.${k}`, [...(kind === PAR_REDUCE ? PAR_KEYS : PAR_KEYS.slice(0, 3)), ...(spawnKeys ? SPAWN_KEYS : [])]);
  }
  const minLen = o.minLen === undefined ? 1 : o.minLen;
  if (typeof minLen !== 'number' || !Number.isSafeInteger(minLen) || minLen < 1) throw optionRangeError(`${what}: options.minLen`, `must be a positive integer, got ${String(minLen)}`);
  const maxLen = o.maxLen === undefined ? Infinity : o.maxLen;
  if (typeof maxLen !== 'number' || (maxLen !== Infinity && !Number.isSafeInteger(maxLen)) || maxLen < 1) throw optionRangeError(`${what}: options.maxLen`, `must be a positive integer, got ${String(maxLen)}`);
  if (o.chunk !== undefined && typeof o.chunk !== 'boolean') throw optionTypeError(`${what}: options.chunk`, `must be a boolean, got ${typeof o.chunk}`);
  const job: ParJob = {
    kind, fn, src, start, len, minLen, maxLen, chunk: o.chunk === true,
    combine: kind === PAR_REDUCE ? combine as string : '', identity: o.identity, hasIdentity: 'identity' in o, threads: Math.max(1, threads),
  };
  return { job, spawn: Object.keys(spawn).length === 0 ? null : spawn };
}
