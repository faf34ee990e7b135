// Free Gs (docs/DESIGN.md, "Free Gs"; Go's gfput and gfget).
//
// Per P: a LIFO list at P_GFREE (length P_GFREE_N), linked by G_SCHEDLINK, owner only.
// Global: a lock-free Treiber stack whose head S_GFREE_HEAD is one 64-bit word:
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

import {
  FLAG_DEBUG, GFREE_LOCAL_KEEP, GFREE_LOCAL_MAX, G_DEAD, G_GEN, G_SCHEDLINK, G_SIZE, G_STATUS,
  HEADER, H_GCAP, PC_GFREE_MOVES, P_COUNTERS, P_GFREE, P_GFREE_N, S_GFREE_HEAD, S_GFREE_N,
} from './shared/layout';
import { counterAdd, flags, pAddr } from './mem';
import { gAddr, growTable } from './gtable';
import { beginAbort } from './abort';

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

/** Pushes g on P pp's local list. Owner P only. */
@inline function gfPushLocal(pp: usize, g: u32): void {
  store<u32>(gAddr(g), load<u32>(pp, P_GFREE), G_SCHEDLINK); // plain: the local list is owner only
  store<u32>(pp, g, P_GFREE); // plain: owner only
}

/** Pops from P pp's local list; 0 when empty. Owner P only. */
@inline function gfPopLocal(pp: usize): u32 {
  let g = load<u32>(pp, P_GFREE); // plain: the local list is owner only
  if (g != 0) store<u32>(pp, load<u32>(gAddr(g), G_SCHEDLINK), P_GFREE); // plain: owner only
  return g;
}

/**
 * Returns the dead G g to a free list and bumps its generation. p < 0: the global stack. p >= 0:
 * P p's list; at GFREE_LOCAL_MAX Gs, 33 of them move to the global stack one by one, leaving 31.
 * p >= 0: owner P only; p < 0: any thread.
 */
export function gfPut(p: i32, g: u32): void {
  let gp = gAddr(g);
  if ((flags() & FLAG_DEBUG) != 0) {
    let status = atomic.load<u32>(gp, G_STATUS); // pairs with the status store that killed g
    if (status != G_DEAD) {
      beginAbort();
      throw new Error('gfPut: g=' + g.toString() + ' is not dead (status ' + status.toString() + ')');
    }
  }
  store<u32>(gp, load<u32>(gp, G_GEN) + 1, G_GEN); // plain: only the thread freeing g writes it; stale-handle checks just compare
  if (p < 0) {
    gfPushGlobal(g);
    return;
  }
  let pp = pAddr(p);
  gfPushLocal(pp, g);
  let n = load<u32>(pp, P_GFREE_N) + 1; // plain: only the owner writes the count
  if (n >= <u32>GFREE_LOCAL_MAX) {
    while (n >= <u32>GFREE_LOCAL_KEEP) {
      gfPushGlobal(gfPopLocal(pp));
      n--;
    }
    counterAdd(pp + (P_COUNTERS + PC_GFREE_MOVES), 1);
  }
  store<u32>(pp, n, P_GFREE_N); // plain: owner only; schedtrace reads a possibly stale count
}

/**
 * Refills P pp's empty local list with up to GFREE_LOCAL_KEEP Gs popped one by one from the
 * global stack (Go's gfget refill; the list ends up in reverse pop order). Owner P only.
 */
function gfRefill(pp: usize): void {
  let n = load<u32>(pp, P_GFREE_N); // plain: only the owner writes the count
  let moved: u32 = 0;
  while (n < <u32>GFREE_LOCAL_KEEP) {
    let g = gfPopGlobal();
    if (g == 0) break;
    gfPushLocal(pp, g);
    n++;
    moved++;
  }
  if (moved != 0) {
    counterAdd(pp + (P_COUNTERS + PC_GFREE_MOVES), 1);
    atomic.store<u32>(pp, n, P_GFREE_N); // pairs with schedtrace's load
  }
}

/**
 * Zeroes every field of the G at gp except G_STATUS (+0) and G_GEN (+60), with 8-byte stores:
 * measured about 3x cheaper than memory.fill for these two short runs. The G is the caller's
 * alone (just popped from a free list). Owner of the G only.
 */
@inline function clearG(gp: usize): void {
  if (G_STATUS != 0 || G_GEN != 60 || G_SIZE != 128) ERROR('clearG: the G layout changed; update its stores');
  store<u32>(gp, 0, 4); // +4..8
  store<u64>(gp, 0, 8); // +8..56
  store<u64>(gp, 0, 16);
  store<u64>(gp, 0, 24);
  store<u64>(gp, 0, 32);
  store<u64>(gp, 0, 40);
  store<u64>(gp, 0, 48);
  store<u32>(gp, 0, 56); // +56..60; G_GEN at +60 is kept
  store<u64>(gp, 0, 64); // +64..128: the inline arguments
  store<u64>(gp, 0, 72);
  store<u64>(gp, 0, 80);
  store<u64>(gp, 0, 88);
  store<u64>(gp, 0, 96);
  store<u64>(gp, 0, 104);
  store<u64>(gp, 0, 112);
  store<u64>(gp, 0, 120);
}

/**
 * A dead G with every field zeroed except G_STATUS (G_DEAD) and G_GEN, or 0 when the table is
 * at gmax and no G is free. p >= 0 refills P p's empty list from the global stack first; the
 * table grows when no G is free anywhere. p >= 0: owner P only; p < 0: any thread.
 */
export function gfGet(p: i32): u32 {
  let pp = p >= 0 ? pAddr(p) : 0;
  let g: u32 = 0;
  let gcap: u32 = 0;
  do {
    gcap = atomic.load<u32>(HEADER, H_GCAP); // before looking: pairs with the H_GCAP store in growTable
    if (p >= 0) {
      if (load<u32>(pp, P_GFREE) == 0) gfRefill(pp); // plain: owner only
      g = gfPopLocal(pp);
      if (g != 0) {
        store<u32>(pp, load<u32>(pp, P_GFREE_N) - 1, P_GFREE_N); // plain: owner only; schedtrace reads a possibly stale count
      }
    } else {
      g = gfPopGlobal();
    }
    if (g != 0) {
      clearG(gAddr(g));
      return g;
    }
  } while (growTable(gcap));
  return 0;
}
