// The shared words of the stealwork/piscina entry: the force-close flag and the list of runs a
// forced close lets finish, which its task wrapper reads, and the run-time and wait-time histograms the wrappers record into (piscina's `histogram`,
// `utilization`). One SharedArrayBuffer, made by the main thread and sent in every worker's
// init message.
//
// Layout: a header of eight i32 (CLOSED, the run epoch, the wait epoch, the allowed count, the
// allowed list's byte offset and its room, two spare), then one block per M and kind (run,
// wait), then the allowed list (u32 G ids: the runs dispatched when the pool was force-closed). A block: i32 epoch (+4 spare), f64 count, sum, sum of squares,
// min, max (microseconds), then u32 buckets. Only M m writes its blocks; the main thread reads.
// A reset bumps the kind's epoch; an M zeroes its block when it sees a new epoch before its
// next sample, and a reader skips blocks of an old epoch, so no thread writes another's block.
// These are monitoring figures: a read that races a write may see that one sample half done.

export const CLOSED = 0;
const EPOCH = 1; // + kind
const ALLOW_N = 3;
const ALLOW_AT = 4;
const ALLOW_ROOM = 5;
const HEADER = 32;
/** The most runs a forced close can let finish (piscina's dispatched ones: maxThreads x
 *  concurrentTasksPerWorker, a few more while a gone thread's runs drain); beyond it, a run not
 *  started fails as a queued one does. */
const ALLOW_MAX = 65536;
/** Kinds of figure. */
export const RUN = 0;
export const WAIT = 1;
/** Log-linear buckets in microseconds: bucket 0 is below 1 us; each power of two above splits
 *  into SUB buckets (a bucket's upper bound is at most 1/SUB above its lower bound). */
const SUB = 16;
const BUCKETS = 1 + 40 * SUB;
const F_COUNT = 8;
const F_SUM = 16;
const F_SUMSQ = 24;
const F_MIN = 32;
const F_MAX = 40;
const F_BUCKETS = 48;
const BLOCK = F_BUCKETS + BUCKETS * 4;

/** A buffer for M slots 1..nms-1, and room to list `allow` runs at a forced close. Main thread. */
export function timingBuffer(nms: number, allow: number): SharedArrayBuffer {
  const room = Math.min(ALLOW_MAX, Math.max(16, Math.ceil(allow)));
  const at = HEADER + (nms - 1) * 2 * BLOCK;
  const buf = new SharedArrayBuffer(at + room * 4);
  const i32 = new Int32Array(buf);
  i32[ALLOW_AT] = at;
  i32[ALLOW_ROOM] = room;
  return buf;
}

function blockBase(m: number, kind: number): number {
  return HEADER + ((m - 1) * 2 + kind) * BLOCK;
}

function bucketOf(us: number): number {
  if (!(us >= 1)) return 0;
  const k = Math.floor(Math.log2(us));
  const b = 1 + k * SUB + Math.floor((us / 2 ** k - 1) * SUB);
  return b < BUCKETS ? b : BUCKETS - 1;
}

function bucketUpper(b: number): number {
  if (b === 0) return 1;
  const k = Math.floor((b - 1) / SUB);
  return 2 ** k * (1 + ((b - 1) % SUB + 1) / SUB);
}

/** Records M m's samples. Owner M only. */
export class TimingRecorder {
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly u32: Uint32Array;
  private readonly m: number;

  constructor(buf: SharedArrayBuffer, m: number) {
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.u32 = new Uint32Array(buf);
    this.m = m;
  }

  /** True when the run of G g must not start: the pool was force-closed and g is not one of
   *  the runs dispatched then (piscina lets those finish and fails the queued ones). */
  refuses(g: number): boolean {
    if (Atomics.load(this.i32, CLOSED) === 0) return false; // pairs with markClosed's store (after the list's)
    const n = Atomics.load(this.i32, ALLOW_N); // pairs with markClosed's store
    const at = this.i32[ALLOW_AT] >>> 2; // written before the buffer was shared
    for (let i = 0; i < n; i++) if (Atomics.load(this.u32, at + i) === g) return false; // pairs with markClosed's stores
    return true;
  }

