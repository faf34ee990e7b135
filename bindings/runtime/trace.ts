// The event trace: each M records what it does into its own ring of TRACE_EVENT-byte events in
// shared memory (so recording takes no lock and no message, and the main thread can read every
// ring at any time); `sched.trace()` turns the rings into Chrome Trace Event JSON that opens in
// Perfetto (ui.perfetto.dev) or chrome://tracing: one track per M, tasks as slices, steals as
// flow arrows from the victim's thread to the thief's.
//
// Cost: one clock read per task (its start); spawn events reuse the running task's start time,
// and a task's slice ends where the next event on its track begins.

import {
  HEADER, H_MBASE, M_SIZE, MR_TRACE_BUF, MR_TRACE_CAP, MR_TRACE_POS, TRACE_EVENT,
} from '../../assembly/shared/layout.js';
import type { Views } from './values.js';

export const EV_START = 1; // g started (a = P, b = task id)
export const EV_SPAWN = 2; // g spawned (a = parent g)
export const EV_STEAL = 3; // this M's P took b Gs from P a-1's ring (g = victim's M + 1)
export const EV_PARK = 4; // this M dropped its P (a = P) and went to sleep
export const EV_UNPARK = 5; // this M woke holding P a
export const EV_SETTLE = 6; // async g settled on this M (a = 1 ok, 0 failed)

const EVENT_NAMES = ['', 'start', 'spawn', 'steal', 'park', 'unpark', 'settle'];

/** Clock for trace events: ms since the epoch, comparable across threads. */
const origin = performance.timeOrigin;
export function traceClock(): number {
  return origin + performance.now();
}

/** Untimed events between two clock reads, at most (fine-grained work) and at least (coarse). */
const CLOCK_EVERY_MAX = 16;
/** Below this many microseconds per event, read the clock half as often; above COARSE_US, at
 *  every event again. */
const FINE_US = 5;
const COARSE_US = 500;

/**
 * Writes one M's events. Owner M only.
 *
 * Reading the clock costs about as much as a fine-grained task's scheduling, so task starts and
 * spawns are written untimed, and every `every`-th one (or any timed event: a steal, a park)
 * reads the clock and spreads the times of the untimed events since the last read evenly over
 * the interval. `every` adapts: it doubles (up to CLOCK_EVERY_MAX) while events come faster
 * than one per FINE_US microseconds and drops by 4x (to 1) when they come slower than COARSE_US, so
 * fine-grained work is placed to within a few microseconds at a sixteenth of the clock reads,
 * and coarse tasks (where a clock read is cheap in comparison) get exact times.
 */
export class TraceWriter {
  private readonly views: Views;
  private readonly buf: number;
  private readonly mask: number;
  private readonly posIdx: number;
  private pos = 0;
  private lastTime = traceClock();
  private untimed = 0;
  private every = 1;

  constructor(views: Views, mAddr: number) {
    this.views = views;
    this.buf = views.u32[(mAddr + MR_TRACE_BUF) >>> 2];
    this.mask = views.u32[(mAddr + MR_TRACE_CAP) >>> 2] - 1;
    this.posIdx = (mAddr + MR_TRACE_POS) >>> 2;
    if (this.buf + (this.mask + 1) * TRACE_EVENT > views.end) views.refresh();
  }

  /** An event at a clock time read by the caller. */
  emit(time: number, kind: number, g: number, a: number, b: number): void {
    this.write(time, kind, g, a, b);
    // The untimed events before this one happened between the last read and `time`.
    this.settleTimes(time, this.pos - 1, this.untimed + 1);
  }

  /** An event whose time is interpolated (see the class comment). */
  emitUntimed(kind: number, g: number, a: number, b: number): void {
    this.write(0, kind, g, a, b);
    if (++this.untimed >= this.every) this.settleTimes(traceClock(), this.pos, this.untimed);
  }

  /**
   * Gives the `untimed` events just before position `end` times spread evenly over
   * (lastTime, now]: event k of them (1-based) gets lastTime + k * (now - lastTime) / parts.
   */
  private settleTimes(now: number, end: number, parts: number): void {
    const n = this.untimed;
    const perEventUs = ((now - this.lastTime) * 1000) / parts;
    if (perEventUs < FINE_US) { if (this.every < CLOCK_EVERY_MAX) this.every <<= 1; }
    else if (perEventUs > COARSE_US) this.every = this.every > 4 ? this.every >> 2 : 1; // a GC pause does not undo it all
    if (n !== 0) {
      const f64 = this.views.f64;
      const step = (now - this.lastTime) / parts;
      for (let k = 1; k <= n; k++) {
        const e = this.buf + ((end - n - 1 + k) & this.mask) * TRACE_EVENT;
        f64[e >>> 3] = this.lastTime + step * k;
      }
      this.untimed = 0;
    }
    this.lastTime = now;
  }

  private write(time: number, kind: number, g: number, a: number, b: number): void {
    const v = this.views;
    const e = this.buf + (this.pos & this.mask) * TRACE_EVENT;
    v.f64[e >>> 3] = time;
    const w = e >>> 2;
    v.u32[w + 2] = kind;
    v.u32[w + 3] = g;
    v.u32[w + 4] = a;
    v.u32[w + 5] = b;
    // Plain store: a reader (exportTrace, normally after the work) may see a count a few events
    // stale, never a torn one; the event words were written before it.
    v.u32[this.posIdx] = ++this.pos;
  }
}

