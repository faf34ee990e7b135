// The core's side of fork-join (docs/DESIGN.md, "Fork-join"): a fork goes on its forker's fork
// deque (forkPush), the forker takes it back to run inline at join (forkPop), and a joiner
// whose fork was stolen finds other Gs to run meanwhile (forkHelp). The deque itself is
// forkq.ts; thieves in findRunnable reach it through stealWork.

import {
  G_ARGC, G_DEAD, G_FN, G_JOIN, G_PARENT, G_PRIO, G_RUNNABLE, G_RUNNING,
  G_TOKEN_SHIFT, GF_FORK, MR_CURG, MR_TRACE_BUF, P_FORK_INLINE, P_FORK_PUSHES, PARENT_SPAWNER,
  PRIO_MASK, S_NMSPINNING, S_NPIDLE, S_RT_FORK_EPOCH, S_RT_FORK_SLEEPERS,
  P_OPS, OP_CALLS, OP_HELPS, OP_PROBES,
} from './shared/layout';
import { counterAdd, mAddr, nprocs, pAddr } from './mem';
import { gAddr, gSetNumberArgs, gSetStatus } from './gtable';
import { gfGet, gfPut } from './gfree';

/** The bits of G_PRIO a fork inherits from its forker: the cancellation token and the class. */
const FORK_INHERIT: u32 = (<u32>0xffff << G_TOKEN_SHIFT) | PRIO_MASK;
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
 * ctx.fork's whole core side in one call, for a child whose arguments are argc <= G_INLINE_ARGS
 * (7) numbers (DESIGN.md "Fork-join", step 1). The G: `spare` (a G_DEAD fork G this M ran
 * inline and kept, JOIN_DONE-marked for crash recovery) when non-zero, else one from p's free
 * list. Its fields: fn, argc, the arguments x0..x6 as number slots (all seven stored: the slots
 * past argc are never read), the eight tag bytes (TAG_NUMBER in the first argc, 0 in the rest:
 * a spare's were another fork's), G_PARENT = PARENT_SPAWNER | m, the join word 0, and G_PRIO =
 * GF_FORK with the cancellation token and class of the G running on m (MR_CURG: the forker,
 * whose tree they belong to). Then forkPush (the forker is the trace's parent), and a wake-up
 * of the joiners asleep on S_RT_FORK_EPOCH (forkWake) if one may sleep (S_RT_FORK_SLEEPERS).
 * Returns g on the deque, -g when the deque was full (g stays G_DEAD with its fields, for the
 * forker to run inline), 0 when the G table is full. M m holding P p only.
 */
export function forkNew(p: i32, m: i32, spare: u32, fn: u32, argc: u32,
  x0: f64, x1: f64, x2: f64, x3: f64, x4: f64, x5: f64, x6: f64): i32 {
  counterAdd(pAddr(p) + (P_OPS + OP_CALLS), 1);
  let g = spare != 0 ? spare : gfGet(p);
  if (g == 0) return 0;
  let gp = gAddr(g);
  let parent = load<u32>(mAddr(m), MR_CURG); // plain: this M's own word
  let tree = load<u32>(gAddr(parent), G_PRIO) & FORK_INHERIT; // plain: the running G is this M's
  // plain: g is this thread's alone until forkPush publishes it (the bottom store)
  store<u32>(gp, fn, G_FN);
  store<u32>(gp, argc, G_ARGC);
  store<u32>(gp, PARENT_SPAWNER | <u32>m, G_PARENT);
  store<u32>(gp, 0, G_JOIN); // a spare's JOIN_DONE mark goes (a fresh G has 0)
  store<u32>(gp, tree | GF_FORK, G_PRIO);
  gSetNumberArgs(gp, argc, x0, x1, x2, x3, x4, x5, x6);
  if (forkPush(p, m, g, parent) == 0) return -<i32>g;
  // New work while a joiner may sleep: wake them all (they may help), once: the flag goes back
  // to 0 with the wake-up, so the forks that follow pay one load each. The push above comes
  // first: pairs with the sleeper's flag store before its last look.
  if (atomic.load<i32>(S_RT_FORK_SLEEPERS) != 0 && atomic.xchg<i32>(S_RT_FORK_SLEEPERS, 0) != 0) forkWake();
  return <i32>g;
}

/** Bumps S_RT_FORK_EPOCH and wakes every joiner asleep on it (the runtime's forkWake). Any thread. */
export function forkWake(): void {
  atomic.add<i32>(S_RT_FORK_EPOCH, 1); // pairs with the joiner's epoch load before it sleeps
  atomic.notify(S_RT_FORK_EPOCH, -1); // all of them: pairs with the joiners' wait on the epoch
}

/**
 * Returns a spare fork G (G_DEAD, kept by the M that ran it inline: DESIGN.md "Fork-join", step
 * 4) to p's free list, its crash-recovery marks (G_PARENT's spawner, JOIN_DONE) cleared first:
 * a free G is no orphan. M holding P p only.
 */
export function forkDone(p: i32, g: u32): void {
  counterAdd(pAddr(p) + (P_OPS + OP_CALLS), 1);
  let gp = gAddr(g);
  store<u32>(gp, 0, G_PARENT); // plain: nobody else knows g
  store<u32>(gp, 0, G_JOIN); // plain: as above
  gfPut(p, g);
}

/**
 * The forker takes the newest G of P p's fork deque back to run it inline: returns it already
 * G_RUNNING (an M that traces records its start), or 0 when the deque is empty. M m holding
 * P p only.
 */
export function forkPop(p: i32, m: i32): u32 {
  let pp = pAddr(p);
  counterAdd(pp + (P_OPS + OP_CALLS), 1);
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
 * leapfrogging), then, when `anywhere` is non-zero, p's runnext and ring, then the other Ps'
 * fork deques in the order p+1, p+2, ... Returns it G_RUNNING (started as findRunnable starts
 * a G), or 0. No global or class queue: those wait for an M between tasks. `anywhere` 0 is the
 * deep joiner's form (DESIGN.md "Fork-join", stack depth): only the stolen fork's descendants.
 * M m holding P p only.
 */
export function forkHelp(p: i32, m: i32, victim: i32, anywhere: i32): u32 {
  let pp = pAddr(p);
  let mp = mAddr(m);
  let n = nprocs();
  counterAdd(pp + (P_OPS + OP_CALLS), 1);
  counterAdd(pp + (P_OPS + OP_HELPS), 1);
  let g: u32 = 0;
  let stolen = false;
  if (victim >= 0 && victim < n && victim != p) {
    counterAdd(pp + (P_OPS + OP_PROBES), 1);
    if (forkLen(victim) != 0) {
      g = forkSteal(p, victim);
      stolen = g != 0;
    }
  }
  if (anywhere == 0 && g == 0) return 0;
  if (g == 0) g = runqGetNext(pp);
  if (g == 0) g = runqGetRing(pp);
  let k = 1;
  for (; g == 0 && k < n; k++) {
    let v = (p + k) % n;
    if (forkLen(v) != 0) {
      g = forkSteal(p, v);
      stolen = g != 0;
    }
  }
  counterAdd(pp + (P_OPS + OP_PROBES), <f64>(k - 1));
  if (g == 0) return 0;
  let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
  if (stolen && ring != 0) traceSteal(mp, ring, p, pp); // before execute writes the stolen G's start
  execute(pp, p, mp, g, true);
  return g;
}
