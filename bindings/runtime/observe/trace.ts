// The event trace: each M records what it does into its own ring of 8-byte slots in shared
// memory (so recording takes no lock and no message, and the main thread can read every ring at
// any time); `sched.trace()` turns the rings into Chrome Trace Event JSON that opens in Perfetto
// (ui.perfetto.dev) or chrome://tracing: one track per M, tasks as slices, steals as flow arrows
// from the victim's thread to the thief's.
//
// A slot is two u32 words; the low 4 bits of the first are its tag (the tags: TR_* in
// assembly/shared/layout.ts):
//
//   start    [EV_START | g << 4,  fn | P << 24]  written by the core's execute (assembly/trace.ts)
//   spawn    [EV_SPAWN | g << 4,  parent g]      written by the core's newproc
//   steal    [EV_STEAL | vm << 4, P << 16 | v]   written by the core's findRunnable, then an arg
//                                                slot (the Gs taken); the start of the first
//                                                stolen G follows
//   overflow [EV_OVERFLOW,        P]             written by the core's runqPutSlow, then an arg
//                                                slot (1)
//   park     [EV_PARK,            P]             written here, each followed by a time slot
//   unpark   [EV_UNPARK,          P]
//   settle   [EV_SETTLE | g << 4, 1 ok, 0 failed]
//   arg      [TAG_ARG,            b]             the b of the event before it
//   time     [TAG_TIME | hi << 4, lo]            the event before it happened hi * 2^32 + lo ns
//                                                after the ring's base time (a writer starts
//                                                with one: the time its first events count from)
//
// The ring's block starts with the base time (f64, ms since the epoch); the slots start at the
// next cache line (traceSlot0), and a line of padding follows them, so no other thread's data
// shares a line with them. A ring for `cap` events has 2 * cap slots: an untimed event takes
// one, a timed one two, a steal or an overflow two (and a start follows each steal). The layout
// (TR_*: every tag, the core's and these) is shared with the core, which writes the events it
// makes happen into the same ring, on the same thread.
//
// The core's events carry no time: the export spreads each run of them evenly between the time
// slots around it (see TraceWriter); after a steal the core asks for a clock read at the next
// look (MR_TRACE_NEXT 0), so a steal is dated to within a task of the start it leads to. A task's slice ends at its M's next start, steal or
// park (spawns, overflows and settles happen inside it). The main thread's monitor keeps its own
// list (lent and retired spare Ps, replaced threads), exported as track 0, which is always there.
//
// MR_TRACE_POS counts the slots written. Its owner is the M's thread: it has two writers there,
// this writer (put, stamp) and the core's tracePut (assembly/trace.ts and its twin), and they
// never interleave (the core writes inside a core call, this writer between calls), so both use
// plain loads and stores. No other thread reads it: MR_TRACE_PUB publishes it with each time
// slot (stamp's Atomics.store, paired with readRing's Atomics.load), so a reader sees the events
// up to the last clock read (all of them once the work is done: every M writes a time slot when
// it parks). The main thread zeroes it in allocTraceRings, before the M's thread starts.
//
// Cost, per fine-grained event: two word stores in the core, and one clock read per run of
// events spanning 16 us or more; the runtime looks at the count once per task. bench/trace-cost.mjs
// measures the whole on fibc(27) on 2 Ps (about 1.7 events per task, a task every 0.2 us on each
// P).

import {
  LINE, MR_TRACE_BUF, MR_TRACE_CAP, MR_TRACE_NEXT, MR_TRACE_POS,
  MR_TRACE_PUB, TR_EV_OVERFLOW, TR_EV_PARK, TR_EV_SETTLE, TR_EV_SPAWN, TR_EV_START, TR_EV_STEAL,
  TR_EV_UNPARK, TR_FN_MASK, TR_SLOT, TR_SLOTS_PER_EVENT, TR_TAG_ARG, TR_TAG_MASK, TR_TAG_TIME,
} from '../../../assembly/shared/layout.js';
import type { Views } from '../memory/values.js';
import { traceSlot0 as ringSlots } from '../../core/index.js';
import { reserveError } from '../base/errors.js';
import { mAddr } from '../memory/mblock.js';

