// The local run queue of a P (docs/DESIGN.md, "Local run queue"; Go's runqput, runqputslow,
// runqget, runqgrab, runqsteal, runqempty).
//
// A 256-slot ring with free-running u32 counters: slot i is ring[i & RUNQ_MASK]. One producer,
// the owner, writes slots and `tail`; consumers (the owner and thieves) claim entries by CAS on
// `head`. `runnext` is one slot before the ring: the owner sets it to a G, anyone CASes it to 0.
// At every instant 0 <= tail - head <= RUNQ_SIZE.
//
// Ring slots are read and written with plain accesses: only the owner writes them, the tail
// store publishes a written slot, and a consumer whose copy raced with a rewrite of the slot
// fails its head CAS and discards the copy.

import {
  PC_OVERFLOWS, PC_STEAL_OPS, PC_STOLEN, P_COUNTERS, P_HEAD, P_RUNNEXT, P_RUNNING, P_RUNQ,
  P_STATUS, P_STEAL_FROM_OPS, P_STOLEN_FROM, P_TAIL, RUNQ_HALF, RUNQ_MASK, RUNQ_SIZE,
  G_SCHEDLINK, P_STEAL_VICTIM, P_STEAL_N, P_M, MR_TRACE_BUF, P_OPS, OP_STEAL_TRIES,
} from './shared/layout';
import { casCount, counterAdd, mAddr, pAddr } from './mem';
import { traceOverflow } from './trace';
import { gAddr } from './gtable';
import { globrunqPutBatch } from './globrunq';
import { backoff } from './thread';
import { beginAbort } from './abort';

/** Go's usleep(3) before stealing a running victim's runnext, in nanoseconds. */
const RUNNEXT_BACKOFF_NS: i64 = 3000;

/** Address of the ring slot for counter value i in P block pp (use with the P_RUNQ immediate). Any thread. */
@inline function slot(pp: usize, i: u32): usize {
  return pp + (<usize>(i & RUNQ_MASK) << 2);
}

/**
 * Puts g on P p's ring, or in runnext when `next` != 0 (the old runnext G, if any, is kicked to
 * the ring's tail). A full ring moves half of itself and g to the global queue. Owner P only.
 */
export function runqPut(p: i32, g: u32, next: i32): void {
  let pp = pAddr(p);
  if (next != 0) {
    let old: u32;
    do {
      old = atomic.load<u32>(pp, P_RUNNEXT); // pairs with the runnext CAS in runqGet/runqGrab
    } while (!casCount(pp, atomic.cmpxchg<u32>(pp, old, g, P_RUNNEXT) == old)); // pairs with the runnext CAS in runqGet/runqGrab
    if (old == 0) return;
    g = old; // kick the old runnext to the tail of the ring
  }
  while (true) {
    let h = atomic.load<u32>(pp, P_HEAD); // pairs with the head CAS in runqGet/runqGrab/runqPutSlow
    let t = load<u32>(pp, P_TAIL); // plain: only the owner writes tail
    if (t - h < <u32>RUNQ_SIZE) {
      store<u32>(slot(pp, t), g, P_RUNQ); // plain: published by the tail store below
      atomic.store<u32>(pp, t + 1, P_TAIL); // publish: pairs with the tail load in runqGrab
      return;
    }
    if (runqPutSlow(p, g, h, t)) return;
    // a consumer moved head: the ring has room again
  }
}

/**
 * Moves the RUNQ_HALF oldest Gs of P p's full ring, then g, to the tail of the global queue as
 * one batch of RUNQ_HALF + 1. False when a consumer moved head from h first. Owner P only.
 */
