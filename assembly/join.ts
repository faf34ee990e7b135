// The join's two busiest steps in the core (docs/DESIGN.md "Results and joins", "The cost of a
// task"): the joiner marks a child JOIN_PARENT unless it is done (joinLink), and a linked child's
// finisher frees it and releases its continuation's count (finishLinked). The runtime's other
// steps on the join word and the count are in bindings/runtime/joinword.ts; these are here
// because a Wasm atomic is one instruction where a JS one is a builtin call (about 20 ns a sub,
// 45 a compare-exchange), and every child of a join takes both.

import { G_INDEX, G_JOIN, G_PARENT, G_PENDING, JOIN_DONE, JOIN_PARENT } from './shared/layout';
import { gAddr } from './gtable';
import { gfPut } from './gfree';
import { ready } from './sched';

/**
 * Links child c to join continuation g as its slot i: stores G_PARENT = g and G_INDEX = i, then
 * sets JOIN_PARENT in c's join word unless JOIN_DONE is there. 1 when linked (c's finisher will
 * deliver into g's slot i), 0 when c is done (the caller moves its result now). The joining M.
 */
export function joinLink(g: u32, c: u32, i: u32): i32 {
  let cp = gAddr(c);
  // plain: read by c's finisher only after it sees JOIN_PARENT, which the CAS below publishes
  store<u32>(cp, g, G_PARENT);
  store<u32>(cp, i, G_INDEX);
  // The common case, a child nobody touched yet (word 0), is one CAS.
  let old = atomic.cmpxchg<u32>(cp + G_JOIN, 0, JOIN_PARENT); // pairs with joinFinish's or (joinword.ts)
  while (old != 0) {
    if ((old & JOIN_DONE) != 0) return 0;
    let seen = atomic.cmpxchg<u32>(cp + G_JOIN, old, old | JOIN_PARENT); // as above
    if (seen == old) return 1;
    old = seen;
  }
  return 1;
}

/**
 * One result (or the joiner's guard) is in continuation pg's slots: subtracts 1 from its count;
 * true when that was the last (ready pg). Any thread.
 */
export function joinReleased(pg: u32): bool {
  return atomic.sub<u32>(gAddr(pg) + G_PENDING, 1) == 1; // pairs with the other releases (joinword.ts joinRelease)
}

/**
 * Linked child g (G_DEAD, its result already written into slot G_INDEX of continuation pg by the
 * runtime) is done: gfPut(p, g), then joinReleased(pg), and ready(p, pg, 1) when it was the
 * last. 1 when pg was readied. The M that finished g (p < 0: crash recovery, P-less forms).
 */
export function finishLinked(p: i32, g: u32, pg: u32): i32 {
  gfPut(p, g);
  if (!joinReleased(pg)) return 0;
  ready(p, pg, 1);
  return 1;
}
