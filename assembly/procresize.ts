// procresize: GOMAXPROCS at run time (docs/DESIGN.md "Resizing: procs at run time"; Go's
// procresize and runtime.GOMAXPROCS(n)). The core is laid out with maxProcs Ps (and the spares);
// the Ps out of service, Go's _Pdead ones, wait on a list of their own (S_RT_PDEAD, linked
// through P_LINK, changed under sched.lock), P_IDLE and off every other list, so no M runs them
// and no thief visits them. S_RT_NPDEAD counts them, and also each P an M is still giving back.
//
// Go stops the world to resize; JS cannot stop a thread that runs user code, so a shrink takes
// the Ps no M runs at once (those without an M, then idle ones) and asks for the rest: the
// first Ms to look between two Gs (every 64, with the monitor's give-back) each give theirs back
// (pStop), their queues going to the global queue. A P is only ever moved out of service while
// no M runs it or by its own M, so no G is stranded on it.

import { NONE, S_NMIDLE, S_NPIDLE, S_RT_NPDEAD, S_RT_PDEAD, S_RT_SHRINK } from './shared/layout';
import { opCall } from './mem';
import { schedLock, schedUnlock } from './lock';
import { plistCount, plistPop, plistPush } from './plist';
import { pidlePut, pidleRemove } from './idle';
import { pnomGet, pnomPut } from './mlife';
import { pRelease } from './sysmon';

/** Adds d to S_RT_NPDEAD. Holds sched.lock. */
@inline function npdeadAdd(d: i32): void {
  plistCount(S_RT_NPDEAD, d); // the runtime reads it lock-free
}

/**
 * Sets the number of Ps in service to `target` out of `total` (maxProcs; the spares are not
 * counted: the monitor lends and takes them back as before). Growing moves Ps from the
 * out-of-service list to the idle list when an idle M is there for each, else to the no-M list
 * (startm starts their threads when work waits), and withdraws any shrink asked for. Shrinking
 * moves Ps without an M, then idle Ps, out of service, and asks Ms for the rest (S_RT_SHRINK).
 * Returns how many Ps are still to move: given back by Ms still to look, or to bring back once an
 * M's give-back lands; 0 when done. The caller calls it again until it returns 0. Any thread.
 */
export function procresize(target: i32, total: i32): i32 {
  schedLock();
  let live = total - atomic.load<i32>(S_RT_NPDEAD); // pairs with the stores under sched.lock
  let k: i32 = 0;
  if (target < live) {
    k = live - target;
    for (let p = pnomGet(); p >= 0 && k > 0; p = k > 0 ? pnomGet() : NONE) { plistPush(S_RT_PDEAD, p); npdeadAdd(1); k--; }
    for (let p = total - 1; p >= 0 && k > 0; p--) {
      if (pidleRemove(p)) { plistPush(S_RT_PDEAD, p); npdeadAdd(1); k--; }
    }
    atomic.store<i32>(S_RT_SHRINK, k); // pairs with the Ms' lock-free load between two Gs
  } else {
    atomic.store<i32>(S_RT_SHRINK, 0); // pairs with the Ms' lock-free load: a give-back not begun is withdrawn
    k = target - live;
    while (k > 0) {
      let p = plistPop(S_RT_PDEAD);
      if (p < 0) break; // an M's give-back still under way: it lands on the list soon
      npdeadAdd(-1);
      if (<i32>load<u32>(S_NMIDLE) > atomic.load<i32>(S_NPIDLE)) pidlePut(p); // plain nmidle: sched.lock held
      else pnomPut(p);
      k--;
    }
  }
  schedUnlock();
  return k;
}

/**
 * M m gives its P p out of service if procresize still asks for one: p's queue goes to the global
 * queue, p to the out-of-service list, m to the idle list (then m sleeps, as after stopM). Returns
 * how many Gs moved, or NONE when no P is asked for any more (m keeps p). M m holding P p only,
 * between two Gs, after it saw S_RT_SHRINK above 0.
 */
export function pStop(p: i32, m: i32): i32 {
  opCall(p);
  schedLock();
  let k = atomic.load<i32>(S_RT_SHRINK); // pairs with procresize's stores (under sched.lock here too)
  if (k <= 0) {
    schedUnlock();
    return NONE;
  }
  atomic.store<i32>(S_RT_SHRINK, k - 1); // pairs with the Ms' lock-free load
  npdeadAdd(1); // counted now: a procresize before the P lands on the list sees it out of service
  schedUnlock();
  return pRelease(p, m, S_RT_PDEAD, 0, 0);
}