// The event kinds by their short names (the tags are the layout's TR_*).
export const EV_START = TR_EV_START; // g started (a = P, b = task id): written by the core
export const EV_SPAWN = TR_EV_SPAWN; // g spawned (a = parent g): written by the core
export const EV_STEAL = TR_EV_STEAL; // this M's P took b Gs from P a-1's ring (g = victim's M + 1): written by the core
export const EV_PARK = TR_EV_PARK; // this M dropped its P (a = P) and went to sleep
export const EV_UNPARK = TR_EV_UNPARK; // this M woke holding P a
export const EV_SETTLE = TR_EV_SETTLE; // async g settled on this M (a = 1 ok, 0 failed)
export const EV_OVERFLOW = TR_EV_OVERFLOW; // a spawn overflowed P a's ring (b = 1): half of it moved to the global queue; written by the core

const EVENT_NAMES = ['', 'start', 'spawn', 'steal', 'park', 'unpark', 'settle', 'overflow'];

/** An event the main thread's monitor records (DESIGN.md "sysmon and handoff"). */
export interface MonitorEvent { t: number; name: 'handoff' | 'retire' | 'giveback' | 'restart' | 'startm' | 'idle exit'; args: Record<string, number> }

const TAG_ARG = TR_TAG_ARG;
const TAG_TIME = TR_TAG_TIME;
/** Bytes per slot; slots per event of capacity; a start's task id is kept to its low 24 bits
 *  (the P takes the top 8: MAX_PROCS is 256). See the file comment. */
const SLOT = TR_SLOT;
const SLOTS_PER_EVENT = TR_SLOTS_PER_EVENT;
const FN_MASK = TR_FN_MASK;
const TWO_32 = 4294967296;
/** The slot count drops by this much (a multiple of any ring's size) before it leaves V8's small
 *  integers (2^30). */
const POS_WRAP = 1 << 29;


/** Clock for trace events: ms since the epoch, comparable across threads. */
const origin = performance.timeOrigin;
export function traceClock(): number {
  return origin + performance.now();
}

/** Most untimed events between two clock reads (and at most a quarter of the ring, so every
 *  full ring holds time slots). */
const CLOCK_EVERY_MAX = 256;
/** When the events between two clock reads spanned less than FINE_US microseconds, read the
 *  clock half as often; when they spanned more than COARSE_US, four times as often. */
const FINE_US = 16;
const COARSE_US = 128;

/**
 * Writes one M's events beside the core, which writes the task starts and spawns into the same
 * ring on the same thread (assembly/trace.ts). Owner M only.
 *
 * A clock read costs more than ten events' stores (40 ns in a loop, more between tasks), so task
 * starts and spawns are untimed, and a time slot follows every timed event (a steal, a park)
 * and, once `every` slots have been written since the last one, the next look between two tasks
 * (`tick`). `every`, a power of two, adapts to the span of the events between
 * two reads: it doubles (up to CLOCK_EVERY_MAX) while that span is under FINE_US microseconds
 * and drops by 4x (to 1) while it is over COARSE_US. So fine-grained work is placed to within a
 * run of 16 to 32 us at one clock read per run (well under 1% of the work), and tasks of 16 us
 * or more get exact start times. A task much longer than its neighbours in one run between reads
 * is drawn as long as they are: the run's time is spread evenly.
 *
 * The slot count lives in the M's block (MR_TRACE_POS), where the core bumps it too. `tick` is
 * inlined into the scheduler's hottest paths, so it stays short, leaving the rare work (clock
 * reads, publishing the count, steals) to methods of their own.
 */
export class TraceWriter {
  private readonly views: Views;
  /** The views' arrays when the writer was made: the ring and the M and P blocks it touches
   *  were allocated before, so a later growth of the memory never moves them out of these. */
  private readonly u32: Uint32Array;
  private readonly f64: Float64Array;
  /** Word index of slot 0; slots - 1. */
  private readonly base: number;
  private readonly mask: number;
  /** Word indexes of MR_TRACE_POS (slots written), MR_TRACE_PUB (slots published) and
   *  MR_TRACE_NEXT (read the clock when the count reaches it: the count at the last read +
   *  `every`, a power of two adapted by `readClock`; the core stores 0 after a steal). */
  private readonly posIdx: number;
  private readonly pubIdx: number;
  private readonly nextIdx: number;
  private readonly maxEvery: number;
  /** The ring's base time (ms since the epoch). */
  private readonly t0: number;
  private readonly slots: number;
  private lastTime: number;
  private every = 1;

