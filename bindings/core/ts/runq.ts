// The local run queue: Go's runqput, runqputslow, runqget, runqgrab, runqsteal, runqempty
// (docs/DESIGN.md, "Local run queue").
//
// A P's ring holds RUNQ_SIZE G ids; `head` and `tail` are free-running u32 counters, slot i is
// ring[i & RUNQ_MASK], and 0 <= tail - head <= RUNQ_SIZE (mod 2^32) at every instant. Only the
// owner writes `tail` and the ring slots; consumers (the owner and thieves) claim slots by CAS
// on `head`. `runnext` is set to a G only by the owner; thieves CAS it to 0.
//
// The i32 view holds the counters as signed words: differences are taken `>>> 0` (mod 2^32)
// and sums stored `| 0`, so the wrap at 2^32 is exact.

import {
  P_HEAD, P_RUNNEXT, P_RUNNING, P_RUNQ, P_STATUS, P_STEAL_FROM_OPS, P_STOLEN_FROM, P_STEAL_VICTIM, P_STEAL_N,
  P_TAIL, PC_OVERFLOWS, PC_STEAL_OPS, PC_STOLEN, RUNQ_HALF, RUNQ_MASK, RUNQ_SIZE, S_DUMMY, P_M,
  MR_TRACE_BUF, OP_STEAL_TRIES,
} from '../../../assembly/shared/layout.js';
import { globrunqPutBatch } from './globrunq.js';
import { gSetLink } from './gtable.js';
import { casCount, mWord, pCounters, pOps, pWord, type Mem } from './mem.js';
import { traceOverflow } from './trace.js';

const TAIL = P_TAIL >> 2;
const HEAD = P_HEAD >> 2;
const NEXT = P_RUNNEXT >> 2;
const RING = P_RUNQ >> 2;
const STATUS = P_STATUS >> 2;
const STOLEN_FROM = P_STOLEN_FROM >> 2;
const STEAL_VICTIM = P_STEAL_VICTIM >> 2;
const STEAL_N = P_STEAL_N >> 2;
const STEAL_FROM_OPS = P_STEAL_FROM_OPS >> 2;
const OVERFLOWS = PC_OVERFLOWS >> 3;
const STEAL_OPS = PC_STEAL_OPS >> 3;
const STOLEN = PC_STOLEN >> 3;
const STEAL_TRIES = OP_STEAL_TRIES >> 3;
const S_DUMMY_W = S_DUMMY >> 2;
const BACKOFF_MS = 0.003; // Go's usleep(3) in runqgrab
const P_M_W = P_M >> 2;
const TRACE_BUF = MR_TRACE_BUF >> 2;

/** Puts g on P p's ring; with next != 0, g goes to runnext and the G it displaces is kicked to
 *  the ring's tail. A full ring moves half of itself and g to the global queue. Owner P only. */
export function runqPut(m: Mem, p: number, g: number, next: number): void {
  const i32 = m.i32;
  const w = pWord(p);
  if (next !== 0) {
    // Swap runnext to g (DESIGN's CAS loop on the old value, as one exchange).
    g = Atomics.exchange(i32, w + NEXT, g); // pairs with the runnext CAS in runqGet/runqGrab
    casCount(m, p, true); // counted as the Wasm core's CAS loop (never fails here)
    if (g === 0) return;
  }
  for (;;) {
    const h = Atomics.load(i32, w + HEAD); // pairs with the head CAS of consumers
    const t = i32[w + TAIL]; // plain: only the owner writes tail
    if (((t - h) >>> 0) < RUNQ_SIZE) {
      i32[w + RING + (t & RUNQ_MASK)] = g; // plain: published by the tail store below
      Atomics.store(i32, w + TAIL, (t + 1) | 0); // publish: pairs with the tail load in runqGrab
      return;
    }
    if (runqPutSlow(m, p, g, h)) return;
  }
}

/** The ring is full (tail - h == RUNQ_SIZE): move its RUNQ_HALF oldest Gs, then g, to the
 *  global queue as one batch of 129. False if a consumer moved head first (the caller retries).
 *  Owner P only. */
