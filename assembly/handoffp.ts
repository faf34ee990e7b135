// An M whose async tasks in flight reached its limit (docs/DESIGN.md "Async tasks: where they
// start"): it hands its P off and blocks, as Go's M does around a blocking system call
// (entersyscallblock -> handoffp), and comes back (Go's exitsyscall) once one of its tasks no
// longer counts. Its tasks' continuations are closures in its own heap, so they can only run on
// it; the work it would have started stays in the shared queues, where an M with room takes it.
//
// A blocked M holds no P and is on no list: wakep cannot pick it, so no wake-up is handed to a
// thread that is running a continuation instead of the scheduler's loop.

import {
  M_SPINNING, PC_PARKS, P_COUNTERS, P_IDLE, P_M, P_STATUS, S_NMSPINNING, STOP_SLEEP,
} from './shared/layout';
import { counterAdd, mAddr, opCall, pAddr } from './mem';
import { schedLock, schedUnlock } from './lock';
import { mPutLocked, pidlePut } from './idle';
import { retakeIdle, wakep, workAnywhere } from './sched';
import { runqToGlobal } from './sysmon';

/**
 * M m blocks in its async tasks: P p's runnable Gs go to the global queue, p goes idle and m on
 * no list; an M is woken for the work if any is in sight. Returns how many Gs moved. M m holding
 * P p only, between two Gs.
 */
export function handoffP(p: i32, m: i32): i32 {
  let pp = pAddr(p);
  let mp = mAddr(m);
  opCall(p); // p is still m's
  let n = runqToGlobal(p);
  schedLock();
  atomic.store<u32>(pp, P_IDLE, P_STATUS); // pairs with status loads in stealWork/workAnywhere
  atomic.store<u32>(pp, 0, P_M); // pairs with the runtime's loads
  pidlePut(p);
  counterAdd(pp + (P_COUNTERS + PC_PARKS), 1); // sched.lock held: p has no owner now
  // An M between two Gs is not spinning (execute reset it); one that is gives its count back.
  let spinning = atomic.load<u32>(mp, M_SPINNING) != 0; // own flag
  if (spinning) atomic.store<u32>(mp, 0, M_SPINNING);
  schedUnlock();
  if (spinning) atomic.sub<i32>(S_NMSPINNING, 1); // pairs with the nmspinning load/CAS in wakep
  // p is idle from here: work queued while every P was held (ready saw npidle 0 and woke nobody)
  // needs an M now. Published before these loads, as in ready.
  if (atomic.load<i32>(S_NMSPINNING) == 0 && workAnywhere(0, false)) wakep(); // pairs with the nmspinning RMWs
  return <i32>n;
}

/**
 * M m, blocked (handoffP), has room again: it goes on the idle-M list, then looks for work as a
 * spinner that gives up does (stopM's recheck): with work in sight and a P idle it takes the P,
 * counted spinning. STOP_RETRY (acquireP, then findRunnable) or STOP_SLEEP (m sleeps on its park
 * word like any idle M). M m without a P only, blocked.
 */
export function mReturn(m: i32): i32 {
  let mp = mAddr(m);
  schedLock();
  mPutLocked(m);
  schedUnlock();
  // After the put, as stopM's recheck after its decrement: a submitter either finds m on the list
  // (its wakep) or published before this look (DESIGN.md "Async tasks: where they start").
  if (!workAnywhere(0, false)) return STOP_SLEEP;
  return retakeIdle(m, mp);
}
