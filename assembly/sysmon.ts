// The monitor's calls into the core: the spare-P reserve and the handoff (docs/DESIGN.md,
// "sysmon and handoff").
//
// JS cannot take a P away from a thread that is running user code without a check on every
// owner operation (a CAS per spawn), so the monitor lends a spare P instead: the core is laid
// out with nprocs = procs + spares, the spares start in a reserve that no M runs and no thief
// visits (status P_IDLE, off the idle list), and when a P has run one G too long with work
// queued, handoff() gives a reserved P to an idle M, counted spinning, which steals the stuck
// P's queue (the queue of a running P is public to thieves). pRetire() puts an idle P back;
// when none goes idle, pGiveBack() is how a busy M, asked by the monitor, returns its own.
//
// The reserve is a LIFO list of P index + 1 linked through P_LINK, like the idle list, and
// changes only under sched.lock.

import {
  NONE, G_SCHEDLINK, M_NEXTP, M_PARK, M_SPINNING, PARK_P, PC_PARKS, PC_WAKEUPS, P_COUNTERS, P_IDLE,
  P_M, P_STATUS, S_NMSPINNING, S_NPIDLE, S_RT_HANDOFFS, S_RT_NPRESERVE, S_RT_PRESERVE, S_RT_RETIRES,
} from './shared/layout';
import { counterAdd, mAddr, nprocs, opCall, pAddr, spinningSeen } from './mem';
import { schedLock, schedUnlock } from './lock';
import { plistCount, plistPop, plistPush } from './plist';
import { mGet, mPutLocked, pidleGet, pidleRemove } from './idle';
import { gAddr } from './gtable';
import { runqGet } from './runq';
import { globrunqPutBatch } from './globrunq';
import { wakep } from './sched';

/** Pushes P p on the reserve. Holds sched.lock. */
function preservePut(p: i32): void {
  plistPush(S_RT_PRESERVE, p);
  plistCount(S_RT_NPRESERVE, 1); // the monitor reads it lock-free
}

/**
 * Moves idle P p to the reserve (start-up: the runtime reserves its spare Ps). Returns 1, or 0
 * when p is not on the idle list. Any thread.
 */
export function pReserve(p: i32): i32 {
  if (p < 0 || p >= nprocs()) return 0;
  schedLock();
  let ok = pidleRemove(p);
  if (ok) preservePut(p);
  schedUnlock();
  return ok ? 1 : 0;
}

/**
 * Moves some idle P to the reserve (the monitor: a stuck P got going again, so the lent P goes
 * back). Its M stays on the idle list: an idle P still always has an idle M. Returns the P, or
 * NONE when no P is idle. Any thread.
 */
export function pRetire(): i32 {
  schedLock();
  let p = pidleGet();
  if (p >= 0) {
    preservePut(p);
    store<u32>(S_RT_RETIRES, load<u32>(S_RT_RETIRES) + 1); // plain: sched.lock held
  }
  schedUnlock();
  return p;
}

/**
 * Go's handoffp, the lending form: takes a reserved P and an idle M, hands the P over in
 * M_NEXTP with the M counted spinning (it will steal the stuck P's queue), and wakes it.
 * Returns the P, or NONE when the reserve or the idle-M list is empty. Any thread.
 */
export function handoff(): i32 {
  schedLock();
  if (load<u32>(S_RT_PRESERVE) == 0) { schedUnlock(); return NONE; } // plain: sched.lock held
  let m = mGet();
  if (m < 0) { schedUnlock(); return NONE; }
  let p = plistPop(S_RT_PRESERVE);
  let pp = pAddr(p);
  plistCount(S_RT_NPRESERVE, -1); // the monitor reads it lock-free
  let mp = mAddr(m);
  atomic.store<u32>(mp, <u32>p + 1, M_NEXTP); // pairs with the load in acquireP
  atomic.store<u32>(mp, 1, M_SPINNING); // pairs with the spinning loads in findRunnable/stopM
  spinningSeen(atomic.add<i32>(S_NMSPINNING, 1) + 1); // pairs with the nmspinning load/CAS in wakep
  atomic.store<u32>(pp, <u32>m + 1, P_M); // pairs with the runtime's loads
  counterAdd(pp + (P_COUNTERS + PC_WAKEUPS), 1); // sched.lock held: pp has no owner yet
  store<u32>(S_RT_HANDOFFS, load<u32>(S_RT_HANDOFFS) + 1); // plain: sched.lock held
  schedUnlock();
  atomic.or<u32>(mp, PARK_P, M_PARK); // keeps the runtime's other bits: pairs with the sleeping M's exchange
  atomic.notify(mp + M_PARK, 1); // pairs with the park loop's wait32
  return p;
}

