// The data-parallel calls' worker side (docs/DESIGN.md "Data-parallel calls"): a call's range
// of items is split in two by the adaptive splitter (par-split.ts), the right half forked
// (ctx.fork: work-first, so a split nobody steals costs a call), the left half run here, then
// the right half joined; a range the splitter does not split is a leaf, run as one loop.
//
// Two built-in task functions, in every thread's task table after the module's own
// (worker.ts): PAR_ROOT, the call itself (spawned by Scheduler.parMap & co, or run in place by
// ctx.parMap & co), and PAR_PART, a forked half (numbers only: the job's header, the range, the
// splits, the forker's thread). Who may call what: the M's thread running the task; nothing
// here outlives the call.

import { cancelledError, parAsyncError, parChunkError } from '../base/errors.js';
import type { GSlots } from '../memory/gslots.js';
import type { TaskFn } from './taskfn.js';
import type { TaskContext } from './context.js';
import { jobFree, jobNew, jobOf, jobStop, jobStopped, PAR_FOR_EACH, PAR_MAP, PAR_REDUCE, type ParJob } from './par-job.js';
import { initialSplits, NO_SPLIT, splitDecision } from './par-split.js';

/** The built-in tasks' names: the reserved 'stealwork:' prefix no module export is expected to
 *  use (Scheduler.taskNames leaves them out). */
export const PAR_ROOT = 'stealwork:par';
export const PAR_PART = 'stealwork:par-part';

/** What the parts need of their M (bindings/runtime/threads/m.ts has it all). */
export interface ParHost {
  readonly gs: GSlots;
  readonly mid: number;
  taskId(name: string): number;
  fn(id: number): TaskFn;
  isAsyncTask(id: number): boolean;
}

/** This thread's M (set once by the worker entry, worker.ts): ctx.host may be the kill guard's
 *  wrapper (tasks/kill.ts), which has no memory of its own to offer. */
let thisM: ParHost | null = null;

/** The worker entry, once its M exists. */
export function setParHost(m: ParHost): void {
  thisM = m;
}

/** One call's state on one thread: the job, its header and its functions resolved here. */
interface Run {
  readonly h: number;
  readonly job: ParJob;
  readonly fn: TaskFn;
  readonly combine: TaskFn | null;
  readonly host: ParHost;
}

/** The functions of a job, resolved on this thread (one Map lookup per name, per part that
 *  starts a thread's share of the call). */
function runOf(host: ParHost, h: number, job: ParJob): Run {
  const fn = host.fn(host.taskId(job.fn));
  const combine = job.kind === PAR_REDUCE ? host.fn(host.taskId(job.combine)) : null;
  return { h, job, fn, combine, host };
}

/**
 * PAR_ROOT: runs a whole call on the calling thread and returns its result (map: the results
 * in item order; forEach: undefined; reduce: the combined value). Throws an item's error (one
 * of them: every part still running is told to stop), or AbortError when the tree was
 * cancelled. The job's header and block are freed before it returns.
 */
export function runPar(ctx: TaskContext, job: ParJob): unknown {
  const host = thisM!;
  checkSync(host, job);
  if (job.len === 0) return job.kind === PAR_MAP ? [] : job.kind === PAR_REDUCE && job.hasIdentity ? job.identity : undefined;
  const h = jobNew(host.gs, host.mid, job);
  let out: unknown;
  try {
    const run = runOf(host, h, job);
    out = bridge(ctx, run, 0, job.len, initialSplits(job.len, job.threads, job.maxLen), false);
    if (jobStopped(host.gs.views, h)) throw cancelledError(); // stopped with no error of its own: the tree was cancelled
  } finally {
    jobFree(host.gs, h);
  }
  return job.kind === PAR_MAP ? flatten(out as ArrayLike<unknown>[], job.len) : out;
}

/** A task function may not be async here: the parts run inside fork-join (synchronous). */
function checkSync(host: ParHost, job: ParJob): void {
  if (host.isAsyncTask(host.taskId(job.fn))) throw parAsyncError(job.fn, false);
  if (job.kind === PAR_REDUCE && host.isAsyncTask(host.taskId(job.combine))) throw parAsyncError(job.combine, true);
}

/** PAR_PART: a forked half [lo, hi) of job h, with the splits its forker left it. */
export function parPart(ctx: TaskContext, h: number, lo: number, hi: number, splits: number, origin: number): unknown {
  const host = thisM!;
  const job = jobOf(host.gs, h);
  return bridge(ctx, runOf(host, h, job), lo, hi, splits, host.mid !== origin);
}

