// An M whose async tasks in flight reached its limit hands its P off and blocks, as Go's M does
// around a blocking system call, and comes back once one of its tasks no longer counts: the twin
// of assembly/handoffp.ts (docs/DESIGN.md "Async tasks: where they start"). A blocked M holds no
// P and is on no list, so wakep never hands a wake-up to a thread running a continuation.

import {
  M_SPINNING, PC_PARKS, P_IDLE, P_M, P_STATUS, S_NMSPINNING, STOP_SLEEP,
} from '../../../assembly/shared/layout.js';
import { mPutLocked, pidlePut } from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { mWord, opCall, pCounters, pWord, type Mem } from './mem.js';
import { retakeIdle, wakep, workVisible } from './sched.js';
import { runqToGlobal } from './sysmon.js';

const NMSPINNING_W = S_NMSPINNING >> 2;
const SPINNING = M_SPINNING >> 2;
const P_STATUS_W = P_STATUS >> 2;
const P_M_W = P_M >> 2;
const PARKS = PC_PARKS >> 3;

/** M mi blocks in its async tasks: P p's runnable Gs go to the global queue, p goes idle and mi
 *  on no list; an M is woken for the work if any is in sight. Returns how many Gs moved. M mi
 *  holding P p only, between two Gs. */
export function handoffP(m: Mem, p: number, mi: number): number {
  const i32 = m.i32;
  opCall(m, p); // p is still mi's
  const n = runqToGlobal(m, p);
  schedLock(m);
  const w = pWord(p);
  Atomics.store(i32, w + P_STATUS_W, P_IDLE); // pairs with the status loads of thieves
  Atomics.store(i32, w + P_M_W, 0); // under sched.lock; read by schedtrace
  pidlePut(m, p);
  m.f64[pCounters(p) + PARKS] += 1; // plain: under sched.lock, p has no owner now
  // An M between two Gs is not spinning (execute reset it); one that is gives its count back.
  const mw = mWord(m, mi);
  const spinning = Atomics.load(i32, mw + SPINNING) !== 0; // own flag
  if (spinning) Atomics.store(i32, mw + SPINNING, 0);
  schedUnlock(m);
  if (spinning) Atomics.sub(i32, NMSPINNING_W, 1); // pairs with the nmspinning loads in wakep
  // p is idle from here: work queued while every P was held (ready saw npidle 0 and woke nobody)
  // needs an M now. Published before these loads, as in ready.
  if (Atomics.load(i32, NMSPINNING_W) === 0 && workVisible(m, -1, false)) wakep(m);
  return n;
}

/** M mi, blocked (handoffP), has room again: it goes on the idle-M list, then looks for work as
 *  a spinner that gives up does (stopM's recheck): with work in sight and a P idle it takes the
 *  P, counted spinning. STOP_RETRY (acquireP, then findRunnable) or STOP_SLEEP. M mi without a P
 *  only, blocked. */
export function mReturn(m: Mem, mi: number): number {
  schedLock(m);
  mPutLocked(m, mi);
  schedUnlock(m);
  // After the put, as stopM's recheck after its decrement: a submitter either finds mi on the list
  // (its wakep) or published before this look.
  if (!workVisible(m, -1, false)) return STOP_SLEEP;
  return retakeIdle(m, mi);
}