/**
 * M m gives P p back to the reserve, at the monitor's request (a lent spare is out, fewer Ps are
 * stuck than spares are out, and no P goes idle for pRetire): p's runnable Gs (runnext, then the
 * ring) go to the global queue as one batch, p to the reserve, m to the idle list; then m sleeps
 * as after stopM. Wakes an M if the moved Gs need one. Returns how many Gs moved. M m holding P
 * p only, between two Gs.
 */
export function pGiveBack(p: i32, m: i32): i32 {
  opCall(p);
  return pRelease(p, m, S_RT_PRESERVE, S_RT_NPRESERVE, S_RT_RETIRES);
}

/**
 * P p's runnable Gs (runnext, then the ring) go to the global queue as one batch; how many. As
 * the owner: a thief racing for the same Gs is settled by its CAS, as always. The owner of p
 * only, giving it up (pRelease, handoffP).
 */
export function runqToGlobal(p: i32): u32 {
  let head: u32 = 0;
  let tail: u32 = 0;
  let n: u32 = 0;
  for (let g = runqGet(p); g != 0; g = runqGet(p)) {
    if (tail == 0) head = g;
    else store<u32>(gAddr(tail), g, G_SCHEDLINK); // plain: the batch is ours until the lock publishes it
    tail = g;
    n++;
  }
  globrunqPutBatch(head, tail, n);
  return n;
}

/**
 * pGiveBack's body, for any list of Ps that no M runs (the reserve; the Ps out of service,
 * procresize.ts's pStop): p's runnable Gs go to the global queue as one batch; under the lock p
 * goes P_IDLE onto the list at `list` (linked through P_LINK), `count` (if not 0) and the u32
 * counter `tally` (if not 0) go up by one, and m goes on the idle list, as stopM leaves them.
 * Wakes an M if the moved Gs need one. Returns how many Gs moved. M m holding P p only, between
 * two Gs.
 */
export function pRelease(p: i32, m: i32, list: usize, count: usize, tally: usize): i32 {
  let pp = pAddr(p);
  let mp = mAddr(m);
  let n = runqToGlobal(p);
  schedLock();
  atomic.store<u32>(pp, P_IDLE, P_STATUS); // pairs with status loads in stealWork/workAnywhere
  atomic.store<u32>(pp, 0, P_M); // pairs with the runtime's loads
  plistPush(list, p);
  if (count != 0) plistCount(count, 1);
  counterAdd(pp + (P_COUNTERS + PC_PARKS), 1); // sched.lock held: p has no owner now
  if (tally != 0) store<u32>(tally, load<u32>(tally) + 1); // plain: sched.lock held
  // An M between two Gs is not spinning (execute reset it); as in stopM, never put a flagged M
  // on the idle list.
  let spinning = atomic.load<u32>(mp, M_SPINNING) != 0; // own flag
  if (spinning) atomic.store<u32>(mp, 0, M_SPINNING);
  mPutLocked(m);
  schedUnlock();
  if (spinning) atomic.sub<i32>(S_NMSPINNING, 1); // pairs with the nmspinning load/CAS in wakep
  // The moved Gs are published (the lock) before these loads, as in ready.
  if (n > 0 && atomic.load<i32>(S_NPIDLE) > 0 && atomic.load<i32>(S_NMSPINNING) == 0) wakep(); // pairs with the npidle/nmspinning RMWs
  return <i32>n;
}