export function runqPutSlow(m: Mem, p: number, g: number, h: number): boolean {
  const i32 = m.i32;
  const w = pWord(p);
  if (!casCount(m, p, Atomics.compareExchange(i32, w + HEAD, h, (h + RUNQ_HALF) | 0) === h)) return false; // pairs with the head CAS of consumers
  // The claimed slots still hold what a consumer would have seen: only the owner (this thread)
  // writes the ring, so linking them after the CAS is the same as copying them before it, and
  // no G's schedlink is written unless it is really ours.
  const first = i32[w + RING + (h & RUNQ_MASK)]; // plain: owner-written slots
  let prev = first;
  for (let i = 1; i < RUNQ_HALF; i++) {
    const x = i32[w + RING + ((h + i) & RUNQ_MASK)]; // plain: owner-written slots
    gSetLink(m, prev, x);
    prev = x;
  }
  gSetLink(m, prev, g);
  globrunqPutBatch(m, first, g, RUNQ_HALF + 1);
  m.f64[pCounters(p) + OVERFLOWS] += 1; // plain: owner counter
  const owner = Atomics.load(m.i32, w + P_M_W); // the owner M + 1 (0: none yet): pairs with wakep/acquireP's store
  if (owner !== 0) {
    const mw = mWord(m, owner - 1);
    const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
    if (ring !== 0) traceOverflow(m, mw, ring >>> 0, p);
  }
  return true;
}

/** Takes a G from P p: runnext first (then m.inherit = 1: it inherits the time slice), then
 *  the ring's head; 0 when empty. Owner P only. */
export function runqGet(m: Mem, p: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  const n = Atomics.load(i32, w + NEXT); // pairs with the runnext CAS in runqGrab
  // No retry: a failed CAS only means a thief took it.
  if (n !== 0 && casCount(m, p, Atomics.compareExchange(i32, w + NEXT, n, 0) === n)) { // pairs with the runnext CAS in runqGrab
    m.inherit = 1;
    return n;
  }
  m.inherit = 0;
  let h = Atomics.load(i32, w + HEAD); // pairs with the head CAS in runqGrab
  for (;;) {
    const t = i32[w + TAIL]; // plain: only the owner writes tail
    if (t === h) return 0;
    const g = i32[w + RING + (h & RUNQ_MASK)]; // plain: owner-written slot, claimed by the CAS
    const was = Atomics.compareExchange(i32, w + HEAD, h, (h + 1) | 0); // pairs with the head CAS in runqGrab
    if (casCount(m, p, was === h)) return g;
    h = was; // a thief moved head: retry from where it left it
  }
}

/** The 3 us back-off before stealing a running victim's runnext (Go's usleep(3)): a timed wait
 *  on S_DUMMY (never notified) where this thread may block, else a spin on the clock.
 *  Any thread. */
function backoff(m: Mem): void {
  if (m.canBlock) {
    Atomics.wait(m.i32, S_DUMMY_W, 0, BACKOFF_MS); // times out: S_DUMMY is never notified
  } else {
    const until = performance.now() + BACKOFF_MS;
    while (performance.now() < until) { /* spin */ }
  }
}

/** Grabs ceil(half) of the victim's ring into P p's ring past p's (unpublished) tail; with
 *  stealRunNext and an empty ring, the victim's runnext instead. Returns how many were grabbed.
 *  Owner of p only. */
