// The idle-P and idle-M lists: Go's pidleput, pidleget, mput, mget
// (docs/DESIGN.md, "Spin, then park").
//
// Both are LIFO lists of index + 1 (0 ends them), linked through P_LINK and M_LINK, changed
// only under sched.lock. Taking an entry off a list clears its link word. S_NPIDLE is also
// read lock-free, so it changes by atomic RMW.

import {
  NONE, M_LINK, MR_ASYNC, P_LINK, S_MIDLE, S_NMIDLE, S_NPIDLE, S_PIDLE, S_RT_NPDEAD, S_RT_NPNOM, S_RT_NPRESERVE,
} from '../../../assembly/shared/layout.js';
import { mWord, nprocs, pWord, type Mem } from './mem.js';
import { plistPop, plistPush } from './plist.js';

const PIDLE_W = S_PIDLE >> 2;
const MIDLE_W = S_MIDLE >> 2;
const NMIDLE_W = S_NMIDLE >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const PLINK = P_LINK >> 2;
const MLINK = M_LINK >> 2;
const ASYNC = MR_ASYNC >> 2;
const NPRESERVE_W = S_RT_NPRESERVE >> 2;
const NPNOM_W = S_RT_NPNOM >> 2;
const NPDEAD_W = S_RT_NPDEAD >> 2;

/** Ps held by an M now: every P but the idle ones, the spares in the reserve, those without an
 *  M and those out of service (Go's gomaxprocs - npidle: each of the others is off every queue a
 *  thief visits). Go's spin limit counts these. Any thread; a snapshot. */
export function npBusy(m: Mem): number {
  const i32 = m.i32;
  const n = nprocs(m) - Atomics.load(i32, NPIDLE_W) - Atomics.load(i32, NPRESERVE_W) // pairs with the lists' stores under sched.lock
    - Atomics.load(i32, NPNOM_W) - Atomics.load(i32, NPDEAD_W); // the same
  return n > 0 ? n : 0;
}

/** Pushes P p on the idle-P list. Holds sched.lock. */
export function pidlePut(m: Mem, p: number): void {
  plistPush(m, S_PIDLE, p);
  Atomics.add(m.i32, NPIDLE_W, 1); // pairs with lock-free npidle loads (ready, findRunnable)
}

/** Pops an idle P; NONE when none. Holds sched.lock. */
export function pidleGet(m: Mem): number {
  const p = plistPop(m, S_PIDLE);
  if (p !== NONE) Atomics.sub(m.i32, NPIDLE_W, 1); // pairs with lock-free npidle loads (ready, findRunnable)
  return p;
}

/** Unlinks P p from the idle list; false when it is not there. Holds sched.lock. */
export function pidleRemove(m: Mem, p: number): boolean {
  const i32 = m.i32;
  // plain throughout: under sched.lock
  let at = PIDLE_W; // the word holding the current entry
  for (let e = i32[at]; e !== 0; e = i32[at]) {
    if (e === p + 1) {
      const w = pWord(p);
      i32[at] = i32[w + PLINK];
      i32[w + PLINK] = 0;
      Atomics.sub(i32, NPIDLE_W, 1); // pairs with lock-free npidle loads (ready, findRunnable)
      return true;
    }
    at = pWord(e - 1) + PLINK;
  }
  return false;
}

/** Is any P on the idle-P list? Holds sched.lock. */
export function pidleAny(m: Mem): boolean {
  return m.i32[PIDLE_W] !== 0; // plain: under sched.lock
}

/** Pushes M mi on the idle-M list. Holds sched.lock. */
export function mPutLocked(m: Mem, mi: number): void {
  const i32 = m.i32;
  i32[mWord(m, mi) + MLINK] = i32[MIDLE_W]; // plain: under sched.lock
  i32[MIDLE_W] = mi + 1;
  i32[NMIDLE_W] += 1;
}

/** Is any M on the idle-M list? Holds sched.lock. */
export function mIdleAny(m: Mem): boolean {
  return m.i32[MIDLE_W] !== 0; // plain: under sched.lock
}

/** Pops an idle M, NONE when none: the first on the list with no async task pinned to it
 *  (MR_ASYNC 0), else the top. An M with async tasks may be running one's continuation, which no
 *  wake-up interrupts (DESIGN.md "Async tasks: where they start"). Holds sched.lock. */
export function mGet(m: Mem): number {
  const i32 = m.i32;
  const top = i32[MIDLE_W]; // plain: under sched.lock
  if (top === 0) return NONE;
  let at = MIDLE_W; // the word holding the current entry
  let e = top;
  while (e !== 0 && Atomics.load(i32, mWord(m, e - 1) + ASYNC) !== 0) { // pairs with the owner's store (runtime mstate.ts)
    at = mWord(m, e - 1) + MLINK;
    e = i32[at]; // plain: under sched.lock
  }
  if (e === 0) {
    at = MIDLE_W;
    e = top;
  }
  const w = mWord(m, e - 1);
  i32[at] = i32[w + MLINK]; // plain: under sched.lock
  i32[w + MLINK] = 0;
  i32[NMIDLE_W] -= 1;
  return e - 1;
}

/** Unlinks M mi from wherever it sits on the idle-M list; false if it is not there.
 *  Holds sched.lock. */
export function mRemove(m: Mem, mi: number): boolean {
  const i32 = m.i32;
  // plain throughout: under sched.lock
  let at = MIDLE_W; // the word holding the current entry
  for (let e = i32[at]; e !== 0; e = i32[at]) {
    if (e === mi + 1) {
      const w = mWord(m, mi);
      i32[at] = i32[w + MLINK];
      i32[w + MLINK] = 0;
      i32[NMIDLE_W] -= 1;
      return true;
    }
    at = mWord(m, e - 1) + MLINK;
  }
  return false;
}
