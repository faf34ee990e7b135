// The core's side of fork-join (docs/DESIGN.md, "Fork-join"): a fork goes on its forker's fork
// deque (forkPush), the forker takes it back to run inline at join (forkPop), and a joiner
// whose fork was stolen finds other Gs to run meanwhile (forkHelp). The deque itself is
// forkq.ts; thieves in findRunnable reach it through stealWork.

import {
  G_ARGC, G_DEAD, G_FN, G_JOIN, G_PARENT, G_PRIO, G_RUNNABLE, G_RUNNING,
  G_TOKEN_SHIFT, GF_FORK, MR_CURG, MR_TRACE_BUF, P_COUNTERS, P_FORK_INLINE, P_FORK_PUSHES,
  PARENT_SPAWNER, PRIO_MASK, S_NMSPINNING, S_NPIDLE, S_RT_FORK_EPOCH, S_RT_FORK_SLEEPERS,
  OP_CALLS, OP_HELPS, OP_PROBES,
} from '../../../assembly/shared/layout.js';
import { forkLen, forkqPop, forkqPush, forkSteal } from './forkq.js';
import { gfGet, gfPut } from './gfree.js';
import { gSetNumberArgs, gSetStatus, gWord } from './gtable.js';
import { mWord, nprocs, pCounters, pOps, type Mem } from './mem.js';
import { runqGet } from './runq.js';
import { execute, wakep } from './sched.js';
import { traceSpawn, traceStart, traceSteal } from './trace.js';

const TRACE_BUF = MR_TRACE_BUF >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NMSPINNING_W = S_NMSPINNING >> 2;
const SLEEPERS_W = S_RT_FORK_SLEEPERS >> 2;
const EPOCH_W = S_RT_FORK_EPOCH >> 2;
const FN = G_FN >> 2;
const ARGC = G_ARGC >> 2;
const PARENT = G_PARENT >> 2;
const PRIO = G_PRIO >> 2;
const JOIN = G_JOIN >> 2;
const CURG = MR_CURG >> 2;
/** The bits of G_PRIO a fork inherits from its forker: the cancellation token and the class. */
const FORK_INHERIT = (0xffff << G_TOKEN_SHIFT) | PRIO_MASK;
// f64 indexes from a P's counters (pCounters): the fork counters sit on the bottom's line.
const FORKS = (P_FORK_PUSHES - P_COUNTERS) >> 3;
const FORK_INLINE = (P_FORK_INLINE - P_COUNTERS) >> 3;
const CALLS = OP_CALLS >> 3;
const HELPS = OP_HELPS >> 3;
const PROBES = OP_PROBES >> 3;

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

/** ctx.fork's whole core side in one call, for a child whose arguments are argc <=
 *  G_INLINE_ARGS (7) numbers (DESIGN.md "Fork-join", step 1). The G: `spare` (a G_DEAD fork G
 *  this M ran inline and kept, JOIN_DONE-marked for crash recovery) when non-zero, else one from
 *  p's free list. Its fields: fn, argc, the arguments x0..x6 as number slots (all seven stored:
 *  the slots past argc are never read), the eight tag bytes (TAG_NUMBER in the first argc, 0 in
 *  the rest: a spare's were another fork's), G_PARENT = PARENT_SPAWNER | mi, the join word 0,
 *  and G_PRIO = GF_FORK with the cancellation token and class of the G running on mi (MR_CURG:
 *  the forker, whose tree they belong to). Then forkPush (the forker is the trace's parent), and
 *  a wake-up of the joiners asleep on S_RT_FORK_EPOCH (forkWake). Returns g on the deque, -g
 *  when the deque was full (g stays G_DEAD with its fields, for the forker to run inline), 0
 *  when the G table is full. M mi holding P p only. */