export function runqPutSlow(p: i32, g: u32, h: u32, t: u32): bool {
  let pp = pAddr(p);
  if (t - h != <u32>RUNQ_SIZE) {
    beginAbort();
    throw new Error('runqPutSlow: queue is not full p=' + p.toString() + ' h=' + h.toString() + ' t=' + t.toString());
  }
  if (!casCount(pp, atomic.cmpxchg<u32>(pp, h, h + RUNQ_HALF, P_HEAD) == h)) { // claim: pairs with the head CAS in runqGet/runqGrab
    return false;
  }
  // The claimed slots still hold their ids: only this thread (the owner) writes ring slots.
  // Linking after the claim, not before, never touches a G that a consumer took meanwhile.
  let first = load<u32>(slot(pp, h), P_RUNQ); // plain: owner's own ring
  let prev = first;
  for (let i: u32 = 1; i < <u32>RUNQ_HALF; i++) {
    let cur = load<u32>(slot(pp, h + i), P_RUNQ); // plain: owner's own ring
    store<u32>(gAddr(prev), cur, G_SCHEDLINK); // plain: the batch is ours until sched.lock publishes it
    prev = cur;
  }
  store<u32>(gAddr(prev), g, G_SCHEDLINK); // plain: as above
  globrunqPutBatch(first, g, RUNQ_HALF + 1);
  counterAdd(pp + (P_COUNTERS + PC_OVERFLOWS), 1);
  let owner = atomic.load<u32>(pp, P_M); // the owner M + 1 (0: none yet): pairs with wakep/acquireP's store
  if (owner != 0) {
    let mp = mAddr(<i32>owner - 1);
    let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
    if (ring != 0) traceOverflow(mp, ring, p);
  }
  return true;
}

/** Takes P pp's runnext G; 0 when empty or a thief took it first (no retry). Owner P only. */
@inline export function runqGetNext(pp: usize): u32 {
  let next = atomic.load<u32>(pp, P_RUNNEXT); // pairs with the runnext CAS in runqPut/runqGrab
  if (next != 0 && casCount(pp, atomic.cmpxchg<u32>(pp, next, 0, P_RUNNEXT) == next)) { // pairs with the runnext CAS in runqGrab
    return next;
  }
  return 0;
}

/** Takes the oldest G of P pp's ring; 0 when empty. Owner P only. */
export function runqGetRing(pp: usize): u32 {
  while (true) {
    let h = atomic.load<u32>(pp, P_HEAD); // pairs with the head CAS in runqGrab
    let t = load<u32>(pp, P_TAIL); // plain: only the owner writes tail
    if (t == h) return 0;
    let g = load<u32>(slot(pp, h), P_RUNQ); // plain: owner's own ring
    if (casCount(pp, atomic.cmpxchg<u32>(pp, h, h + 1, P_HEAD) == h)) return g; // claim: pairs with the head CAS in runqGrab
  }
}

/** runnext first, then the ring's head; 0 when P p has no G. Owner P only. */
export function runqGet(p: i32): u32 {
  let pp = pAddr(p);
  let g = runqGetNext(pp);
  return g != 0 ? g : runqGetRing(pp);
}

/**
 * Copies ceil(half) of victim vp's ring into thief pp's ring past its unpublished tail and
 * claims them; with `stealRunNext` and an empty ring, takes vp's runnext instead. Returns how
 * many Gs were grabbed. Owner of pp only (the thief).
 */
function runqGrab(pp: usize, vp: usize, stealRunNext: bool): u32 {
  let tt = load<u32>(pp, P_TAIL); // plain: the thief owns pp
  while (true) {
    let h = atomic.load<u32>(vp, P_HEAD); // pairs with the head CAS of other consumers
    let t = atomic.load<u32>(vp, P_TAIL); // pairs with the tail store in runqPut
    let n = t - h;
    n = n - (n >> 1); // ceil(half)
    if (n == 0) {
      if (stealRunNext) {
        let next = atomic.load<u32>(vp, P_RUNNEXT); // pairs with the runnext CAS in runqPut
        if (next != 0) {
          // The victim probably just readied this G and is about to run it: let it.
          if (atomic.load<u32>(vp, P_STATUS) == P_RUNNING) backoff(RUNNEXT_BACKOFF_NS); // pairs with the status stores in acquireP/stopM
          if (!casCount(pp, atomic.cmpxchg<u32>(vp, next, 0, P_RUNNEXT) == next)) continue; // pairs with the runnext CAS in runqPut/runqGet
          store<u32>(slot(pp, tt), next, P_RUNQ); // plain: published by runqSteal's tail store
          return 1;
        }
      }
      return 0;
    }
    if (n > <u32>RUNQ_HALF) continue; // h and t were read inconsistently
    for (let i: u32 = 0; i < n; i++) {
      let g = load<u32>(slot(vp, h + i), P_RUNQ); // plain: a racing rewrite fails the CAS below
      store<u32>(slot(pp, tt + i), g, P_RUNQ); // plain: published by runqSteal's tail store
    }
    if (casCount(pp, atomic.cmpxchg<u32>(vp, h, h + n, P_HEAD) == h)) return n; // claim: pairs with the head CAS in runqGet/runqPutSlow
  }
}

