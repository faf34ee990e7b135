// The core's side of fork-join (docs/DESIGN.md, "Fork-join"): a fork goes on its forker's fork
// deque (forkPush), the forker takes it back to run inline at join (forkPop), and a joiner
// whose fork was stolen finds other Gs to run meanwhile (forkHelp). The deque itself is
// forkq.ts; thieves in findRunnable reach it through stealWork.

import {
  G_DEAD, G_RUNNABLE, G_RUNNING, MR_TRACE_BUF, P_COUNTERS, P_FORK_INLINE, P_FORK_PUSHES, S_NMSPINNING,
  S_NPIDLE,
} from '../../../assembly/shared/layout.js';
import { forkLen, forkqPop, forkqPush, forkSteal } from './forkq.js';
import { gSetStatus } from './gtable.js';
import { mWord, nprocs, pCounters, type Mem } from './mem.js';
import { runqGet } from './runq.js';
import { execute, wakep } from './sched.js';
import { traceSpawn, traceStart, traceSteal } from './trace.js';

const TRACE_BUF = MR_TRACE_BUF >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NMSPINNING_W = S_NMSPINNING >> 2;
// f64 indexes from a P's counters (pCounters): the fork counters sit on the bottom's line.
const FORKS = (P_FORK_PUSHES - P_COUNTERS) >> 3;
const FORK_INLINE = (P_FORK_INLINE - P_COUNTERS) >> 3;

/** G parent, running on M mi with P p, forked g (G_DEAD, prepared by the runtime): g becomes
 *  runnable at the bottom of p's fork deque, an M that traces records the spawn, and an idle P
 *  is woken if nobody spins (as ready does). Returns 1, or 0 when the deque is full (g stays
 *  G_DEAD and the forker keeps it to run inline). M mi holding P p only. */
export function forkPush(m: Mem, p: number, mi: number, g: number, parent: number): number {
  gSetStatus(m, g, G_DEAD, G_RUNNABLE); // before the bottom store publishes g
  if (!forkqPush(m, p, g)) {
    gSetStatus(m, g, G_RUNNABLE, G_DEAD);
    return 0;
  }
  m.f64[pCounters(p) + FORKS] += 1; // plain: owner counter
  const mw = mWord(m, mi);
  const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
  if (ring !== 0) traceSpawn(m, mw, ring >>> 0, g, parent);
  // g is published above, before these loads: DESIGN.md "Why no wake-up is lost".
  const i32 = m.i32;
  if (Atomics.load(i32, NPIDLE_W) > 0 && Atomics.load(i32, NMSPINNING_W) === 0) wakep(m); // pairs with the npidle/nmspinning RMWs
  return 1;
}

/** The forker takes the newest G of P p's fork deque back to run it inline: returns it already
 *  G_RUNNING (an M that traces records its start), or 0 when the deque is empty. M mi holding
 *  P p only. */
export function forkPop(m: Mem, p: number, mi: number): number {
  const g = forkqPop(m, p);
  if (g === 0) return 0;
  gSetStatus(m, g, G_RUNNABLE, G_RUNNING);
  m.f64[pCounters(p) + FORK_INLINE] += 1; // plain: owner counter
  const mw = mWord(m, mi);
  const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
  if (ring !== 0) traceStart(m, mw, ring >>> 0, p, g);
  return g;
}

/** A G for M mi (holding P p) to run while it waits for a stolen fork: the oldest fork on
 *  victim's deque first (the thief of the awaited fork: its deque holds that fork's own forks,
 *  leapfrogging), then p's runnext and ring, then the other Ps' fork deques in the order p+1,
 *  p+2, ... Returns it G_RUNNING (started as findRunnable starts a G), or 0. No global or class
 *  queue: those wait for an M between tasks. M mi holding P p only. */
export function forkHelp(m: Mem, p: number, mi: number, victim: number): number {
  const n = nprocs(m);
  let g = 0;
  let stolen = false;
  if (victim >= 0 && victim < n && victim !== p && forkLen(m, victim) !== 0) {
    g = forkSteal(m, p, victim);
    stolen = g !== 0;
  }
  if (g === 0) g = runqGet(m, p);
  for (let k = 1; g === 0 && k < n; k++) {
    const v = (p + k) % n;
    if (forkLen(m, v) !== 0) {
      g = forkSteal(m, p, v);
      stolen = g !== 0;
    }
  }
  if (g === 0) return 0;
  const mw = mWord(m, mi);
  const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
  if (stolen && ring !== 0) traceSteal(m, mw, ring >>> 0, p); // before execute writes the stolen G's start
  return execute(m, p, mi, g, true);
}