  constructor(views: Views, mAddr: number) {
    const buf = views.u32[(mAddr + MR_TRACE_BUF) >>> 2];
    const slots = views.u32[(mAddr + MR_TRACE_CAP) >>> 2] * SLOTS_PER_EVENT;
    if (ringSlots(buf) + slots * SLOT > views.end) views.refresh();
    this.views = views;
    this.u32 = views.u32;
    this.f64 = views.f64;
    this.base = ringSlots(buf) >>> 2;
    this.mask = slots - 1;
    this.slots = slots;
    this.posIdx = (mAddr + MR_TRACE_POS) >>> 2;
    this.pubIdx = (mAddr + MR_TRACE_PUB) >>> 2;
    this.nextIdx = (mAddr + MR_TRACE_NEXT) >>> 2;
    this.maxEvery = Math.max(1, Math.min(CLOCK_EVERY_MAX, slots >>> 2));
    this.lastTime = traceClock();
    // A worker that replaces a crashed one continues its M's ring, and its base time.
    if (this.u32[this.posIdx] === 0) this.f64[buf >>> 3] = this.lastTime;
    this.t0 = this.f64[buf >>> 3];
    this.stamp(this.lastTime); // the time the first untimed events start from
  }

  /** A look between two tasks: reads the clock if the events the core wrote (task starts,
   *  spawns) have brought the slot count to the next read. Spawns are not looked at one by
   *  one (that cost 2% of fibc(27)): a task's spawns are dated by the reads around the task. */
  tick(): void {
    const u = this.u32;
    if (u[this.posIdx] >= u[this.nextIdx]) this.readClock();
  }

  /** An event (kind 3 to 7) at a clock time read by the caller. */
  emit(time: number, kind: number, g: number, a: number, b: number): void {
    this.put(kind | (g << 4), a);
    if (b !== 0) this.put(TAG_ARG, b);
    this.stamp(time);
  }

  private put(w0: number, w1: number): void {
    const u = this.u32;
    const pos = u[this.posIdx]; // plain: MR_TRACE_POS's other writer is the core's tracePut, on this thread (file comment)
    const w = this.base + ((pos & this.mask) << 1);
    u[w] = w0;
    u[w + 1] = w1;
    u[this.posIdx] = pos + 1;
  }

  /** The slot count reached the next read: reads the clock, adapts `every` and writes the time
   *  slot. */
  private readClock(): void {
    const now = traceClock();
    const us = (now - this.lastTime) * 1000;
    if (us < FINE_US) { if (this.every < this.maxEvery) this.every <<= 1; }
    else if (us > COARSE_US) this.every = this.every > 4 ? this.every >> 2 : 1; // a GC pause does not undo it all
    this.stamp(now);
  }

  /**
   * Writes a time slot dating the event slot before it, and publishes the slot count (only
   * here, once per run of events: a reader sees the events up to the last time slot, all of them
   * once the work is done since every M writes one when it parks). The store releases the slots
   * to the reader's Atomics.load.
   */
  private stamp(now: number): void {
    const ns = Math.max(0, Math.round((now - this.t0) * 1e6));
    const hi = Math.floor(ns / TWO_32);
    this.put(TAG_TIME | (hi << 4), ns - hi * TWO_32);
    // Keep the count a small integer for the JIT: dropping a multiple of the ring's size moves
    // no slot, and the count stays at least a full ring, so a reader still reads the whole ring.
    let pos = this.u32[this.posIdx];
    if (pos >= POS_WRAP + this.slots) {
      pos -= POS_WRAP;
      this.u32[this.posIdx] = pos;
    }
    this.u32[this.nextIdx] = pos + this.every; // plain: the M's own word
    Atomics.store(this.u32, this.pubIdx, pos); // publish: pairs with readRing's load of MR_TRACE_PUB
    this.lastTime = now;
  }
}

/** Allocates a ring for at least `cap` events (a power of two) for each of `nms` Ms. Main
 *  thread, at start. */
export function allocTraceRings(views: Views, heap: { heapAlloc(n: number): number }, nms: number, cap: number): void {
  for (let m = 1; m < nms; m++) {
    const buf = heap.heapAlloc(cap * SLOTS_PER_EVENT * SLOT + 3 * LINE); // the base time, alignment, padding
    if (buf === 0) throw reserveError('trace', `${cap} events per thread (the ring of M${m})`);
    views.refresh();
    const b = mAddr(views, m);
    views.u32[(b + MR_TRACE_BUF) >>> 2] = buf;
    views.u32[(b + MR_TRACE_CAP) >>> 2] = cap;
    views.u32[(b + MR_TRACE_POS) >>> 2] = 0;
    views.u32[(b + MR_TRACE_PUB) >>> 2] = 0;
  }
}

interface TraceEvent { t: number; kind: number; g: number; a: number; b: number }