/**
 * Steals ceil(half) of P victim's ring (or its runnext, see runqGrab) into P p's ring. Returns
 * the last grabbed G for p to run now and publishes the others; 0 when nothing was grabbed.
 * Owner of p only.
 */
export function runqSteal(p: i32, victim: i32, stealRunNext: i32): u32 {
  let pp = pAddr(p);
  let vp = pAddr(victim);
  counterAdd(pp + (P_OPS + OP_STEAL_TRIES), 1);
  let t = load<u32>(pp, P_TAIL); // plain: only the owner writes tail
  let n = runqGrab(pp, vp, stealRunNext != 0);
  if (n == 0) return 0;
  counterAdd(pp + (P_COUNTERS + PC_STEAL_OPS), 1);
  counterAdd(pp + (P_COUNTERS + PC_STOLEN), <f64>n);
  atomic.add<u32>(vp, n, P_STOLEN_FROM); // thief-written counter: pairs with schedtrace's load
  atomic.add<u32>(vp, 1, P_STEAL_FROM_OPS); // thief-written counter: pairs with schedtrace's load
  store<u32>(pp, <u32>victim + 1, P_STEAL_VICTIM); // plain: owner's own word, read by its trace
  store<u32>(pp, n, P_STEAL_N); // plain: as above
  n--;
  let g = load<u32>(slot(pp, t + n), P_RUNQ); // plain: own ring, just written by runqGrab
  if (n == 0) return g;
  let h = atomic.load<u32>(pp, P_HEAD); // pairs with the head CAS of thieves on p
  if (t - h + n >= <u32>RUNQ_SIZE) {
    beginAbort();
    throw new Error('runqSteal: overflow p=' + p.toString() + ' t=' + t.toString() + ' h=' + h.toString() + ' n=' + n.toString());
  }
  atomic.store<u32>(pp, t + n, P_TAIL); // publish: pairs with the tail load in runqGrab
  return g;
}

/**
 * Whether P p has no G in its ring and none in runnext. Never reports empty while a G is
 * queued: re-reading tail catches runqPut(next) kicking runnext into the ring while runqGet
 * empties runnext. Any thread.
 */
export function runqEmpty(p: i32): i32 {
  let pp = pAddr(p);
  while (true) {
    let h = atomic.load<u32>(pp, P_HEAD); // pairs with the head CAS of consumers
    let t = atomic.load<u32>(pp, P_TAIL); // pairs with the tail store in runqPut
    let next = atomic.load<u32>(pp, P_RUNNEXT); // pairs with the runnext CAS in runqPut/runqGet
    if (atomic.load<u32>(pp, P_TAIL) == t) { // pairs with the tail store in runqPut
      return <i32>(h == t && next == 0);
    }
  }
}

/** tail - head of P p's ring clamped to [0, RUNQ_SIZE]; runnext is not counted. Any thread. */
export function runqLen(p: i32): u32 {
  let pp = pAddr(p);
  let t = atomic.load<u32>(pp, P_TAIL); // pairs with the tail store in runqPut
  let h = atomic.load<u32>(pp, P_HEAD); // pairs with the head CAS of consumers
  let n = <i32>(t - h);
  if (n < 0) return 0;
  return n > RUNQ_SIZE ? <u32>RUNQ_SIZE : <u32>n;
}