export function forkNew(m: Mem, p: number, mi: number, spare: number, fn: number, argc: number,
  x0: number, x1: number, x2: number, x3: number, x4: number, x5: number, x6: number): number {
  m.f64[pOps(p) + CALLS] += 1; // plain: owner counter
  const g = spare !== 0 ? spare : gfGet(m, p);
  if (g === 0) return 0;
  const w = gWord(m, g);
  const parent = m.i32[mWord(m, mi) + CURG] >>> 0; // plain: this M's own word
  const tree = m.i32[gWord(m, parent) + PRIO] & FORK_INHERIT; // plain: the running G is this M's
  const i32 = m.i32;
  // plain: g is this thread's alone until forkPush publishes it (the bottom store)
  i32[w + FN] = fn;
  i32[w + ARGC] = argc;
  i32[w + PARENT] = PARENT_SPAWNER | mi;
  i32[w + JOIN] = 0; // a spare's JOIN_DONE mark goes (a fresh G has 0)
  i32[w + PRIO] = tree | GF_FORK;
  gSetNumberArgs(m, w, argc, x0, x1, x2, x3, x4, x5, x6);
  if (forkPush(m, p, mi, g, parent) === 0) return -g;
  // New work while a joiner may sleep: wake them all (they may help), once: the flag goes back
  // to 0 with the wake-up, so the forks that follow pay one load each. The push above comes
  // first: pairs with the sleeper's flag store before its last look.
  if (Atomics.load(m.i32, SLEEPERS_W) !== 0 && Atomics.exchange(m.i32, SLEEPERS_W, 0) !== 0) forkWake(m);
  return g;
}

/** Bumps S_RT_FORK_EPOCH and wakes every joiner asleep on it (the runtime's forkWake). Any thread. */
export function forkWake(m: Mem): void {
  Atomics.add(m.i32, EPOCH_W, 1); // pairs with the joiner's epoch load before it sleeps
  Atomics.notify(m.i32, EPOCH_W); // all of them: pairs with the joiners' wait on the epoch
}

/** Returns a spare fork G (G_DEAD, kept by the M that ran it inline: DESIGN.md "Fork-join",
 *  step 4) to p's free list, its crash-recovery marks (G_PARENT's spawner, JOIN_DONE) cleared
 *  first: a free G is no orphan. M holding P p only. */
export function forkDone(m: Mem, p: number, g: number): void {
  m.f64[pOps(p) + CALLS] += 1; // plain: owner counter
  const w = gWord(m, g);
  m.i32[w + PARENT] = 0; // plain: nobody else knows g
  m.i32[w + JOIN] = 0; // plain: as above
  gfPut(m, p, g);
}

/** The forker takes the newest G of P p's fork deque back to run it inline: returns it already
 *  G_RUNNING (an M that traces records its start), or 0 when the deque is empty. M mi holding
 *  P p only. */
export function forkPop(m: Mem, p: number, mi: number): number {
  m.f64[pOps(p) + CALLS] += 1; // plain: owner counter
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
 *  leapfrogging), then, when `anywhere` is non-zero, p's runnext and ring, then the other Ps'
 *  fork deques in the order p+1, p+2, ... Returns it G_RUNNING (started as findRunnable starts
 *  a G), or 0. No global or class queue: those wait for an M between tasks. `anywhere` 0 is the
 *  deep joiner's form (DESIGN.md "Fork-join", stack depth): only the stolen fork's descendants.
 *  M mi holding P p only. */
export function forkHelp(m: Mem, p: number, mi: number, victim: number, anywhere: number): number {
  const n = nprocs(m);
  const o = pOps(p);
  m.f64[o + CALLS] += 1; // plain: owner counters
  m.f64[o + HELPS] += 1;
  let g = 0;
  let stolen = false;
  if (victim >= 0 && victim < n && victim !== p) {
    m.f64[o + PROBES] += 1; // plain: owner counter
    if (forkLen(m, victim) !== 0) {
      g = forkSteal(m, p, victim);
      stolen = g !== 0;
    }
  }
  if (anywhere === 0 && g === 0) return 0;
  if (g === 0) g = runqGet(m, p);
  let k = 1;
  for (; g === 0 && k < n; k++) {
    const v = (p + k) % n;
    if (forkLen(m, v) !== 0) {
      g = forkSteal(m, p, v);
      stolen = g !== 0;
    }
  }
  m.f64[o + PROBES] += k - 1; // plain: owner counter
  if (g === 0) return 0;
  const mw = mWord(m, mi);
  const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
  if (stolen && ring !== 0) traceSteal(m, mw, ring >>> 0, p); // before execute writes the stolen G's start
  return execute(m, p, mi, g, true);
}