/** One M's ring as events in order, each with its time (read or interpolated). */
function readRing(views: Views, mAddr: number): TraceEvent[] {
  const buf = views.u32[(mAddr + MR_TRACE_BUF) >>> 2];
  const slots = views.u32[(mAddr + MR_TRACE_CAP) >>> 2] * SLOTS_PER_EVENT;
  const pos = Atomics.load(views.u32, (mAddr + MR_TRACE_PUB) >>> 2); // pairs with the owner's publishing store (TraceWriter, the core's tracePut)
  const list: TraceEvent[] = [];
  if (buf === 0) return list;
  const u32 = views.u32;
  const t0 = views.f64[buf >>> 3];
  const base = ringSlots(buf) >>> 2;
  // Time slots: the index in `list` of the event each dates (-1: before the first), and the time.
  const at: number[] = [];
  const times: number[] = [];
  for (let i = Math.max(0, pos - slots); i < pos; i++) {
    const w = base + ((i & (slots - 1)) << 1);
    const w0 = u32[w];
    const w1 = u32[w + 1];
    const tag = w0 & TR_TAG_MASK;
    if (tag === TAG_TIME) {
      at.push(list.length - 1);
      times.push(t0 + ((w0 >>> 4) * TWO_32 + w1) / 1e6);
    } else if (tag === TAG_ARG) {
      if (list.length !== 0) list[list.length - 1].b = w1;
    } else if (tag === EV_START) {
      list.push({ t: NaN, kind: tag, g: w0 >>> 4, a: w1 >>> 24, b: w1 & FN_MASK });
    } else {
      list.push({ t: NaN, kind: tag, g: w0 >>> 4, a: w1, b: 0 });
    }
  }
  // Events between two time slots share the interval evenly: with the slots dating events i0
  // and i1 at times ta and tb, event i0 + k gets ta + k * (tb - ta) / (i1 - i0). A steal takes
  // tb instead: the core asked for the read that follows it (MR_TRACE_NEXT), at the next look
  // after findRunnable, so tb is its time; spread, it would cut the task before it short.
  let prevAt = -1;
  let prevT = NaN;
  for (let j = 0; j < at.length; j++) {
    const i1 = at[j];
    const t1 = times[j];
    if (Number.isNaN(prevT)) {
      for (let i = 0; i <= i1; i++) list[i].t = t1; // the ring wrapped: the oldest get the first time
    } else {
      const step = (t1 - prevT) / (i1 - prevAt);
      for (let i = prevAt + 1; i <= i1; i++) list[i].t = list[i].kind === EV_STEAL ? t1 : prevT + step * (i - prevAt);
    }
    prevAt = i1;
    prevT = t1;
  }
  // The count is published with a time slot, so none should follow the last one; if some do,
  // they get its time.
  for (let i = prevAt + 1; i < list.length; i++) list[i].t = prevT;
  return list;
}

interface ChromeEvent {
  name: string; ph: string; ts: number; pid: number; tid: number;
  dur?: number; id?: number; cat?: string; bp?: string; s?: string; args?: Record<string, unknown>;
}