export function runqGrab(m: Mem, p: number, victim: number, stealRunNext: number): number {
  const i32 = m.i32;
  const tw = pWord(p);
  const vw = pWord(victim);
  const t0 = i32[tw + TAIL]; // plain: the thief owns its own tail
  for (;;) {
    const h = Atomics.load(i32, vw + HEAD); // pairs with the head CAS of other consumers
    const t = Atomics.load(i32, vw + TAIL); // acquire: pairs with the tail store in runqPut/runqSteal
    const d = (t - h) >>> 0;
    const n = d - (d >>> 1); // ceil(half), from the head (the oldest)
    if (n === 0) {
      if (stealRunNext === 0) return 0;
      const next = Atomics.load(i32, vw + NEXT); // pairs with the exchange in runqPut
      if (next === 0) return 0;
      // The victim probably just readied it and is about to run it: give it 3 us.
      if (Atomics.load(i32, vw + STATUS) === P_RUNNING) backoff(m); // pairs with the status stores in sched
      if (!casCount(m, p, Atomics.compareExchange(i32, vw + NEXT, next, 0) === next)) continue; // pairs with runqPut/runqGet
      i32[tw + RING + (t0 & RUNQ_MASK)] = next; // plain: published by runqSteal's tail store
      return 1;
    }
    if (n > RUNQ_HALF) continue; // h and t were read inconsistently
    for (let i = 0; i < n; i++) {
      // plain: victim slots published by its tail store, validated by the head CAS below;
      // own slots published by runqSteal's tail store (garbage until then)
      i32[tw + RING + ((t0 + i) & RUNQ_MASK)] = i32[vw + RING + ((h + i) & RUNQ_MASK)];
    }
    if (casCount(m, p, Atomics.compareExchange(i32, vw + HEAD, h, (h + n) | 0) === h)) return n; // pairs with the head CAS of other consumers
  }
}

/** Steals half of the victim's ring into P p's: returns the last grabbed G (to run now) and
 *  publishes the others on p's ring; 0 when nothing was stolen. Owner of p only. */
export function runqSteal(m: Mem, p: number, victim: number, stealRunNext: number): number {
  const i32 = m.i32;
  const tw = pWord(p);
  m.f64[pOps(p) + STEAL_TRIES] += 1; // plain: owner counter
  const t = i32[tw + TAIL]; // plain: the thief owns its own tail
  const stolen = runqGrab(m, p, victim, stealRunNext);
  if (stolen === 0) return 0;
  const c = pCounters(p);
  const f64 = m.f64;
  f64[c + STEAL_OPS] += 1; // plain: owner counters
  f64[c + STOLEN] += stolen;
  const vw = pWord(victim);
  Atomics.add(i32, vw + STOLEN_FROM, stolen); // thief-written counter: other thieves add too
  Atomics.add(i32, vw + STEAL_FROM_OPS, 1); // thief-written counter: other thieves add too
  i32[tw + STEAL_VICTIM] = victim + 1; // plain: owner's own word, read by its trace
  i32[tw + STEAL_N] = stolen; // plain: as above
  const n = stolen - 1;
  const g = i32[tw + RING + ((t + n) & RUNQ_MASK)]; // plain: written by runqGrab on this thread
  if (n === 0) return g;
  const h = Atomics.load(i32, tw + HEAD); // pairs with the head CAS of thieves on p
  if (((t - h) >>> 0) + n >= RUNQ_SIZE) {
    throw new Error(`runqSteal: overflow p=${p} t=${t >>> 0} h=${h >>> 0} n=${n}`);
  }
  Atomics.store(i32, tw + TAIL, (t + n) | 0); // publish: pairs with the tail load in runqGrab
  return g;
}

/** Does P p have nothing queued, ring or runnext? Never reports empty while a G is queued:
 *  re-reading tail catches a runnext kicked into the ring meanwhile. Any thread. */
export function runqEmpty(m: Mem, p: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  for (;;) {
    const h = Atomics.load(i32, w + HEAD); // pairs with the head CAS of consumers
    const t = Atomics.load(i32, w + TAIL); // pairs with the tail store in runqPut
    const n = Atomics.load(i32, w + NEXT); // pairs with the runnext exchange/CAS
    const t2 = Atomics.load(i32, w + TAIL); // pairs with the tail store in runqPut
    if (t === t2) return h === t && n === 0 ? 1 : 0;
  }
}

/** tail - head of P p's ring, clamped to [0, RUNQ_SIZE]; runnext not counted. Any thread. */
export function runqLen(m: Mem, p: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  const t = Atomics.load(i32, w + TAIL); // pairs with the tail store in runqPut
  const h = Atomics.load(i32, w + HEAD); // pairs with the head CAS of consumers
  const d = (t - h) | 0;
  return d < 0 ? 0 : d > RUNQ_SIZE ? RUNQ_SIZE : d;
}
