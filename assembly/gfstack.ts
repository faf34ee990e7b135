// The global free-G stack (docs/DESIGN.md, "Free Gs"): a lock-free Treiber stack linked by
// G_SCHEDLINK, whose head S_GFREE_HEAD is one 64-bit word:
//
//   63                32 31                 0
//   +-------------------+-------------------+
//   |      version      |   top G id (0:    |
//   |  (+1 every CAS)   |   empty stack)    |
//   +-------------------+-------------------+
//
// A pop reads (g, v), reads g's link, and CASes to (link, v + 1). If g was popped and pushed
// back meanwhile, the version moved on and the CAS fails, so a stale link is never installed.
// S_GFREE_N counts the stack approximately (atomic adds after each successful CAS).
// The TypeScript twin is bindings/core/ts/gfstack.ts.

import { G_SCHEDLINK, S_GFREE_HEAD, S_GFREE_N } from './shared/layout';
import { gAddr } from './gtable';

/** The stack head word for top `g` at version `version`. Any thread. */
@inline function packHead(g: u32, version: u64): u64 {
  return (version << 32) | <u64>g;
}

/** The top G id of a stack head word. Any thread. */
@inline function headG(head: u64): u32 {
  return <u32>head;
}

/** The version of a stack head word. Any thread. */
@inline function headVersion(head: u64): u64 {
  return head >> 32;
}

/**
 * Pushes the chain first..last (consecutive ids, first on top) on the global stack with one
 * CAS. The chunk's Gs are the caller's alone. Holds the heap lock (table growth only).
 */
export function gfPushBatch(first: u32, last: u32): void {
  for (let g = first; g < last; g++) {
    atomic.store<u32>(gAddr(g), g + 1, G_SCHEDLINK); // pairs with the link load in gfPopGlobal
  }
  let lastp = gAddr(last);
  while (true) {
    let head = atomic.load<u64>(S_GFREE_HEAD); // pairs with the head CAS of other pushes and pops
    atomic.store<u32>(lastp, headG(head), G_SCHEDLINK); // pairs with the link load in gfPopGlobal
    if (atomic.cmpxchg<u64>(S_GFREE_HEAD, head, packHead(first, headVersion(head) + 1)) == head) break; // pairs with gfPopGlobal's CAS
  }
  atomic.add<u32>(S_GFREE_N, last - first + 1); // approximate count: pairs with the sub in gfPopGlobal
}

/** Pushes the dead G g on the global stack. Any thread. */
export function gfPushGlobal(g: u32): void {
  let gp = gAddr(g);
  while (true) {
    let head = atomic.load<u64>(S_GFREE_HEAD); // pairs with the head CAS of other pushes and pops
    atomic.store<u32>(gp, headG(head), G_SCHEDLINK); // pairs with the link load in gfPopGlobal
    if (atomic.cmpxchg<u64>(S_GFREE_HEAD, head, packHead(g, headVersion(head) + 1)) == head) break; // pairs with gfPopGlobal's CAS
  }
  atomic.add<u32>(S_GFREE_N, 1); // approximate count: pairs with the sub in gfPopGlobal
}

/** Pops the top of the global stack; 0 when it is empty. Any thread. */
export function gfPopGlobal(): u32 {
  while (true) {
    let head = atomic.load<u64>(S_GFREE_HEAD); // pairs with the head CAS of pushes and pops
    let g = headG(head);
    if (g == 0) return 0;
    // If g was popped meanwhile this link may be stale; the version makes the CAS fail then.
    let next = atomic.load<u32>(gAddr(g), G_SCHEDLINK); // pairs with the link store in the push
    if (atomic.cmpxchg<u64>(S_GFREE_HEAD, head, packHead(next, headVersion(head) + 1)) == head) { // pairs with pushes' CAS
      atomic.sub<u32>(S_GFREE_N, 1); // approximate count: pairs with the adds in the pushes
      return g;
    }
  }
}
