// procresize: GOMAXPROCS at run time, the twin of assembly/procresize.ts (docs/DESIGN.md
// "Resizing: procs at run time"). The Ps out of service wait on S_RT_PDEAD (linked through
// P_LINK, changed under sched.lock), P_IDLE and off every other list; S_RT_NPDEAD counts them and
// each P an M is still giving back. A shrink takes the Ps no M runs at once and asks Ms between
// two Gs for the rest (S_RT_SHRINK, pStop).

import { NONE, S_NMIDLE, S_NPIDLE, S_RT_NPDEAD, S_RT_PDEAD, S_RT_SHRINK } from '../../../assembly/shared/layout.js';
import { pidlePut, pidleRemove } from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { plistCount, plistPop, plistPush } from './plist.js';
import { opCall, type Mem } from './mem.js';
import { pnomGet, pnomPut } from './mlife.js';
import { pRelease } from './sysmon.js';

const SHRINK_W = S_RT_SHRINK >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NMIDLE_W = S_NMIDLE >> 2;

/** Adds d to S_RT_NPDEAD. Holds sched.lock. */
function npdeadAdd(m: Mem, d: number): void {
  plistCount(m, S_RT_NPDEAD, d); // the runtime reads it lock-free
}

/** Sets the Ps in service to `target` of `total` (maxProcs): see assembly/procresize.ts. Returns
 *  how many Ps are still to move (0: done; the caller calls again until then). Any thread. */
export function procresize(m: Mem, target: number, total: number): number {
  const i32 = m.i32;
  schedLock(m);
  const live = total - Atomics.load(i32, S_RT_NPDEAD >> 2); // pairs with the stores under sched.lock
  let k = 0;
  if (target < live) {
    k = live - target;
    for (let p = pnomGet(m); p >= 0 && k > 0; p = k > 0 ? pnomGet(m) : NONE) { plistPush(m, S_RT_PDEAD, p); npdeadAdd(m, 1); k--; }
    for (let p = total - 1; p >= 0 && k > 0; p--) {
      if (pidleRemove(m, p)) { plistPush(m, S_RT_PDEAD, p); npdeadAdd(m, 1); k--; }
    }
    Atomics.store(i32, SHRINK_W, k); // pairs with the Ms' lock-free load between two Gs
  } else {
    Atomics.store(i32, SHRINK_W, 0); // pairs with the Ms' lock-free load: a give-back not begun is withdrawn
    k = target - live;
    while (k > 0) {
      const p = plistPop(m, S_RT_PDEAD);
      if (p < 0) break; // an M's give-back still under way
      npdeadAdd(m, -1);
      if (i32[NMIDLE_W] > Atomics.load(i32, NPIDLE_W)) pidlePut(m, p); // plain nmidle: under sched.lock
      else pnomPut(m, p);
      k--;
    }
  }
  schedUnlock(m);
  return k;
}

/** M mi gives its P p out of service if procresize still asks for one; how many Gs moved, or
 *  NONE (mi keeps p). M mi holding P p only, between two Gs. */
export function pStop(m: Mem, p: number, mi: number): number {
  const i32 = m.i32;
  opCall(m, p);
  schedLock(m);
  const k = Atomics.load(i32, SHRINK_W); // pairs with procresize's stores
  if (k <= 0) {
    schedUnlock(m);
    return NONE;
  }
  Atomics.store(i32, SHRINK_W, k - 1); // pairs with the Ms' lock-free load
  npdeadAdd(m, 1); // counted now: a procresize before the P lands sees it out of service
  schedUnlock(m);
  return pRelease(m, p, mi, S_RT_PDEAD, 0, 0);
}
