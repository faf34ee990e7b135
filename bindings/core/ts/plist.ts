// The lists of Ps: the twin of assembly/plist.ts (docs/DESIGN.md, "Spin, then park", "sysmon
// and handoff", "Threads that come and go", "Resizing"). The idle list, the reserve, the no-M
// list and the out-of-service list are each a LIFO stack of P index + 1 (0 ends it) whose head
// word is in the sched header and whose links are the Ps' P_LINK words. A P is on at most one
// list. Only these two calls touch the links; each list's count, read lock-free, is its owner's.
// Holds sched.lock.

import { NONE, P_LINK } from '../../../assembly/shared/layout.js';
import { pWord, type Mem } from './mem.js';

const PLINK = P_LINK >> 2;

/** Pushes P p on the list whose head word is at byte address `list`. Holds sched.lock. */
export function plistPush(m: Mem, list: number, p: number): void {
  const i32 = m.i32;
  i32[pWord(p) + PLINK] = i32[list >> 2]; // plain: under sched.lock
  i32[list >> 2] = p + 1; // plain: under sched.lock
}

/** Pops the P on top of the list whose head word is at byte address `list`, its link cleared;
 *  NONE when the list is empty. Holds sched.lock. */
export function plistPop(m: Mem, list: number): number {
  const i32 = m.i32;
  const top = i32[list >> 2]; // plain: under sched.lock
  if (top === 0) return NONE;
  const w = pWord(top - 1);
  i32[list >> 2] = i32[w + PLINK]; // plain: under sched.lock
  i32[w + PLINK] = 0;
  return top - 1;
}

/** Adds d to a list's count at byte address `count`: changed under sched.lock, read without it.
 *  Holds sched.lock. */
export function plistCount(m: Mem, count: number, d: number): void {
  Atomics.store(m.i32, count >> 2, m.i32[count >> 2] + d); // pairs with the count's lock-free loads
}
