// The join's two busiest steps in the core (docs/DESIGN.md "Results and joins", "The cost of a
// task"): the twin of assembly/join.ts, byte for byte.

import { G_INDEX, G_JOIN, G_PARENT, G_PENDING, JOIN_DONE, JOIN_PARENT } from '../../../assembly/shared/layout.js';
import { gfPut } from './gfree.js';
import { gWord } from './gtable.js';
import { ready } from './sched.js';
import type { Mem } from './mem.js';

const PARENT = G_PARENT >> 2;
const INDEX = G_INDEX >> 2;
const JOIN = G_JOIN >> 2;
const PENDING = G_PENDING >> 2;

/** Links child c to join continuation g as its slot i: G_PARENT = g, G_INDEX = i, then
 *  JOIN_PARENT in c's join word unless JOIN_DONE is there. 1 when linked, 0 when c is done (the
 *  caller moves its result now). The joining M. */
export function joinLink(m: Mem, g: number, c: number, i: number): number {
  const w = gWord(m, c); // before reading m.i32: gWord may replace the views
  const i32 = m.i32;
  // plain: read by c's finisher only after it sees JOIN_PARENT, which the CAS below publishes
  i32[w + PARENT] = g;
  i32[w + INDEX] = i;
  // The common case, a child nobody touched yet (word 0), is one CAS.
  let old = Atomics.compareExchange(i32, w + JOIN, 0, JOIN_PARENT); // pairs with joinFinish's or (joinword.ts)
  while (old !== 0) {
    if ((old & JOIN_DONE) !== 0) return 0;
    const seen = Atomics.compareExchange(i32, w + JOIN, old, old | JOIN_PARENT); // as above
    if (seen === old) return 1;
    old = seen;
  }
  return 1;
}

/** One result (or the joiner's guard) is in continuation pg's slots: subtracts 1 from its
 *  count; true when that was the last (ready pg). Any thread. */
export function joinReleased(m: Mem, pg: number): boolean {
  const w = gWord(m, pg); // before reading m.i32: gWord may replace the views
  return Atomics.sub(m.i32, w + PENDING, 1) === 1; // pairs with the other releases (joinword.ts joinRelease)
}

/** Linked child g (G_DEAD, its result already in continuation pg's slot) is done: gfPut(p, g),
 *  joinReleased(pg), and ready(p, pg, 1) when it was the last. 1 when pg was readied. The M
 *  that finished g (p < 0: crash recovery, P-less forms). */
export function finishLinked(m: Mem, p: number, g: number, pg: number): number {
  gfPut(m, p, g);
  if (!joinReleased(m, pg)) return 0;
  ready(m, p, pg, 1);
  return 1;
}
