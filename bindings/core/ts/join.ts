// The join's link step in the core (docs/DESIGN.md "Results and joins"): the twin of
// assembly/join.ts, byte for byte.

import { G_INDEX, G_JOIN, G_PARENT, JOIN_DONE, JOIN_PARENT } from '../../../assembly/shared/layout.js';
import { gWord } from './gtable.js';
import type { Mem } from './mem.js';

const PARENT = G_PARENT >> 2;
const INDEX = G_INDEX >> 2;
const JOIN = G_JOIN >> 2;

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