/**
 * Runs [lo, hi): split and fork the right half (DESIGN.md "The splitting rule"), or one leaf.
 * Returns the part's result: map, its chunks of results in order; reduce, its combined value;
 * null when the job was stopped (the call fails: the value is never looked at).
 */
function bridge(ctx: TaskContext, run: Run, lo: number, hi: number, splits: number, stolen: boolean): unknown {
  const v = run.host.gs.views;
  if (jobStopped(v, run.h)) return null;
  const job = run.job;
  const s = splitDecision(hi - lo, splits, stolen, job.threads, job.minLen, job.maxLen);
  if (s === NO_SPLIT) return leaf(ctx, run, lo, hi);
  const mid = lo + ((hi - lo) >>> 1);
  const right = ctx.fork(PAR_PART, run.h, mid, hi, s, run.host.mid);
  let left: unknown;
  try {
    left = bridge(ctx, run, lo, mid, s, false);
  } catch (e) {
    jobStop(v, run.h); // the rest stops; the right half is joined (it ends soon) and its outcome dropped
    try { right.join(); } catch { /* the left error is the one reported */ }
    throw e;
  }
  let r: unknown;
  try {
    r = right.join();
  } catch (e) {
    jobStop(v, run.h);
    throw e;
  }
  // A part stopped early returned null; the stop flag is set for good then, and the call fails
  // (an error, or the cancellation): no combine of a partial value.
  if (jobStopped(v, run.h)) return null;
  switch (job.kind) {
    case PAR_MAP: {
      const l = left as unknown[];
      const rr = r as unknown[];
      for (let i = 0; i < rr.length; i++) l.push(rr[i]);
      return l;
    }
    case PAR_REDUCE: return run.combine!(ctx, left, r);
    default: return undefined;
  }
}

/** Runs [lo, hi) as one loop (or one chunk call): see bridge for what it returns. */
function leaf(ctx: TaskContext, run: Run, lo: number, hi: number): unknown {
  const job = run.job;
  const fn = run.fn;
  const src = job.src;
  const v = run.host.gs.views;
  const h = run.h;
  if (ctx.cancelled) { jobStop(v, h); return null; }
  if (job.chunk) {
    const r = fn(ctx, job.start + lo, job.start + hi, src);
    if (job.kind === PAR_MAP) {
      if (r === null || typeof r !== 'object' || typeof (r as ArrayLike<unknown>).length !== 'number' || (r as ArrayLike<unknown>).length !== hi - lo) {
        throw parChunkError(job.fn, job.start + lo, job.start + hi, r);
      }
      return [r];
    }
    return job.kind === PAR_REDUCE ? r : undefined;
  }
  const token = ctx.token !== 0;
  if (job.kind === PAR_MAP) {
    const out = new Array<unknown>(hi - lo);
    for (let i = lo; i < hi; i++) {
      if (jobStopped(v, h) || (token && ctx.cancelled)) { jobStop(v, h); return null; }
      out[i - lo] = fn(ctx, src === null ? job.start + i : src[i], i, src);
    }
    return [out];
  }
  if (job.kind === PAR_FOR_EACH) {
    for (let i = lo; i < hi; i++) {
      if (jobStopped(v, h) || (token && ctx.cancelled)) { jobStop(v, h); return null; }
      fn(ctx, src === null ? job.start + i : src[i], i, src);
    }
    return undefined;
  }
  const combine = run.combine!;
  let acc = fn(ctx, src === null ? job.start + lo : src[lo], lo, src);
  for (let i = lo + 1; i < hi; i++) {
    if (jobStopped(v, h) || (token && ctx.cancelled)) { jobStop(v, h); return null; }
    acc = combine(ctx, acc, fn(ctx, src === null ? job.start + i : src[i], i, src));
  }
  return acc;
}

/** The map's chunks, in order, as one array of `len` results. */
function flatten(chunks: ArrayLike<unknown>[], len: number): unknown[] {
  if (chunks.length === 1 && Array.isArray(chunks[0])) return chunks[0];
  const out = new Array<unknown>(len);
  let k = 0;
  for (const c of chunks) for (let i = 0; i < c.length; i++) out[k++] = c[i];
  return out;
}

/** PAR_ROOT as a task function (the table's entry): `(ctx, job)`. */
export function parRootTask(ctx: TaskContext, job: ParJob): unknown {
  return runPar(ctx, job);
}