  /** One sample of `kind`, in ms; stored as piscina does, whole microseconds, at least 1. */
  record(kind: number, ms: number): void {
    const base = blockBase(this.m, kind);
    const epoch = Atomics.load(this.i32, EPOCH + kind); // pairs with reset's add
    const f = this.f64;
    if (this.i32[base >>> 2] !== epoch) {
      f.fill(0, (base + F_COUNT) >>> 3, (base + F_BUCKETS) >>> 3);
      this.u32.fill(0, (base + F_BUCKETS) >>> 2, (base + BLOCK) >>> 2);
      f[(base + F_MIN) >>> 3] = Infinity;
      Atomics.store(this.i32, base >>> 2, epoch); // pairs with the block-epoch loads in totals/summary: a reader counts this block from now on
    }
    const us = Math.max(1, Math.trunc(ms * 1000));
    // A block never reset holds zeros (its epoch 0 is the first epoch): its first sample sets
    // min, or min would stay 0.
    if (f[(base + F_COUNT) >>> 3] === 0) f[(base + F_MIN) >>> 3] = Infinity;
    f[(base + F_COUNT) >>> 3] += 1;
    f[(base + F_SUM) >>> 3] += us;
    f[(base + F_SUMSQ) >>> 3] += us * us;
    if (us < f[(base + F_MIN) >>> 3]) f[(base + F_MIN) >>> 3] = us;
    if (us > f[(base + F_MAX) >>> 3]) f[(base + F_MAX) >>> 3] = us;
    Atomics.add(this.u32, ((base + F_BUCKETS) >>> 2) + bucketOf(us), 1); // pairs with summary's loads
  }
}

/** piscina's histogram summary: every figure in milliseconds, samples recorded in whole
 *  microseconds. A percentile pN is the upper bound of a log-linear bucket, at most 1/16 above
 *  the true value; mean, stddev, min and max are exact. With no samples, the figures of an empty
 *  node:perf_hooks histogram: mean and stddev NaN, max and the percentiles 0. */
export interface HistogramSummary {
  /** The same as `mean` (piscina's summary has both names). */
  average: number;
  /** The samples' sum over their count. */
  mean: number;
  /** The samples' standard deviation (of the population: divided by the count). */
  stddev: number;
  /** The shortest sample. */
  min: number;
  /** The longest sample. */
  max: number;
  /** 0.001% of the samples were at most this. */
  p0_001: number;
  /** 0.01% of the samples were at most this. */
  p0_01: number;
  /** 0.1% of the samples were at most this. */
  p0_1: number;
  /** 1% of the samples were at most this. */
  p1: number;
  /** 2.5% of the samples were at most this. */
  p2_5: number;
  /** 10% of the samples were at most this. */
  p10: number;
  /** 25% of the samples were at most this. */
  p25: number;
  /** 50% of the samples were at most this. */
  p50: number;
  /** 75% of the samples were at most this. */
  p75: number;
  /** 90% of the samples were at most this. */
  p90: number;
  /** 97.5% of the samples were at most this. */
  p97_5: number;
  /** 99% of the samples were at most this. */
  p99: number;
  /** 99.9% of the samples were at most this. */
  p99_9: number;
  /** 99.99% of the samples were at most this. */
  p99_99: number;
  /** 99.999% of the samples were at most this. */
  p99_999: number;
}

const PERCENTILES: Array<[keyof HistogramSummary, number]> = [
  ['p0_001', 0.001], ['p0_01', 0.01], ['p0_1', 0.1], ['p1', 1], ['p2_5', 2.5], ['p10', 10], ['p25', 25], ['p50', 50],
  ['p75', 75], ['p90', 90], ['p97_5', 97.5], ['p99', 99], ['p99_9', 99.9], ['p99_99', 99.99], ['p99_999', 99.999],
];

/** The summary of no samples: the figures node's createHistogram() gives before its first
 *  record (piscina's, for a pool that has run nothing). */
