// The idle-P and idle-M lists (docs/DESIGN.md, "Spin, then park"; Go's pidleput, pidleget,
// mput, mget).
//
// Both are LIFO stacks of index + 1 (0 ends a list) linked through P_LINK / M_LINK, and change
// only under sched.lock. A P or M taken off a list has its link cleared. S_NPIDLE is also
// changed atomically, because spinning Ms and submitters read it without the lock.

import {
  NONE, M_LINK, MR_ASYNC, P_LINK, S_MIDLE, S_NMIDLE, S_NPIDLE, S_PIDLE, S_RT_NPDEAD, S_RT_NPNOM, S_RT_NPRESERVE,
} from './shared/layout';
import { mAddr, nprocs, pAddr } from './mem';
import { plistPop, plistPush } from './plist';

/**
 * Ps held by an M now: every P but the idle ones, the spares in the reserve, those without an M
 * and those out of service (Go's gomaxprocs - npidle: each of the others is off every queue a
 * thief visits). Go's spin limit counts these. Any thread; a snapshot.
 */
export function npBusy(): i32 {
  let n = nprocs() - atomic.load<i32>(S_NPIDLE) - atomic.load<i32>(S_RT_NPRESERVE) // pairs with the lists' stores under sched.lock
    - atomic.load<i32>(S_RT_NPNOM) - atomic.load<i32>(S_RT_NPDEAD); // the same
  return n > 0 ? n : 0;
}

/** Pushes P p on the idle-P list and counts it in npidle. Holds sched.lock. */
export function pidlePut(p: i32): void {
  plistPush(S_PIDLE, p);
  atomic.add<i32>(S_NPIDLE, 1); // pairs with lock-free npidle loads in ready/findRunnable
}

/** Pops an idle P; NONE when none. Holds sched.lock. */
export function pidleGet(): i32 {
  let p = plistPop(S_PIDLE);
  if (p != NONE) atomic.sub<i32>(S_NPIDLE, 1); // pairs with lock-free npidle loads in ready/findRunnable
  return p;
}

/** Unlinks P p from the idle list; false when it is not there. Holds sched.lock. */
export function pidleRemove(p: i32): bool {
  let want = <u32>p + 1;
  let link: usize = S_PIDLE; // the word that points at the current entry
  let cur = load<u32>(link); // plain: sched.lock held
  while (cur != 0) {
    let pp = pAddr(<i32>cur - 1);
    if (cur == want) {
      store<u32>(link, load<u32>(pp, P_LINK)); // plain: sched.lock held
      store<u32>(pp, 0, P_LINK); // plain: sched.lock held
      atomic.sub<i32>(S_NPIDLE, 1); // pairs with lock-free npidle loads in ready/findRunnable
      return true;
    }
    link = pp + P_LINK;
    cur = load<u32>(link); // plain: sched.lock held
  }
  return false;
}

/** Pushes M m on the idle-M list. Holds sched.lock. */
export function mPutLocked(m: i32): void {
  store<u32>(mAddr(m), load<u32>(S_MIDLE), M_LINK); // plain: sched.lock held
  store<u32>(S_MIDLE, <u32>m + 1); // plain: sched.lock held
  store<u32>(S_NMIDLE, load<u32>(S_NMIDLE) + 1); // plain: sched.lock held
}

/**
 * Pops an idle M, NONE when none: the first on the list with no async task pinned to it
 * (MR_ASYNC 0), else the top. An M with async tasks may be running one's continuation (user code
 * on its event loop, which no wake-up interrupts), so it is handed work only when no other M is
 * idle (DESIGN.md "Async tasks: where they start"). Holds sched.lock.
 */
export function mGet(): i32 {
  let top = load<u32>(S_MIDLE); // plain: sched.lock held
  if (top == 0) return NONE;
  let link: usize = S_MIDLE; // the word that points at the current entry
  let cur = top;
  while (cur != 0 && atomic.load<u32>(mAddr(<i32>cur - 1), MR_ASYNC) != 0) { // pairs with the owner's store (runtime mstate.ts)
    link = mAddr(<i32>cur - 1) + M_LINK;
    cur = load<u32>(link); // plain: sched.lock held
  }
  if (cur == 0) {
    link = S_MIDLE;
    cur = top;
  }
  let mp = mAddr(<i32>cur - 1);
  store<u32>(link, load<u32>(mp, M_LINK)); // plain: sched.lock held
  store<u32>(mp, 0, M_LINK); // plain: sched.lock held
  store<u32>(S_NMIDLE, load<u32>(S_NMIDLE) - 1); // plain: sched.lock held
  return <i32>cur - 1;
}

/** Unlinks M m from anywhere in the idle-M list; false when it is not there. Holds sched.lock. */
export function mRemove(m: i32): bool {
  let want = <u32>m + 1;
  let link: usize = S_MIDLE; // the word that points at the current entry
  let cur = load<u32>(link); // plain: sched.lock held
  while (cur != 0) {
    let mp = mAddr(<i32>cur - 1);
    if (cur == want) {
      store<u32>(link, load<u32>(mp, M_LINK)); // plain: sched.lock held
      store<u32>(mp, 0, M_LINK); // plain: sched.lock held
      store<u32>(S_NMIDLE, load<u32>(S_NMIDLE) - 1); // plain: sched.lock held
      return true;
    }
    link = mp + M_LINK;
    cur = load<u32>(link); // plain: sched.lock held
  }
  return false;
}
