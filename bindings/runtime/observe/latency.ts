// Latency histograms: per-task queueing delay (runnable to started) and run time (how long the
// task's function held its thread), sampled one G in LATENCY_SAMPLE, kept per M in shared
// memory and merged by stats().
//
// Buckets are log-linear in microseconds: bucket 0 holds values below 1 us; above, each power
// of two splits into 4 sub-buckets (so a bucket's upper bound is at most 25% above its lower
// bound). Percentiles report a bucket's upper bound; max is exact.

import { MR_HIST } from '../../../assembly/shared/layout.js';
import type { Views } from '../memory/values.js';
import { reserveError } from '../base/errors.js';
import { mAddr } from '../memory/mblock.js';

/** One G in this many is timed (a power of two); the rest cost one counter increment. A timed
 *  G costs three clock reads; at one in 8 that was 15% of fibc(27)'s time, at one in 64 it is
 *  within noise. */
export const LATENCY_SAMPLE = 64;
const BUCKETS = 128;
const SUB = 4;
/** Per M: queue buckets, run buckets (u32 each), then queue max and run max (f64). */
export const HIST_BYTES = 2 * BUCKETS * 4 + 16;

function bucketOf(us: number): number {
  if (!(us >= 1)) return 0;
  const k = Math.floor(Math.log2(us));
  const sub = Math.floor((us / 2 ** k - 1) * SUB);
  const b = 1 + k * SUB + sub;
  return b < BUCKETS ? b : BUCKETS - 1;
}

function bucketUpper(b: number): number {
  if (b === 0) return 1;
  const k = Math.floor((b - 1) / SUB);
  const sub = (b - 1) % SUB;
  return 2 ** k * (1 + (sub + 1) / SUB);
}

/** Records into one M's histograms. Owner M only. */
export class LatencyRecorder {
  private readonly views: Views;
  private readonly base: number;

  constructor(views: Views, base: number) {
    this.views = views;
    this.base = base;
    if (base + HIST_BYTES > views.end) views.refresh();
  }

  /** A queueing delay, in ms. */
  queue(ms: number): void {
    this.add(0, ms);
  }

  /** A run time, in ms. */
  run(ms: number): void {
    this.add(1, ms);
  }

  private add(which: number, ms: number): void {
    const v = this.views;
    const us = ms * 1000;
    const idx = (this.base >>> 2) + which * BUCKETS + bucketOf(us);
    Atomics.store(v.u32, idx, v.u32[idx] + 1); // one writer (the owner's plain read is its own): pairs with readLatency's load
    const maxAddr = (this.base + 2 * BUCKETS * 4 + which * 8) >>> 3;
    if (us > v.f64[maxAddr]) v.f64[maxAddr] = us;
  }
}

/** Allocates zeroed histograms for Ms 1..nms-1. Main thread, at start. */
export function allocHistograms(views: Views, heap: { heapAlloc(n: number): number }, nms: number): void {
  for (let m = 1; m < nms; m++) {
    const addr = heap.heapAlloc(HIST_BYTES);
    if (addr === 0) throw reserveError('latency', `the histograms of M${m} (${HIST_BYTES} bytes)`);
    views.refresh();
    views.u8.fill(0, addr, addr + HIST_BYTES);
    views.u32[(mAddr(views, m) + MR_HIST) >>> 2] = addr;
  }
}

/** Percentiles of one kind of latency, in microseconds, over the tasks sampled since start
 *  (every figure 0 before the first). A percentile is the upper bound of its histogram bucket,
 *  at most 25% above the true value and never above max (under 1 us reads as 1).
 *  @inline */
export interface LatencySummary {
  /** Sampled tasks. */
  count: number;
  /** Half the sampled tasks took at most this long. */
  p50: number;
  /** 90% of the sampled tasks took at most this long. */
  p90: number;
  /** 99% of the sampled tasks took at most this long. */
  p99: number;
  /** The longest time sampled, exact. */
  max: number;
}

/** Merges every M's histograms. Any thread. */
export function readLatency(views: Views, nms: number): { queue: LatencySummary; run: LatencySummary } {
  const merged = [new Float64Array(BUCKETS), new Float64Array(BUCKETS)];
  const max = [0, 0];
  for (let m = 1; m < nms; m++) {
    const base = views.u32[(mAddr(views, m) + MR_HIST) >>> 2];
    if (base === 0) continue;
    if (base + HIST_BYTES > views.end) views.refresh();
    for (let w = 0; w < 2; w++) {
      for (let b = 0; b < BUCKETS; b++) merged[w][b] += Atomics.load(views.u32, (base >>> 2) + w * BUCKETS + b); // pairs with the owner's store in LatencyRecorder
      max[w] = Math.max(max[w], views.f64[(base + 2 * BUCKETS * 4 + w * 8) >>> 3]);
    }
  }
  const summary = (h: Float64Array, mx: number): LatencySummary => {
    let count = 0;
    for (let b = 0; b < BUCKETS; b++) count += h[b];
    const at = (q: number): number => {
      if (count === 0) return 0;
      const target = Math.ceil(q * count);
      let seen = 0;
      for (let b = 0; b < BUCKETS; b++) {
        seen += h[b];
        if (seen >= target) return Math.min(bucketUpper(b), mx);
      }
      return mx;
    };
    return { count, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: mx };
  };
  return { queue: summary(merged[0], max[0]), run: summary(merged[1], max[1]) };
}
