// The lists of Ps (docs/DESIGN.md, "Spin, then park", "sysmon and handoff", "Threads that come
// and go", "Resizing"): the idle list, the reserve, the no-M list and the out-of-service list
// are each a LIFO stack of P index + 1 (0 ends it) whose head word is in the sched header and
// whose links are the Ps' P_LINK words. A P is on at most one list. Only these two calls touch
// the links; each list's count, read lock-free, is its owner's (idle.ts, sysmon.ts, mlife.ts,
// procresize.ts). Holds sched.lock.

import { NONE, P_LINK } from './shared/layout';
import { pAddr } from './mem';

/** Pushes P p on the list whose head word is at `list`. Holds sched.lock. */
export function plistPush(list: usize, p: i32): void {
  store<u32>(pAddr(p), load<u32>(list), P_LINK); // plain: sched.lock held
  store<u32>(list, <u32>p + 1); // plain: sched.lock held
}

/** Pops the P on top of the list whose head word is at `list`, its link cleared; NONE when the
 *  list is empty. Holds sched.lock. */
export function plistPop(list: usize): i32 {
  let top = load<u32>(list); // plain: sched.lock held
  if (top == 0) return NONE;
  let pp = pAddr(<i32>top - 1);
  store<u32>(list, load<u32>(pp, P_LINK)); // plain: sched.lock held
  store<u32>(pp, 0, P_LINK); // plain: sched.lock held
  return <i32>top - 1;
}

/** Adds d to a list's count: changed under sched.lock, read without it. Holds sched.lock. */
export function plistCount(count: usize, d: i32): void {
  atomic.store<i32>(count, atomic.load<i32>(count) + d); // pairs with the count's lock-free loads
}