export function emptySummary(): HistogramSummary {
  const s = { average: NaN, mean: NaN, stddev: NaN, min: 9223372036854776, max: 0 } as HistogramSummary;
  for (const [k] of PERCENTILES) s[k] = 0;
  return s;
}

/** Reads and resets the figures. Main thread. */
export class TimingReader {
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly u32: Uint32Array;
  private readonly nms: number;

  constructor(buf: SharedArrayBuffer, nms: number) {
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.u32 = new Uint32Array(buf);
    this.nms = nms;
  }

  /** From now on, tasks that have not started fail instead of running, but for the runs of the
   *  Gs in `allow` (those piscina had dispatched; as many as the list has room for). */
  markClosed(allow: readonly number[]): void {
    const at = this.i32[ALLOW_AT] >>> 2;
    const n = Math.min(allow.length, this.i32[ALLOW_ROOM]);
    for (let i = 0; i < n; i++) Atomics.store(this.u32, at + i, allow[i]); // pairs with refuses' loads
    Atomics.store(this.i32, ALLOW_N, n); // the same
    Atomics.store(this.i32, CLOSED, 1); // last: a wrapper that sees it sees the list (pairs with refuses' first load)
  }

  /** Forgets kind's samples: every M starts its block afresh at its next sample. */
  reset(kind: number): void {
    Atomics.add(this.i32, EPOCH + kind, 1); // pairs with record's epoch load
  }

  /** Samples of kind and their sum, in microseconds. */
  totals(kind: number): { count: number; sum: number } {
    let count = 0;
    let sum = 0;
    const epoch = Atomics.load(this.i32, EPOCH + kind); // pairs with reset's add
    for (let m = 1; m < this.nms; m++) {
      const base = blockBase(m, kind);
      if (Atomics.load(this.i32, base >>> 2) !== epoch) continue; // pairs with record's block-epoch store
      count += this.f64[(base + F_COUNT) >>> 3];
      sum += this.f64[(base + F_SUM) >>> 3];
    }
    return { count, sum };
  }

  /** piscina's summary of kind (of M `only`'s samples alone when given: piscina's per-worker
   *  histogram); with no samples, the figures node's empty histogram gives. */
  summary(kind: number, only = 0): HistogramSummary {
    const epoch = Atomics.load(this.i32, EPOCH + kind); // pairs with reset's add
    const merged = new Float64Array(BUCKETS);
    let count = 0;
    let sum = 0;
    let sumsq = 0;
    let min = Infinity;
    let max = 0;
    for (let m = only === 0 ? 1 : only; m < (only === 0 ? this.nms : only + 1); m++) {
      const base = blockBase(m, kind);
      if (Atomics.load(this.i32, base >>> 2) !== epoch) continue; // pairs with record's block-epoch store
      const f = this.f64;
      if (f[(base + F_COUNT) >>> 3] === 0) continue; // no sample yet: its zeros are no minimum
      count += f[(base + F_COUNT) >>> 3];
      sum += f[(base + F_SUM) >>> 3];
      sumsq += f[(base + F_SUMSQ) >>> 3];
      min = Math.min(min, f[(base + F_MIN) >>> 3]);
      max = Math.max(max, f[(base + F_MAX) >>> 3]);
      for (let b = 0; b < BUCKETS; b++) merged[b] += Atomics.load(this.u32, ((base + F_BUCKETS) >>> 2) + b); // pairs with record's add
    }
    if (count === 0) return emptySummary();
    const s = {} as HistogramSummary;
    const mean = sum / count;
    const stddev = Math.sqrt(Math.max(0, sumsq / count - mean * mean));
    s.average = s.mean = mean / 1000;
    s.stddev = stddev / 1000;
    s.min = min / 1000;
    s.max = max / 1000;
    for (const [k, p] of PERCENTILES) {
      const target = Math.max(1, Math.ceil((p / 100) * count));
      let seen = 0;
      let v = max;
      for (let b = 0; b < BUCKETS; b++) {
        seen += merged[b];
        if (seen >= target) { v = Math.min(max, Math.max(min, bucketUpper(b))); break; }
      }
      s[k] = v / 1000;
    }
    return s;
  }
}