/** Reads every M's ring into Chrome Trace Event JSON. Any thread (the main thread in practice). */
export function exportTrace(views: Views, nms: number, taskNames: readonly string[], monitor: readonly MonitorEvent[] = []): { traceEvents: ChromeEvent[]; displayTimeUnit: string } {
  views.refresh();
  const events: ChromeEvent[] = [];
  let t0 = Infinity;
  const perM: TraceEvent[][] = [];
  for (let m = 1; m < nms; m++) {
    const list = readRing(views, mAddr(views, m));
    if (list.length !== 0 && list[0].t < t0) t0 = list[0].t; // each ring's times only grow (NaN: none)
    perM.push(list);
  }
  if (t0 === Infinity) t0 = monitor.length !== 0 ? monitor[0].t : 0;
  for (const list of perM) {
    // Every ring a writer has filled holds time slots (see maxEvery); should one hold none, its
    // events get the earliest time.
    if (list.length !== 0 && Number.isNaN(list[0].t)) for (const ev of list) ev.t = t0;
  }
  const us = (t: number): number => Math.round((t - t0) * 1000 * 1000) / 1000;
  events.push({ name: 'process_name', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'stealwork' } });
  // Track 0 is named even when the monitor did nothing: whether it lends a spare depends on how
  // the OS schedules the threads (one descheduled for handoffAfterMs while work waits looks
  // stuck), so the tracks are a function of the options alone: 0, then 1 .. nms - 1.
  events.push({ name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid: 0, args: { name: 'monitor (main thread)' } });
  for (const e of monitor) events.push({ name: e.name, cat: 'monitor', ph: 'i', s: 't', ts: Math.max(0, us(e.t)), pid: 1, tid: 0, args: e.args });
  // Task slices first: a task runs from its start to the M's next scheduling event (the next
  // start, steal or park); spawns and settles happen inside it and do not end it.
  const slices: Array<Array<{ ts: number; dur: number; i: number }>> = perM.map((list) => {
    const out: Array<{ ts: number; dur: number; i: number }> = [];
    let open = -1;
    for (let i = 0; i <= list.length; i++) {
      const ev = i < list.length ? list[i] : null;
      const ends = ev === null || ev.kind === EV_START || ev.kind === EV_STEAL || ev.kind === EV_PARK;
      if (ends && open >= 0) {
        const a = us(list[open].t);
        const b = ev === null ? a : us(ev.t);
        out.push({ ts: a, dur: Math.max(0, Math.round((b - a) * 1000) / 1000), i: open });
        open = -1;
      }
      if (ev !== null && ev.kind === EV_START) open = i;
    }
    return out;
  });
  /** The slice of M mi (0-based) running at time ts: the last one started at or before it. */
  const sliceAt = (mi: number, ts: number): { ts: number; dur: number; i: number } | null => {
    const xs = slices[mi];
    let lo = 0;
    let hi = xs.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (xs[mid].ts <= ts) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found < 0 ? null : xs[found];
  };
  let flowId = 1;
  for (let mi = 0; mi < perM.length; mi++) {
    const tid = mi + 1;
    events.push({ name: 'thread_name', ph: 'M', ts: 0, pid: 1, tid, args: { name: `M${tid}` } });
    const list = perM[mi];
    for (const sl of slices[mi]) {
      const ev = list[sl.i];
      events.push({ name: taskNames[ev.b] ?? `task ${ev.b}`, cat: 'task', ph: 'X', ts: sl.ts, dur: sl.dur, pid: 1, tid, args: { g: ev.g, P: ev.a } });
    }
    for (let i = 0; i < list.length; i++) {
      const ev = list[i];
      const next = i + 1 < list.length ? list[i + 1].t : ev.t;
      switch (ev.kind) {
        case EV_START:
          break; // the slices above
        case EV_STEAL: {
          const victimM = ev.g - 1;
          events.push({ name: 'steal', cat: 'steal', ph: 'i', s: 't', ts: us(ev.t), pid: 1, tid, args: { thiefP: ev.a >>> 16, victimP: (ev.a & 0xffff) - 1, count: ev.b, victimM } });
          // The flow arrow goes from the victim's task running at the steal to the thief's first
          // stolen task. Both ends sit exactly on a task slice (same ts and cat), which is how
          // Perfetto and the DevTools Performance panel bind a flow to a slice.
          let j = i + 1;
          while (j < list.length && list[j].kind !== EV_START && list[j].kind !== EV_PARK) j++;
          const from = victimM > 0 && victimM <= perM.length ? sliceAt(victimM - 1, us(ev.t)) : null;
          if (from !== null && j < list.length && list[j].kind === EV_START) {
            const id = flowId++;
            events.push({ name: 'steal', cat: 'task', ph: 's', id, ts: from.ts, pid: 1, tid: victimM });
            events.push({ name: 'steal', cat: 'task', ph: 'f', bp: 'e', id, ts: us(list[j].t), pid: 1, tid });
          }
          break;
        }
        case EV_OVERFLOW:
          events.push({ name: 'overflow', cat: 'overflow', ph: 'i', s: 't', ts: us(ev.t), pid: 1, tid, args: { P: ev.a, count: ev.b } });
          break;
        case EV_PARK:
          events.push({ name: 'parked', cat: 'park', ph: 'X', ts: us(ev.t), dur: Math.max(0, Math.round((us(next) - us(ev.t)) * 1000) / 1000), pid: 1, tid, args: { P: ev.a } });
          break;
        default:
          events.push({ name: EVENT_NAMES[ev.kind] ?? `event ${ev.kind}`, cat: EVENT_NAMES[ev.kind] ?? 'event', ph: 'i', s: 't', ts: us(ev.t), pid: 1, tid, args: { g: ev.g, a: ev.a } });
      }
    }
  }
  // Metadata first, then everything by time (a stable sort: per thread, the order of the ring).
  const meta = events.filter((e) => e.ph === 'M');
  const timed = events.filter((e) => e.ph !== 'M').sort((x, y) => x.ts - y.ts);
  return { traceEvents: meta.concat(timed), displayTimeUnit: 'ms' };
}
