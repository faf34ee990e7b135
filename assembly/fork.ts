// The core's side of fork-join (docs/DESIGN.md, "Fork-join"): a fork goes on its forker's fork
// deque (forkPush), the forker takes it back to run inline at join (forkPop), and a joiner
// whose fork was stolen finds other Gs to run meanwhile (forkHelp). The deque itself is
// forkq.ts; thieves in findRunnable reach it through stealWork.

import {
  G_DEAD, G_RUNNABLE, G_RUNNING, MR_TRACE_BUF, P_FORK_INLINE, P_FORK_PUSHES, S_NMSPINNING,
  S_NPIDLE,
} from './shared/layout';
import { counterAdd, mAddr, nprocs, pAddr } from './mem';
import { gSetStatus } from './gtable';
import { forkLen, forkqPop, forkqPush, forkSteal } from './forkq';
import { runqGetNext, runqGetRing } from './runq';
import { execute, wakep } from './sched';
import { traceSpawn, traceStart, traceSteal } from './trace';

/**
 * G parent, running on M m with P p, forked g (G_DEAD, prepared by the runtime): g becomes
 * runnable at the bottom of p's fork deque, an M that traces records the spawn, and an idle P
 * is woken if nobody spins (as ready does). Returns 1, or 0 when the deque is full (g stays
 * G_DEAD and the forker keeps it to run inline). M m holding P p only.
 */
export function forkPush(p: i32, m: i32, g: u32, parent: u32): i32 {
  let pp = pAddr(p);
  gSetStatus(g, G_DEAD, G_RUNNABLE); // before the bottom store publishes g
  if (!forkqPush(pp, g)) {
    gSetStatus(g, G_RUNNABLE, G_DEAD);
    return 0;
  }
  counterAdd(pp + P_FORK_PUSHES, 1);
  let mp = mAddr(m);
  let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
  if (ring != 0) traceSpawn(mp, ring, g, parent);
  // g is published above, before these loads: DESIGN.md "Why no wake-up is lost".
  if (atomic.load<i32>(S_NPIDLE) > 0 && atomic.load<i32>(S_NMSPINNING) == 0) wakep(); // pairs with the npidle/nmspinning RMWs
  return 1;
}

/**
 * The forker takes the newest G of P p's fork deque back to run it inline: returns it already
 * G_RUNNING (an M that traces records its start), or 0 when the deque is empty. M m holding
 * P p only.
 */
export function forkPop(p: i32, m: i32): u32 {
  let pp = pAddr(p);
  let g = forkqPop(pp);
  if (g == 0) return 0;
  gSetStatus(g, G_RUNNABLE, G_RUNNING);
  counterAdd(pp + P_FORK_INLINE, 1);
  let mp = mAddr(m);
  let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
  if (ring != 0) traceStart(mp, ring, p, g);
  return g;
}

/**
 * A G for M m (holding P p) to run while it waits for a stolen fork: the oldest fork on
 * victim's deque first (the thief of the awaited fork: its deque holds that fork's own forks,
 * leapfrogging), then p's runnext and ring, then the other Ps' fork deques in the order p+1,
 * p+2, ... Returns it G_RUNNING (started as findRunnable starts a G), or 0. No global or class
 * queue: those wait for an M between tasks. M m holding P p only.
 */
export function forkHelp(p: i32, m: i32, victim: i32): u32 {
  let pp = pAddr(p);
  let mp = mAddr(m);
  let n = nprocs();
  let g: u32 = 0;
  let stolen = false;
  if (victim >= 0 && victim < n && victim != p && forkLen(victim) != 0) {
    g = forkSteal(p, victim);
    stolen = g != 0;
  }
  if (g == 0) g = runqGetNext(pp);
  if (g == 0) g = runqGetRing(pp);
  for (let k = 1; g == 0 && k < n; k++) {
    let v = (p + k) % n;
    if (forkLen(v) != 0) {
      g = forkSteal(p, v);
      stolen = g != 0;
    }
  }
  if (g == 0) return 0;
  let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
  if (stolen && ring != 0) traceSteal(mp, ring, p, pp); // before execute writes the stolen G's start
  execute(pp, p, mp, g, true);
  return g;
}
