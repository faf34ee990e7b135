// The monitor's calls into the core: the spare-P reserve, the handoff and the give-back, the twin
// of assembly/sysmon.ts (docs/DESIGN.md, "sysmon and handoff"). The reserve is a LIFO list of
// P index + 1 linked through P_LINK, changed only under sched.lock; reserved Ps are P_IDLE and
// off the idle list, so no M runs them and no thief visits them.

import {
  NONE, M_NEXTP, M_PARK, M_SPINNING, PARK_P, PC_PARKS, PC_WAKEUPS, P_IDLE, P_M, P_STATUS,
  S_NMSPINNING, S_NPIDLE, S_RT_HANDOFFS, S_RT_NPRESERVE, S_RT_PRESERVE, S_RT_RETIRES,
} from '../../../assembly/shared/layout.js';
import { globrunqPutBatch } from './globrunq.js';
import { gSetLink } from './gtable.js';
import { mGet, mPutLocked, pidleGet, pidleRemove } from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { plistCount, plistPop, plistPush } from './plist.js';
import { mWord, nprocs, opCall, pCounters, pWord, spinningSeen, type Mem } from './mem.js';
import { runqGet } from './runq.js';
import { wakep } from './sched.js';

const PRESERVE_W = S_RT_PRESERVE >> 2;
const HANDOFFS_W = S_RT_HANDOFFS >> 2;
const RETIRES_W = S_RT_RETIRES >> 2;
const NMSPINNING_W = S_NMSPINNING >> 2;
const P_M_W = P_M >> 2;
const NEXTP = M_NEXTP >> 2;
const SPINNING = M_SPINNING >> 2;
const PARK = M_PARK >> 2;
const WAKEUPS = PC_WAKEUPS >> 3;
const PARKS = PC_PARKS >> 3;
const P_STATUS_W = P_STATUS >> 2;
const NPIDLE_W = S_NPIDLE >> 2;

/** Pushes P p on the reserve. Holds sched.lock. */
function preservePut(m: Mem, p: number): void {
  plistPush(m, S_RT_PRESERVE, p);
  plistCount(m, S_RT_NPRESERVE, 1); // the monitor reads it lock-free
}

/** Moves idle P p to the reserve (start-up). Returns 1, or 0 when p is not on the idle list.
 *  Any thread; takes sched.lock. */
export function pReserve(m: Mem, p: number): number {
  if (p < 0 || p >= nprocs(m)) return 0;
  schedLock(m);
  const ok = pidleRemove(m, p);
  if (ok) preservePut(m, p);
  schedUnlock(m);
  return ok ? 1 : 0;
}

/** Moves some idle P to the reserve (its M stays idle); returns it, or NONE when none is idle.
 *  Any thread; takes sched.lock. */
export function pRetire(m: Mem): number {
  schedLock(m);
  const p = pidleGet(m);
  if (p >= 0) {
    preservePut(m, p);
    m.i32[RETIRES_W] += 1; // plain: under sched.lock
  }
  schedUnlock(m);
  return p;
}

/** Go's handoffp, the lending form: a reserved P goes to an idle M, counted spinning, which is
 *  woken. Returns the P, or NONE when the reserve or the idle-M list is empty. Any thread. */
export function handoff(m: Mem): number {
  const i32 = m.i32;
  schedLock(m);
  if (i32[PRESERVE_W] === 0) { schedUnlock(m); return NONE; } // plain: under sched.lock
  const mm = mGet(m);
  if (mm < 0) { schedUnlock(m); return NONE; }
  const p = plistPop(m, S_RT_PRESERVE);
  plistCount(m, S_RT_NPRESERVE, -1); // the monitor reads it lock-free
  const w = pWord(p);
  const mw = mWord(m, mm);
  Atomics.store(i32, mw + NEXTP, p + 1); // read by acquireP after the park handshake
  Atomics.store(i32, mw + SPINNING, 1); // counted just below
  spinningSeen(m, Atomics.add(i32, NMSPINNING_W, 1) + 1); // pairs with the nmspinning loads in wakep/ready
  Atomics.store(i32, w + P_M_W, mm + 1); // read by schedtrace
  m.f64[pCounters(p) + WAKEUPS] += 1; // plain: p has no owner yet, under sched.lock
  i32[HANDOFFS_W] += 1; // plain: under sched.lock
  schedUnlock(m);
  Atomics.or(i32, mw + PARK, PARK_P); // pairs with the park swap in the M's sleep loop
  Atomics.notify(i32, mw + PARK, 1);
  return p;
}

