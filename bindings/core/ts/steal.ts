// Victim order and steal threshold: Go's stealWork and randomOrder
// (docs/DESIGN.md, "Victim order and steal threshold").

import {
  COPRIMES, FLAG_ORDER_MASK, FLAG_THRESHOLD_LOAD, FLAG_VICTIM_HINT, ORDER_RANDOM, P_HINT, P_IDLE,
  P_RAND, P_RUNNEXT, P_STATUS, S_NMSPINNING, S_NPIDLE, STEAL_TRIES, OP_PROBES,
} from '../../../assembly/shared/layout.js';
import { flags, H_STEAL_THRESHOLD_W, ncoprimes, nprocs, pOps, pWord, type Mem } from './mem.js';
import { npBusy } from './idle.js';
import { runqLen, runqSteal } from './runq.js';
import { forkLen, forkSteal } from './forkq.js';

const COPRIMES_W = COPRIMES >> 2;
const STATUS = P_STATUS >> 2;
const HINT = P_HINT >> 2;
const RAND = P_RAND >> 2;
const NEXT = P_RUNNEXT >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NMSPINNING_W = S_NMSPINNING >> 2;
const PROBES = OP_PROBES >> 3;
const THRESHOLD_MAX = 32; // a victim this loaded is always worth a CAS

/** Marsaglia's xorshift32 step on a u32 (kept as its int32 bit pattern). Any thread. */
export function xorshift32(x: number): number {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return x | 0;
}

/** Greatest common divisor of two positive integers. Any thread. */
function gcd(a: number, b: number): number {
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/** Writes the coprimes of n (every i in [1, n] with gcd(i, n) == 1, ascending) at COPRIMES and
 *  returns how many there are. init only. */
export function coprimesInit(m: Mem, n: number): number {
  let k = 0;
  for (let i = 1; i <= n; i++) if (gcd(i, n) === 1) m.i32[COPRIMES_W + k++] = i;
  return k;
}

/** The stride of the random order started with r: coprimes[(r / nprocs) % ncoprimes], u32
 *  arithmetic. Any thread. */
function strideOf(m: Mem, r: number, np: number): number {
  // plain: the coprimes are written by init, then read-only
  return m.i32[COPRIMES_W + (((r >>> 0) / np) >>> 0) % ncoprimes(m)];
}

/** The victim visited at step i of the enumeration for P p started with seed r, in the
 *  configured order; no side effects. Any thread. */
export function stealOrderAt(m: Mem, p: number, r: number, i: number): number {
  const np = nprocs(m);
  if ((flags(m) & FLAG_ORDER_MASK) !== ORDER_RANDOM) return (p + 1 + i) % np;
  const pos = (r >>> 0) % np;
  return (pos + ((i % np) * strideOf(m, r, np)) % np) % np;
}

/** The steal threshold in force now: H_STEAL_THRESHOLD, or with FLAG_THRESHOLD_LOAD a quarter
 *  of the busy Ps' average ring length (halved when many Ps idle or spin), clamped to
 *  [H_STEAL_THRESHOLD, 32] with the floor winning. Any thread. */
export function stealThreshold(m: Mem): number {
  const i32 = m.i32;
  const floor = i32[H_STEAL_THRESHOLD_W]; // plain: header word fixed at init
  if ((flags(m) & FLAG_THRESHOLD_LOAD) === 0) return floor;
  const np = nprocs(m);
  const npidle = Atomics.load(i32, NPIDLE_W); // pairs with the npidle updates under sched.lock
  const busy = npBusy(m);
  let total = 0;
  for (let v = 0; v < np; v++) {
    if (Atomics.load(i32, pWord(v) + STATUS) !== P_IDLE) total += runqLen(m, v); // pairs with the status stores in sched
  }
  const avg = (total / (busy > 1 ? busy : 1)) >>> 0;
  let t = avg >>> 2;
  const nmspinning = Atomics.load(i32, NMSPINNING_W); // pairs with the nmspinning RMWs in sched
  if (2 * (npidle + nmspinning) >= np) t >>>= 1; // many idle Ps: steal eagerly
  if (t > THRESHOLD_MAX) t = THRESHOLD_MAX;
  return t < floor ? floor : t;
}

/** Go's stealWork: STEAL_TRIES passes over the other Ps in the configured order (the victim
 *  hint first when enabled), half a ring or else one G of a fork deque, runnext only on the
 *  last pass; returns a stolen G or 0. Each victim looked at is a probe (OP_PROBES).
 *  Owner P only. */
export function stealWork(m: Mem, p: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  const np = nprocs(m);
  const fl = flags(m);
  const thr = stealThreshold(m);
  let probes = 0;
  let g = 0;
  for (let i = 0; i < STEAL_TRIES && g === 0; i++) {
    const last = i === STEAL_TRIES - 1 ? 1 : 0;
    if (i === 0 && (fl & FLAG_VICTIM_HINT) !== 0) {
      const hint = i32[w + HINT]; // plain: owner only
      if (hint !== 0) {
        const v = hint - 1;
        if (v !== p) {
          probes++;
          if (runqLen(m, v) >= thr) {
            g = runqSteal(m, p, v, 0);
            if (g !== 0) break;
          }
        }
        i32[w + HINT] = 0; // a miss clears the hint (plain: owner only)
      }
    }
    let pos: number;
    let inc: number;
    if ((fl & FLAG_ORDER_MASK) === ORDER_RANDOM) {
      const x = xorshift32(i32[w + RAND]); // plain: owner only
      i32[w + RAND] = x;
      const r = x >>> 0;
      pos = r % np;
      inc = strideOf(m, r, np);
    } else {
      pos = (p + 1) % np;
      inc = 1;
    }
    for (let k = 0; k < np; k++, pos = (pos + inc) % np) {
      if (pos === p) continue;
      probes++;
      const vw = pWord(pos);
      if (Atomics.load(i32, vw + STATUS) === P_IDLE) continue; // pairs with the status stores in sched
      let load = runqLen(m, pos);
      if (last !== 0 && Atomics.load(i32, vw + NEXT) !== 0) load++; // pairs with the runnext exchange/CAS
      if (load >= thr) {
        g = runqSteal(m, p, pos, last);
        if (g !== 0) {
          i32[w + HINT] = pos + 1; // plain: owner only
          break;
        }
      }
      // The victim's fork deque, one G (its oldest fork: the biggest piece of a divide and
      // conquer), whatever the threshold (DESIGN.md "Fork-join").
      if (forkLen(m, pos) !== 0) {
        g = forkSteal(m, p, pos);
        if (g !== 0) break;
      }
    }
  }
  m.f64[pOps(p) + PROBES] += probes; // plain: owner counter
  return g;
}
