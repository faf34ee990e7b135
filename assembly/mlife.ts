// Ms that come and go (docs/DESIGN.md, "Threads that come and go"; Go's mstart, and the idle
// thread exit Go's runtime does not have): the list of Ps without an M, and the two calls that
// move a P on and off it as a thread starts or ends.
//
// The scheduler keeps its Ps; a thread (M) that stayed idle for the runtime's idleTimeout ends,
// down to a minimum. Every idle P must keep an idle M to run it (stopM parks them together, and
// wakep hands an idle P to an idle M), so when an exiting M leaves more idle Ps than idle Ms, one
// idle P moves to the no-M list, where no M runs it and no thief visits it (status P_IDLE, off
// the idle list, like a reserved spare). A thread started later takes one P back from that list
// as it starts, spinning, as Go's startm(pp, spinning) starts a new M holding pp. A P goes on the
// list only while idle, and an idle P has an empty queue, so no G is ever stranded there.
//
// The list is LIFO, of P index + 1 linked through P_LINK, and changes only under sched.lock.

import {
  NONE, M_NEXTP, M_SPINNING, PC_WAKEUPS, P_COUNTERS, P_M, S_NMIDLE, S_NMSPINNING, S_NPIDLE,
  S_RT_NMLIVE, S_RT_NPNOM, S_RT_PNOM,
} from './shared/layout';
import { counterAdd, mAddr, nprocs, pAddr, spinningSeen } from './mem';
import { schedLock, schedUnlock } from './lock';
import { plistCount, plistPop, plistPush } from './plist';
import { mPutLocked, mRemove, pidleGet, pidleRemove } from './idle';

/** Pushes P p on the no-M list. Holds sched.lock. */
export function pnomPut(p: i32): void {
  plistPush(S_RT_PNOM, p);
  plistCount(S_RT_NPNOM, 1); // the runtime reads it lock-free (startm.ts)
}

/** Pops a P off the no-M list; NONE when it is empty. Holds sched.lock. */
export function pnomGet(): i32 {
  let p = plistPop(S_RT_PNOM);
  if (p != NONE) plistCount(S_RT_NPNOM, -1); // the runtime reads it lock-free (startm.ts)
  return p;
}

/**
 * Moves idle P p to the no-M list (start-up: the runtime starts fewer threads than Ps, and each
 * thread it starts takes one back in mStart). Returns 1, or 0 when p is not on the idle list.
 * Any thread.
 */
export function pDetach(p: i32): i32 {
  if (p < 0 || p >= nprocs()) return 0;
  schedLock();
  let ok = pidleRemove(p);
  if (ok) pnomPut(p);
  schedUnlock();
  return ok ? 1 : 0;
}

/**
 * M m's thread has started (Go's mstart, for an M that newm made for startm(pp, true)): m counts
 * as live, and takes a P without an M if there is one, handed over in M_NEXTP with m counted
 * spinning, as wakep hands one over: m acquires it (acquireP) and looks for the work it was
 * started for. With no such P, m goes on the idle list. Returns the P, or NONE. M m without a P
 * only, once, before its first sleep.
 */
export function mStart(m: i32): i32 {
  schedLock();
  atomic.store<u32>(S_RT_NMLIVE, atomic.load<u32>(S_RT_NMLIVE) + 1); // pairs with the runtime's lock-free load
  let p = pnomGet();
  if (p < 0) {
    mPutLocked(m);
    schedUnlock();
    return NONE;
  }
  let mp = mAddr(m);
  let pp = pAddr(p);
  atomic.store<u32>(mp, <u32>p + 1, M_NEXTP); // pairs with the load in acquireP
  atomic.store<u32>(mp, 1, M_SPINNING); // pairs with the spinning loads in findRunnable/stopM
  spinningSeen(atomic.add<i32>(S_NMSPINNING, 1) + 1); // pairs with the nmspinning load/CAS in wakep
  atomic.store<u32>(pp, <u32>m + 1, P_M); // pairs with the runtime's loads
  counterAdd(pp + (P_COUNTERS + PC_WAKEUPS), 1); // sched.lock held: pp has no owner yet
  schedUnlock();
  return p;
}

/**
 * M m has slept idle for the runtime's idleTimeout: it may end its thread if more than `min` Ms
 * are live and it is still on the idle list (wakep, the monitor's handoff or mTake may have taken
 * it since it fell asleep: then it is theirs, and a PARK_P is on its way). If the idle Ps then
 * outnumber the idle Ms, one idle P goes to the no-M list, so that every idle P still has an idle
 * M. Returns 1 when m leaves (it must end its thread without touching the scheduler again), 0
 * when it stays. M m, asleep without a P, only.
 */
export function mExit(m: i32, min: i32): i32 {
  schedLock();
  if (<i32>atomic.load<u32>(S_RT_NMLIVE) <= min || !mRemove(m)) {
    schedUnlock();
    return 0;
  }
  atomic.store<u32>(S_RT_NMLIVE, atomic.load<u32>(S_RT_NMLIVE) - 1); // pairs with the runtime's lock-free load
  if (atomic.load<i32>(S_NPIDLE) > <i32>load<u32>(S_NMIDLE)) { // plain nmidle: sched.lock held
    let p = pidleGet();
    pnomPut(p);
  }
  schedUnlock();
  return 1;
}
