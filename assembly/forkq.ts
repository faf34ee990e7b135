// The fork deque of a P (docs/DESIGN.md, "Fork-join"): the Gs `ctx.fork` made, which their
// forker takes back newest first to run inline at `join()`, and thieves take oldest first.
//
// A Chase-Lev deque over a FORKQ_SIZE-slot ring with free-running u32 counters: slot i is
// forkq[i & FORKQ_MASK]. Only the owner writes `bottom` and the slots; thieves take one G each
// by CAS on `top`, and the owner CASes `top` too when it takes the last G. The owner's pop
// stores `bottom` and then loads `top` (the StoreLoad point; Wasm atomics are sequentially
// consistent), so an owner and a thief racing for the last G both see each other and the CAS
// decides. Unlike the run queue (Go's batch steal), a G leaves only by one CAS on `top` or by
// the owner's pop below every thief's reach, so every G is taken exactly once and no stale
// entry is ever left behind.

import {
  FORKQ_MASK, FORKQ_SIZE, P_COUNTERS, P_FORKQ, P_FORKQ_BOTTOM, P_FORKQ_TOP, PC_STEAL_OPS,
  PC_STOLEN, P_STEAL_FROM_OPS, P_STEAL_N, P_STEAL_VICTIM, P_STOLEN_FROM, P_OPS, OP_STEAL_TRIES,
} from './shared/layout';
import { casCount, counterAdd, pAddr } from './mem';

/** Address of the fork deque slot for counter value i in P block pp (use with the P_FORKQ immediate). Any thread. */
@inline function slot(pp: usize, i: u32): usize {
  return pp + (<usize>(i & FORKQ_MASK) << 2);
}

/** Pushes g at the bottom of P block pp's fork deque: true, or false when it is full (g is
 *  left alone). Owner P only. */
export function forkqPush(pp: usize, g: u32): bool {
  let b = load<u32>(pp, P_FORKQ_BOTTOM); // plain: only the owner writes bottom
  let t = atomic.load<u32>(pp, P_FORKQ_TOP); // pairs with the top CAS in forkqSteal/forkqPop
  if (b - t >= <u32>FORKQ_SIZE) return false; // a stale t only makes it look fuller
  store<u32>(slot(pp, b), g, P_FORKQ); // plain: published by the bottom store below
  atomic.store<u32>(pp, b + 1, P_FORKQ_BOTTOM); // publish: pairs with the bottom load in forkqSteal
  return true;
}

/** Takes the newest G of P block pp's fork deque, or 0 when it is empty (or a thief took the
 *  last G first). Owner P only. */
export function forkqPop(pp: usize): u32 {
  let b = load<u32>(pp, P_FORKQ_BOTTOM) - 1; // plain: only the owner writes bottom
  atomic.store<u32>(pp, b, P_FORKQ_BOTTOM); // StoreLoad with the top load: pairs with forkqSteal's bottom load
  let t = atomic.load<u32>(pp, P_FORKQ_TOP); // pairs with the top CAS in forkqSteal
  let d = <i32>(b - t);
  if (d < 0) {
    atomic.store<u32>(pp, t, P_FORKQ_BOTTOM); // empty: put bottom back (b + 1 == t)
    return 0;
  }
  let g = load<u32>(slot(pp, b), P_FORKQ); // plain: the owner's own slot, out of thieves' reach
  if (d > 0) return g; // more than one: thieves stop at top < bottom
  // The last G: the thief whose top CAS lands first has it.
  let won = atomic.cmpxchg<u32>(pp, t, t + 1, P_FORKQ_TOP) == t; // pairs with the top CAS in forkqSteal
  casCount(pp, won);
  atomic.store<u32>(pp, t + 1, P_FORKQ_BOTTOM); // empty now: pairs with the bottom load in forkqSteal
  return won ? g : 0;
}

/** Takes the oldest G of P block vp's fork deque, or 0 (empty, or another taker's CAS came
 *  first); the CAS is counted on P block pp, the taker's. The owner of pp. */
export function forkqSteal(vp: usize, pp: usize): u32 {
  let t = atomic.load<u32>(vp, P_FORKQ_TOP); // pairs with the top CAS of other takers
  let b = atomic.load<u32>(vp, P_FORKQ_BOTTOM); // acquire: pairs with the bottom store in forkqPush/forkqPop
  if (<i32>(b - t) <= 0) return 0;
  // plain: published by the bottom store; the owner cannot rewrite slot t while top == t
  // (forkqPush refuses when bottom - top == FORKQ_SIZE), and the CAS checks top did not move
  let g = load<u32>(slot(vp, t), P_FORKQ);
  if (!casCount(pp, atomic.cmpxchg<u32>(vp, t, t + 1, P_FORKQ_TOP) == t)) return 0; // pairs with the top CAS of other takers
  return g;
}

/** bottom - top of P p's fork deque, clamped to [0, FORKQ_SIZE]. Any thread. */
export function forkLen(p: i32): u32 {
  let pp = pAddr(p);
  let b = atomic.load<u32>(pp, P_FORKQ_BOTTOM); // pairs with the bottom stores in forkqPush/forkqPop
  let t = atomic.load<u32>(pp, P_FORKQ_TOP); // pairs with the top CAS of takers
  let d = <i32>(b - t);
  return d < 0 ? 0 : d > FORKQ_SIZE ? <u32>FORKQ_SIZE : <u32>d;
}

/**
 * P p steals the oldest G of victim's fork deque: the steal counters as runqSteal keeps them
 * (one G, one operation) and the words the trace reads. Returns the G, or 0. Owner of p only.
 */
export function forkSteal(p: i32, victim: i32): u32 {
  let vp = pAddr(victim);
  let pp = pAddr(p);
  counterAdd(pp + (P_OPS + OP_STEAL_TRIES), 1);
  let g = forkqSteal(vp, pp);
  if (g == 0) return 0;
  counterAdd(pp + (P_COUNTERS + PC_STEAL_OPS), 1);
  counterAdd(pp + (P_COUNTERS + PC_STOLEN), 1);
  atomic.add<u32>(vp, 1, P_STOLEN_FROM); // thief-written counter: pairs with the other thieves' adds
  atomic.add<u32>(vp, 1, P_STEAL_FROM_OPS); // as above
  store<u32>(pp, <u32>victim + 1, P_STEAL_VICTIM); // plain: own word, read by the trace
  store<u32>(pp, 1, P_STEAL_N); // plain: as above
  return g;
}
