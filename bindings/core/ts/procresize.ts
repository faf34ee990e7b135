// procresize: GOMAXPROCS at run time, the twin of assembly/procresize.ts (docs/DESIGN.md
// "Resizing: procs at run time"). The Ps out of service wait on S_RT_PDEAD (linked through
// P_LINK, changed under sched.lock), P_IDLE and off every other list; S_RT_NPDEAD counts them and
// each P an M is still giving back. A shrink takes the Ps no M runs at once and asks Ms between
// two Gs for the rest (S_RT_SHRINK, pStop).

import { NONE, P_LINK, S_NMIDLE, S_NPIDLE, S_RT_NPDEAD, S_RT_PDEAD, S_RT_SHRINK } from '../../../assembly/shared/layout.js';
import { pidlePut, pidleRemove } from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { opCall, pWord, type Mem } from './mem.js';
import { pnomGet, pnomPut } from './mlife.js';
import { pRelease } from './sysmon.js';

const PDEAD_W = S_RT_PDEAD >> 2;
const NPDEAD_W = S_RT_NPDEAD >> 2;
const SHRINK_W = S_RT_SHRINK >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NMIDLE_W = S_NMIDLE >> 2;
const PLINK = P_LINK >> 2;

/** Pushes P p on the out-of-service list (its count is the caller's). Holds sched.lock. */
function pdeadPut(m: Mem, p: number): void {
  const i32 = m.i32;
  i32[pWord(p) + PLINK] = i32[PDEAD_W]; // plain: under sched.lock
  i32[PDEAD_W] = p + 1;
}

/** Pops a P off the out-of-service list; NONE when it is empty. Holds sched.lock. */
function pdeadGet(m: Mem): number {
  const i32 = m.i32;
  const top = i32[PDEAD_W]; // plain: under sched.lock
  if (top === 0) return NONE;
  const w = pWord(top - 1);
  i32[PDEAD_W] = i32[w + PLINK]; // plain: under sched.lock
  i32[w + PLINK] = 0;
  return top - 1;
}

/** Adds d to S_RT_NPDEAD. Holds sched.lock. */
function npdeadAdd(m: Mem, d: number): void {
  Atomics.store(m.i32, NPDEAD_W, m.i32[NPDEAD_W] + d); // pairs with the runtime's lock-free load
}

/** Sets the Ps in service to `target` of `total` (maxProcs): see assembly/procresize.ts. Returns
 *  how many Ps are still to move (0: done; the caller calls again until then). Any thread. */
export function procresize(m: Mem, target: number, total: number): number {
  const i32 = m.i32;
  schedLock(m);
  const live = total - Atomics.load(i32, NPDEAD_W); // pairs with the stores under sched.lock
  let k = 0;
  if (target < live) {
    k = live - target;
    for (let p = pnomGet(m); p >= 0 && k > 0; p = k > 0 ? pnomGet(m) : NONE) { pdeadPut(m, p); npdeadAdd(m, 1); k--; }
    for (let p = total - 1; p >= 0 && k > 0; p--) {
      if (pidleRemove(m, p)) { pdeadPut(m, p); npdeadAdd(m, 1); k--; }
    }
    Atomics.store(i32, SHRINK_W, k); // pairs with the Ms' lock-free load between two Gs
  } else {
    Atomics.store(i32, SHRINK_W, 0); // pairs with the Ms' lock-free load: a give-back not begun is withdrawn
    k = target - live;
    while (k > 0) {
      const p = pdeadGet(m);
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