/** Allocates a ring of `cap` events (a power of two) for each of `nms` Ms. Main thread, at start. */
export function allocTraceRings(views: Views, heap: { heapAlloc(n: number): number }, nms: number, cap: number): void {
  const mbase = views.u32[(HEADER + H_MBASE) >>> 2];
  for (let m = 1; m < nms; m++) {
    const buf = heap.heapAlloc(cap * TRACE_EVENT);
    if (buf === 0) throw new RangeError(`trace: no shared memory for ${cap} events per thread`);
    views.refresh();
    const b = mbase + m * M_SIZE;
    views.u32[(b + MR_TRACE_BUF) >>> 2] = buf;
    views.u32[(b + MR_TRACE_CAP) >>> 2] = cap;
    views.u32[(b + MR_TRACE_POS) >>> 2] = 0;
  }
}

interface ChromeEvent {
  name: string; ph: string; ts: number; pid: number; tid: number;
  dur?: number; id?: number; cat?: string; bp?: string; s?: string; args?: Record<string, unknown>;
}

/** Reads every M's ring into Chrome Trace Event JSON. Any thread (the main thread in practice). */
export function exportTrace(views: Views, nms: number, taskNames: readonly string[]): { traceEvents: ChromeEvent[]; displayTimeUnit: string } {
  views.refresh();
  const mbase = views.u32[(HEADER + H_MBASE) >>> 2];
  const events: ChromeEvent[] = [];
  let t0 = Infinity;
  const perM: Array<Array<{ t: number; kind: number; g: number; a: number; b: number }>> = [];
  for (let m = 1; m < nms; m++) {
    const b = mbase + m * M_SIZE;
    const buf = views.u32[(b + MR_TRACE_BUF) >>> 2];
    const cap = views.u32[(b + MR_TRACE_CAP) >>> 2];
    const pos = Atomics.load(views.u32, (b + MR_TRACE_POS) >>> 2);
    const list: Array<{ t: number; kind: number; g: number; a: number; b: number }> = [];
    if (buf !== 0) {
      for (let i = Math.max(0, pos - cap); i < pos; i++) {
        const e = buf + (i & (cap - 1)) * TRACE_EVENT;
        const w = e >>> 2;
        const ev = { t: views.f64[e >>> 3], kind: views.u32[w + 2], g: views.u32[w + 3], a: views.u32[w + 4], b: views.u32[w + 5] };
        // The newest events may still wait for their interpolated time: give them the last one.
        if (ev.t === 0 && list.length !== 0) ev.t = list[list.length - 1].t;
        list.push(ev);
        if (ev.t !== 0 && ev.t < t0) t0 = ev.t;
      }
    }
    perM.push(list);
  }
  if (t0 === Infinity) t0 = 0;
  const us = (t: number): number => Math.round((t - t0) * 1000 * 1000) / 1000;
  events.push({ name: 'process_name', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'stealwork' } });
  let flowId = 1;
  for (let mi = 0; mi < perM.length; mi++) {
    const tid = mi + 1;
    events.push({ name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid, args: { name: `M${tid}` } });
    const list = perM[mi];
    for (let i = 0; i < list.length; i++) {
      const ev = list[i];
      const next = i + 1 < list.length ? list[i + 1].t : ev.t;
      switch (ev.kind) {
        case EV_START:
          events.push({ name: taskNames[ev.b] ?? `task ${ev.b}`, cat: 'task', ph: 'X', ts: us(ev.t), dur: Math.max(0, us(next) - us(ev.t)), pid: 1, tid, args: { g: ev.g, P: ev.a } });
          break;
        case EV_STEAL: {
          const victimM = ev.g - 1;
          const id = flowId++;
          events.push({ name: 'steal', cat: 'steal', ph: 'i', s: 't', ts: us(ev.t), pid: 1, tid, args: { thiefP: ev.a >>> 16, victimP: (ev.a & 0xffff) - 1, count: ev.b, victimM } });
          if (victimM > 0) {
            events.push({ name: 'steal', cat: 'steal', ph: 's', id, ts: us(ev.t) - 0.001, pid: 1, tid: victimM });
            events.push({ name: 'steal', cat: 'steal', ph: 'f', bp: 'e', id, ts: us(ev.t), pid: 1, tid });
          }
          break;
        }
        case EV_PARK:
          events.push({ name: 'parked', cat: 'park', ph: 'X', ts: us(ev.t), dur: Math.max(0, us(next) - us(ev.t)), pid: 1, tid, args: { P: ev.a } });
          break;
        default:
          events.push({ name: EVENT_NAMES[ev.kind] ?? `event ${ev.kind}`, cat: EVENT_NAMES[ev.kind] ?? 'event', ph: 'i', s: 't', ts: us(ev.t), pid: 1, tid, args: { g: ev.g, a: ev.a } });
      }
    }
  }
  return { traceEvents: events, displayTimeUnit: 'ms' };
}
