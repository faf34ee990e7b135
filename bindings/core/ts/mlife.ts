// Ms that come and go: the list of Ps without an M and the calls that move a P on and off it as
// a thread starts or ends, the twin of assembly/mlife.ts (docs/DESIGN.md, "Threads that come and
// go"). The list is LIFO, of P index + 1 linked through P_LINK, changed only under sched.lock;
// its Ps are P_IDLE and off the idle list, so no M runs them and no thief visits them.

import {
  NONE, M_NEXTP, M_SPINNING, PC_WAKEUPS, P_M, S_NMIDLE, S_NMSPINNING, S_NPIDLE, S_RT_NMLIVE, S_RT_NPNOM, S_RT_PNOM,
} from '../../../assembly/shared/layout.js';
import { mPutLocked, mRemove, pidleGet, pidleRemove } from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { plistCount, plistPop, plistPush } from './plist.js';
import { mWord, nprocs, pCounters, pWord, spinningSeen, type Mem } from './mem.js';

const NMLIVE_W = S_RT_NMLIVE >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NMIDLE_W = S_NMIDLE >> 2;
const NMSPINNING_W = S_NMSPINNING >> 2;
const NEXTP = M_NEXTP >> 2;
const SPINNING = M_SPINNING >> 2;
const P_M_W = P_M >> 2;
const WAKEUPS = PC_WAKEUPS >> 3;

/** Pushes P p on the no-M list. Holds sched.lock. */
export function pnomPut(m: Mem, p: number): void {
  plistPush(m, S_RT_PNOM, p);
  plistCount(m, S_RT_NPNOM, 1); // the runtime reads it lock-free (startm.ts)
}

/** Pops a P off the no-M list; NONE when it is empty. Holds sched.lock. */
export function pnomGet(m: Mem): number {
  const p = plistPop(m, S_RT_PNOM);
  if (p !== NONE) plistCount(m, S_RT_NPNOM, -1); // the runtime reads it lock-free (startm.ts)
  return p;
}

/** Moves idle P p to the no-M list (start-up). Returns 1, or 0 when p is not on the idle list.
 *  Any thread; takes sched.lock. */
export function pDetach(m: Mem, p: number): number {
  if (p < 0 || p >= nprocs(m)) return 0;
  schedLock(m);
  const ok = pidleRemove(m, p);
  if (ok) pnomPut(m, p);
  schedUnlock(m);
  return ok ? 1 : 0;
}

/** M mi's thread has started (Go's mstart for startm(pp, true)): mi counts as live and takes a P
 *  without an M if there is one, handed over in M_NEXTP with mi counted spinning (the caller
 *  acquires it); else mi goes on the idle list. Returns the P, or NONE. M mi without a P only,
 *  once, before its first sleep. */
export function mStart(m: Mem, mi: number): number {
  const i32 = m.i32;
  schedLock(m);
  Atomics.store(i32, NMLIVE_W, i32[NMLIVE_W] + 1); // pairs with the runtime's lock-free load
  const p = pnomGet(m);
  if (p < 0) {
    mPutLocked(m, mi);
    schedUnlock(m);
    return NONE;
  }
  const mw = mWord(m, mi);
  Atomics.store(i32, mw + NEXTP, p + 1); // pairs with the load in acquireP
  Atomics.store(i32, mw + SPINNING, 1); // pairs with the spinning loads in findRunnable/stopM
  spinningSeen(m, Atomics.add(i32, NMSPINNING_W, 1) + 1); // pairs with the nmspinning load/CAS in wakep
  Atomics.store(i32, pWord(p) + P_M_W, mi + 1); // pairs with the runtime's loads
  m.f64[pCounters(p) + WAKEUPS] += 1; // under sched.lock: p has no owner yet
  schedUnlock(m);
  return p;
}

/** M mi, idle for idleTimeout, leaves if more than `min` Ms are live and it is still on the idle
 *  list; then, if the idle Ps outnumber the idle Ms, one idle P goes to the no-M list. 1 when mi
 *  leaves, 0 when it stays. M mi, asleep without a P, only. */
export function mExit(m: Mem, mi: number, min: number): number {
  const i32 = m.i32;
  schedLock(m);
  if (i32[NMLIVE_W] <= min || !mRemove(m, mi)) { // plain: under sched.lock
    schedUnlock(m);
    return 0;
  }
  Atomics.store(i32, NMLIVE_W, i32[NMLIVE_W] - 1); // pairs with the runtime's lock-free load
  if (Atomics.load(i32, NPIDLE_W) > i32[NMIDLE_W]) pnomPut(m, pidleGet(m)); // plain nmidle: under sched.lock
  schedUnlock(m);
  return 1;
}
