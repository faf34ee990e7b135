// A data-parallel call's job (docs/DESIGN.md "Data-parallel calls"): what every part of one
// call needs (the task function, the source, the kind, the splitter's bounds), kept in shared
// memory once per call so the parts forked to other threads carry only numbers.
//
// The job's header is one 16-byte value block, its address the job's name in every fork:
//
//   +0  stop    i32  0 while the call runs; 1 once an item failed or the tree was cancelled
//   +4  block   u32  the value block holding the ParJob (codec-encoded once, by the caller)
//   +8  serial  f64  unique to the call (the thread's M index * 2^32 + a count); 0 once over
//
// Who may call what: the call's root (par.ts runPar, on the thread the call runs on) makes
// and frees the job; any thread running one of its parts looks it up (jobOf) while the call
// runs, which is while the root waits for every part it forked (fork-join).

import { decodeValue, encodeValue } from '../../codec/index.js';
import type { Views } from '../memory/values.js';
import type { GSlots } from '../memory/gslots.js';
import { outOfSharedMemoryError } from '../base/errors.js';

/** What a call does with its items. */
export const PAR_MAP = 0;
export const PAR_FOR_EACH = 1;
export const PAR_REDUCE = 2;

/** A call's description, as the caller encodes it (one value through the codec). */
export interface ParJob {
  /** PAR_MAP, PAR_FOR_EACH or PAR_REDUCE. */
  kind: number;
  /** The task function called per item (or per chunk). */
  fn: string;
  /** The items: an array or a typed array; null for an index range. */
  src: ArrayLike<unknown> | null;
  /** An index range's first value (0 for an array). */
  start: number;
  /** How many items. */
  len: number;
  minLen: number;
  maxLen: number;
  /** Call fn once per leaf range, `fn(ctx, lo, hi, src)`, rather than once per item. */
  chunk: boolean;
  /** PAR_REDUCE: the task function combining two partial results, `(ctx, a, b)`. */
  combine: string;
  /** PAR_REDUCE: the result of an empty call, when `hasIdentity`. */
  identity: unknown;
  hasIdentity: boolean;
  /** The Ps when the call was made: the splitter's count (par-split.ts). */
  threads: number;
}

const HEADER_BYTES = 16;
const STOP = 0;
const BLOCK = 4;
const SERIAL = 8;

let serials = 0;

/** Encodes `job` and makes its header; returns the header's address. The root, once per call. */
export function jobNew(gs: GSlots, mid: number, job: ParJob): number {
  const v = gs.views;
  const block = encodeValue(v, gs.heap, job, `the data-parallel call of '${job.fn}'`, gs.shared);
  const h = gs.heap.heapAlloc(HEADER_BYTES);
  if (h === 0) { gs.heap.heapFree(block); throw outOfSharedMemoryError(`the data-parallel call of '${job.fn}'`, 'its 16-byte job header'); }
  v.ensure(h + HEADER_BYTES);
  Atomics.store(v.i32, (h + STOP) >>> 2, 0); // published to the parts' threads by the fork that carries h
  v.u32[(h + BLOCK) >>> 2] = block;
  v.f64[(h + SERIAL) >>> 3] = mid * 2 ** 32 + ++serials;
  cachePut(h, v.f64[(h + SERIAL) >>> 3], job);
  return h;
}

/** Frees job h once every part has returned. The root only. */
export function jobFree(gs: GSlots, h: number): void {
  const v = gs.views;
  v.ensure(h + HEADER_BYTES);
  const block = v.u32[(h + BLOCK) >>> 2];
  v.f64[(h + SERIAL) >>> 3] = 0; // no cache entry names it any more (jobOf compares serials)
  cacheDrop(h);
  gs.heap.heapFree(block);
  gs.heap.heapFree(h);
}

/** Tells every part of job h to stop (an item failed, or the tree was cancelled). Any thread. */
export function jobStop(v: Views, h: number): void {
  Atomics.store(v.i32, (h + STOP) >>> 2, 1); // pairs with the parts' loads in jobStopped
}

/** Has job h been told to stop? Any thread running one of its parts. */
export function jobStopped(v: Views, h: number): boolean {
  return Atomics.load(v.i32, (h + STOP) >>> 2) !== 0; // pairs with jobStop's store
}

// ---- The per-thread cache ----------------------------------------------------------------------
// A thread decodes a job once, the first time it runs one of its parts (a stolen part), and
// keeps it for the inline parts that follow. At most CACHE_MAX jobs (nested calls: an item of
// one call making another); an entry whose job is over is dropped when a new one comes in, so
// a thread keeps the copy of at most one finished job's plain-array items until its next call.

const CACHE_MAX = 4;
const cacheH: number[] = [];
const cacheSerial: number[] = [];
const cacheJob: ParJob[] = [];

/** The job of header h, decoded on this thread's first look. Any thread running a part of h. */
export function jobOf(gs: GSlots, h: number): ParJob {
  const v = gs.views;
  v.ensure(h + HEADER_BYTES);
  const serial = v.f64[(h + SERIAL) >>> 3];
  for (let i = cacheH.length - 1; i >= 0; i--) if (cacheH[i] === h && cacheSerial[i] === serial) return cacheJob[i];
  const job = decodeValue(v, v.u32[(h + BLOCK) >>> 2], gs.shared) as ParJob;
  // Entries of jobs that are over (their serial gone from their header) go first.
  for (let i = cacheH.length - 1; i >= 0; i--) {
    v.ensure(cacheH[i] + HEADER_BYTES);
    if (v.f64[(cacheH[i] + SERIAL) >>> 3] !== cacheSerial[i]) { cacheH.splice(i, 1); cacheSerial.splice(i, 1); cacheJob.splice(i, 1); }
  }
  cachePut(h, serial, job);
  return job;
}

function cachePut(h: number, serial: number, job: ParJob): void {
  if (cacheH.length === CACHE_MAX) { cacheH.shift(); cacheSerial.shift(); cacheJob.shift(); }
  cacheH.push(h);
  cacheSerial.push(serial);
  cacheJob.push(job);
}

function cacheDrop(h: number): void {
  const i = cacheH.indexOf(h);
  if (i >= 0) { cacheH.splice(i, 1); cacheSerial.splice(i, 1); cacheJob.splice(i, 1); }
}