/** M mi gives P p back to the reserve, at the monitor's request (a lent spare is out, fewer Ps
 *  are stuck, and no P goes idle for pRetire): p's runnable Gs (runnext, then the ring) go to
 *  the global queue as one batch, p to the reserve, mi to the idle list; then mi sleeps as
 *  after stopM. Wakes an M if the moved Gs need one. Returns how many Gs moved. M mi holding P
 *  p only, between two Gs. */
export function pGiveBack(m: Mem, p: number, mi: number): number {
  opCall(m, p);
  return pRelease(m, p, mi, S_RT_PRESERVE, S_RT_NPRESERVE, S_RT_RETIRES);
}

/** P p's runnable Gs (runnext, then the ring) go to the global queue as one batch; how many. As
 *  the owner: a thief racing for the same Gs is settled by its CAS, as always. The owner of p
 *  only, giving it up (pRelease, handoffP). */
export function runqToGlobal(m: Mem, p: number): number {
  let head = 0;
  let tail = 0;
  let n = 0;
  for (let g = runqGet(m, p); g !== 0; g = runqGet(m, p)) {
    if (tail === 0) head = g;
    else gSetLink(m, tail, g); // plain: the batch is ours until the lock publishes it
    tail = g;
    n++;
  }
  globrunqPutBatch(m, head, tail, n);
  return n;
}

/** pGiveBack's body, for any list of Ps that no M runs (the reserve; the Ps out of service,
 *  procresize.ts's pStop): p's runnable Gs go to the global queue as one batch; under the lock p
 *  goes P_IDLE onto the list at byte address `list` (linked through P_LINK), the count at `count`
 *  (if not 0) and the counter at `tally` (if not 0) go up by one, and mi goes on the idle list.
 *  Wakes an M if the moved Gs need one. Returns how many Gs moved. M mi holding P p only,
 *  between two Gs. */
export function pRelease(m: Mem, p: number, mi: number, list: number, count: number, tally: number): number {
  const n = runqToGlobal(m, p);
  schedLock(m);
  const i32 = m.i32;
  const w = pWord(p);
  Atomics.store(i32, w + P_STATUS_W, P_IDLE); // pairs with the status loads of thieves
  Atomics.store(i32, w + P_M_W, 0); // under sched.lock; read by schedtrace
  plistPush(m, list, p);
  if (count !== 0) plistCount(m, count, 1);
  m.f64[pCounters(p) + PARKS] += 1; // plain: under sched.lock, p has no owner now
  if (tally !== 0) i32[tally >> 2] += 1; // plain: under sched.lock
  // An M between two Gs is not spinning (execute reset it); as in stopM, never put a flagged M
  // on the idle list.
  const mw = mWord(m, mi);
  const spinning = Atomics.load(i32, mw + SPINNING) !== 0; // own flag
  if (spinning) Atomics.store(i32, mw + SPINNING, 0);
  mPutLocked(m, mi);
  schedUnlock(m);
  if (spinning) Atomics.sub(i32, NMSPINNING_W, 1); // pairs with the nmspinning loads in wakep
  // The moved Gs are published (the lock) before these loads, as in ready.
  if (n > 0 && Atomics.load(i32, NPIDLE_W) > 0 && Atomics.load(i32, NMSPINNING_W) === 0) wakep(m);
  return n;
}
