// Victim order and steal threshold (docs/DESIGN.md, "Victim order and steal threshold"; Go's
// stealWork, randomOrder, randomEnum).
//
// Random order: a start `r % nprocs` and a stride `coprimes[(r / nprocs) % ncoprimes]`; since
// the stride is coprime with nprocs, nprocs steps visit every P exactly once. The coprimes of
// nprocs are laid down by init at COPRIMES (Go's randomOrder.reset).

import {
  COPRIMES, FLAG_ORDER_MASK, FLAG_THRESHOLD_LOAD, FLAG_VICTIM_HINT, HEADER, H_NCOPRIMES,
  H_STEAL_THRESHOLD, ORDER_ROUND_ROBIN, P_HINT, P_IDLE, P_RAND, P_RUNNEXT, P_STATUS,
  STEAL_TRIES, S_NMSPINNING, S_NPIDLE, P_OPS, OP_PROBES,
} from './shared/layout';
import { counterAdd, flags, nprocs, pAddr } from './mem';
import { npBusy } from './idle';
import { runqLen, runqSteal } from './runq';
import { forkLen, forkSteal } from './forkq';

/** The most a load-derived threshold asks for. */
const THRESHOLD_MAX: u32 = 32;

/** One step of xorshift32 (13, 17, 5). Any thread. */
@inline export function xorshift32(x: u32): u32 {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

/** Greatest common divisor. Any thread. */
function gcd(a: u32, b: u32): u32 {
  while (b != 0) {
    let t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * Lays down the coprimes of n (every i in [1, n] with gcd(i, n) == 1, ascending) at COPRIMES
 * and their count in H_NCOPRIMES. init only.
 */
export function coprimesInit(n: u32): void {
  let count: u32 = 0;
  for (let i: u32 = 1; i <= n; i++) {
    if (gcd(i, n) == 1) {
      store<u32>(<usize>count << 2, i, COPRIMES); // plain: init, before other threads attach
      count++;
    }
  }
  store<u32>(HEADER, count, H_NCOPRIMES); // plain: as above
}

/** The stride of the random enumeration started with r. Any thread. */
@inline function strideOf(r: u32, n: u32): u32 {
  let ncoprimes = load<u32>(HEADER, H_NCOPRIMES); // plain: read-only after init
  return load<u32>(<usize>((r / n) % ncoprimes) << 2, COPRIMES); // plain: read-only after init
}

/**
 * The victim visited at step i of the enumeration for P p started with r (random order), or of
 * p's round-robin order. No side effects. Any thread.
 */
export function stealOrderAt(p: i32, r: u32, i: u32): i32 {
  let n = <u32>nprocs();
  if ((flags() & FLAG_ORDER_MASK) == ORDER_ROUND_ROBIN) {
    return <i32>((<u64>p + 1 + <u64>i) % <u64>n);
  }
  return <i32>((<u64>(r % n) + <u64>i * <u64>strideOf(r, n)) % <u64>n);
}

/**
 * The steal threshold in force: H_STEAL_THRESHOLD, or with FLAG_THRESHOLD_LOAD a quarter of the
 * busy Ps' average ring length (halved when half the Ps idle or spin), at most THRESHOLD_MAX and
 * at least H_STEAL_THRESHOLD. Any thread.
 */
export function stealThreshold(): u32 {
  let floor = load<u32>(HEADER, H_STEAL_THRESHOLD); // plain: read-only after init
  if ((flags() & FLAG_THRESHOLD_LOAD) == 0) return floor;
  let n = nprocs();
  let npidle = atomic.load<i32>(S_NPIDLE); // pairs with the npidle adds in pidlePut/pidleGet
  let busy = npBusy();
  let total: u32 = 0;
  for (let v = 0; v < n; v++) {
    if (atomic.load<u32>(pAddr(v), P_STATUS) != P_IDLE) total += runqLen(v); // pairs with the status stores in acquireP/stopM
  }
  let t = (total / <u32>(busy > 1 ? busy : 1)) >> 2;
  let nmspinning = atomic.load<i32>(S_NMSPINNING); // pairs with the nmspinning RMWs in sched
  if (2 * (npidle + nmspinning) >= n) t >>= 1; // many idle Ps: steal eagerly
  if (t > THRESHOLD_MAX) t = THRESHOLD_MAX;
  return t > floor ? t : floor;
}

/**
 * Go's stealWork: STEAL_TRIES passes over the other Ps in the configured victim order, taking
 * half the ring of the first whose load reaches the threshold, else the oldest G of its fork
 * deque; the last pass also counts and steals runnext. With FLAG_VICTIM_HINT, pass 0 first tries the victim of p's last successful
 * steal. Returns the G to run, or 0. Each victim looked at is a probe (OP_PROBES). Owner P only.
 */
export function stealWork(p: i32): u32 {
  let pp = pAddr(p);
  let n = <u32>nprocs();
  let f = flags();
  let thr = stealThreshold();
  let roundRobin = (f & FLAG_ORDER_MASK) == ORDER_ROUND_ROBIN;
  let probes: u32 = 0;
  let g: u32 = 0;
  for (let i = 0; i < STEAL_TRIES && g == 0; i++) {
    let last = i == STEAL_TRIES - 1;
    if (i == 0 && (f & FLAG_VICTIM_HINT) != 0) {
      let hint = load<u32>(pp, P_HINT); // plain: owner only
      if (hint != 0) {
        let v = <i32>hint - 1;
        if (v != p) {
          probes++;
          if (runqLen(v) >= thr) {
            g = runqSteal(p, v, 0);
            if (g != 0) break;
          }
        }
        store<u32>(pp, 0, P_HINT); // plain: owner only
      }
    }
    let pos: u32;
    let stride: u32 = 1;
    if (roundRobin) {
      pos = (<u32>p + 1) % n;
    } else {
      let r = xorshift32(load<u32>(pp, P_RAND)); // plain: owner only
      store<u32>(pp, r, P_RAND); // plain: owner only
      pos = r % n;
      stride = strideOf(r, n);
    }
    for (let k: u32 = 0; k < n; k++) {
      let v = <i32>pos;
      pos = (pos + stride) % n;
      if (v == p) continue;
      probes++;
      let vp = pAddr(v);
      if (atomic.load<u32>(vp, P_STATUS) == P_IDLE) continue; // pairs with the status stores in acquireP/stopM
      let size = runqLen(v);
      if (last && atomic.load<u32>(vp, P_RUNNEXT) != 0) size++; // pairs with the runnext CAS in runqPut/runqGet
      if (size >= thr) {
        g = runqSteal(p, v, <i32>last);
        if (g != 0) {
          store<u32>(pp, <u32>v + 1, P_HINT); // plain: owner only
          break;
        }
      }
      // The victim's fork deque, one G (its oldest fork: the biggest piece of a divide and
      // conquer), whatever the threshold (DESIGN.md "Fork-join").
      if (forkLen(v) != 0) {
        g = forkSteal(p, v);
        if (g != 0) break;
      }
    }
  }
  counterAdd(pp + (P_OPS + OP_PROBES), <f64>probes);
  return g;
}
