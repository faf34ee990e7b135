// The join's link step in the core (docs/DESIGN.md "Results and joins"): the joiner marks a
// child JOIN_PARENT unless it is done. The runtime's other steps on the join word and the join
// count are in bindings/runtime/joinword.ts; this one is here because a Wasm compare-exchange
// is one instruction where a JS one is a builtin call (about 45 ns), and a continuation links
// every child it joins.

import { G_INDEX, G_JOIN, G_PARENT, JOIN_DONE, JOIN_PARENT } from './shared/layout';
import { gAddr } from './gtable';

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
