// The fork deque of a P (docs/DESIGN.md, "Fork-join"): the Gs `ctx.fork` made, which their
// forker takes back newest first to run inline at `join()`, and thieves take oldest first.
//
// A Chase-Lev deque over a FORKQ_SIZE-slot ring with free-running u32 counters: slot i is
// forkq[i & FORKQ_MASK]. Only the owner writes `bottom` and the slots; thieves take one G each
// by CAS on `top`, and the owner CASes `top` too when it takes the last G. The owner's pop
// stores `bottom` and then loads `top` (the StoreLoad point; JS atomics are sequentially
// consistent), so an owner and a thief racing for the last G both see each other and the CAS
// decides. Every G leaves exactly once and no stale entry is left behind. The i32 view holds
// the counters as signed words: differences are taken `| 0` and sums stored `| 0`.

import {
  FORKQ_MASK, FORKQ_SIZE, P_FORKQ, P_FORKQ_BOTTOM, P_FORKQ_TOP, PC_STEAL_OPS, PC_STOLEN,
  P_STEAL_FROM_OPS, P_STEAL_N, P_STEAL_VICTIM, P_STOLEN_FROM, OP_STEAL_TRIES,
} from '../../../assembly/shared/layout.js';
import { casCount, pCounters, pOps, pWord, type Mem } from './mem.js';

const BOTTOM = P_FORKQ_BOTTOM >> 2;
const TOP = P_FORKQ_TOP >> 2;
const SLOTS = P_FORKQ >> 2;
const STOLEN_FROM = P_STOLEN_FROM >> 2;
const STEAL_FROM_OPS = P_STEAL_FROM_OPS >> 2;
const STEAL_VICTIM = P_STEAL_VICTIM >> 2;
const STEAL_N = P_STEAL_N >> 2;
const STEAL_OPS = PC_STEAL_OPS >> 3;
const STOLEN = PC_STOLEN >> 3;
const STEAL_TRIES = OP_STEAL_TRIES >> 3;

/** Pushes g at the bottom of P p's fork deque: true, or false when it is full (g is left
 *  alone). Owner P only. */
export function forkqPush(m: Mem, p: number, g: number): boolean {
  const i32 = m.i32;
  const w = pWord(p);
  const b = i32[w + BOTTOM]; // plain: only the owner writes bottom
  const t = Atomics.load(i32, w + TOP); // pairs with the top CAS in forkqSteal/forkqPop
  if (((b - t) >>> 0) >= FORKQ_SIZE) return false; // a stale t only makes it look fuller
  i32[w + SLOTS + (b & FORKQ_MASK)] = g; // plain: published by the bottom store below
  Atomics.store(i32, w + BOTTOM, (b + 1) | 0); // publish: pairs with the bottom load in forkqSteal
  return true;
}

/** Takes the newest G of P p's fork deque, or 0 when it is empty (or a thief took the last G
 *  first). Owner P only. */
export function forkqPop(m: Mem, p: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  const b = (i32[w + BOTTOM] - 1) | 0; // plain: only the owner writes bottom
  Atomics.store(i32, w + BOTTOM, b); // StoreLoad with the top load: pairs with forkqSteal's bottom load
  const t = Atomics.load(i32, w + TOP); // pairs with the top CAS in forkqSteal
  const d = (b - t) | 0;
  if (d < 0) {
    Atomics.store(i32, w + BOTTOM, t); // empty: put bottom back (b + 1 == t)
    return 0;
  }
  const g = i32[w + SLOTS + (b & FORKQ_MASK)] >>> 0; // plain: the owner's own slot, out of thieves' reach
  if (d > 0) return g; // more than one: thieves stop at top < bottom
  // The last G: the thief whose top CAS lands first has it.
  const won = Atomics.compareExchange(i32, w + TOP, t, (t + 1) | 0) === t; // pairs with the top CAS in forkqSteal
  casCount(m, p, won);
  Atomics.store(i32, w + BOTTOM, (t + 1) | 0); // empty now: pairs with the bottom load in forkqSteal
  return won ? g : 0;
}

/** Takes the oldest G of P v's fork deque, or 0 (empty, or another taker's CAS came first);
 *  the CAS is counted on P p, the taker's. The owner of p. */
export function forkqSteal(m: Mem, v: number, p: number): number {
  const i32 = m.i32;
  const w = pWord(v);
  const t = Atomics.load(i32, w + TOP); // pairs with the top CAS of other takers
  const b = Atomics.load(i32, w + BOTTOM); // acquire: pairs with the bottom store in forkqPush/forkqPop
  if (((b - t) | 0) <= 0) return 0;
  // plain: published by the bottom store; the owner cannot rewrite slot t while top == t
  // (forkqPush refuses when bottom - top == FORKQ_SIZE), and the CAS checks top did not move
  const g = i32[w + SLOTS + (t & FORKQ_MASK)] >>> 0;
  if (!casCount(m, p, Atomics.compareExchange(i32, w + TOP, t, (t + 1) | 0) === t)) return 0; // pairs with the top CAS of other takers
  return g;
}

/** bottom - top of P p's fork deque, clamped to [0, FORKQ_SIZE]. Any thread. */
export function forkLen(m: Mem, p: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  const b = Atomics.load(i32, w + BOTTOM); // pairs with the bottom stores in forkqPush/forkqPop
  const t = Atomics.load(i32, w + TOP); // pairs with the top CAS of takers
  const d = (b - t) | 0;
  return d < 0 ? 0 : d > FORKQ_SIZE ? FORKQ_SIZE : d;
}

/** P p steals the oldest G of victim's fork deque: the steal counters as runqSteal keeps them
 *  (one G, one operation) and the words the trace reads. Returns the G, or 0. Owner of p only. */
export function forkSteal(m: Mem, p: number, victim: number): number {
  m.f64[pOps(p) + STEAL_TRIES] += 1; // plain: owner counter
  const g = forkqSteal(m, victim, p);
  if (g === 0) return 0;
  const i32 = m.i32;
  const c = pCounters(p);
  m.f64[c + STEAL_OPS] += 1; // plain: owner counters
  m.f64[c + STOLEN] += 1;
  const vw = pWord(victim);
  Atomics.add(i32, vw + STOLEN_FROM, 1); // thief-written counter: other thieves add too
  Atomics.add(i32, vw + STEAL_FROM_OPS, 1); // as above
  const tw = pWord(p);
  i32[tw + STEAL_VICTIM] = victim + 1; // plain: own word, read by the trace
  i32[tw + STEAL_N] = 1; // plain: as above
  return g;
}
