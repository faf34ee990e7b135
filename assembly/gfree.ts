// Free Gs (docs/DESIGN.md, "Free Gs"; Go's gfput and gfget).
//
// Per P: a LIFO list at P_GFREE (length P_GFREE_N), linked by G_SCHEDLINK, owner only.
// Global: the lock-free stack of gfstack.ts. An empty table grows (ggrow.ts).

import {
  FLAG_DEBUG, GFREE_LOCAL_KEEP, GFREE_LOCAL_MAX, G_DEAD, G_GEN, G_SCHEDLINK, G_SIZE, G_STATUS,
  HEADER, H_GCAP, PC_GFREE_MOVES, P_COUNTERS, P_GFREE, P_GFREE_N,
} from './shared/layout';
import { counterAdd, flags, pAddr } from './mem';
import { gAddr } from './gtable';
import { gfPopGlobal, gfPushGlobal } from './gfstack';
import { growTable } from './ggrow';
import { beginAbort } from './abort';

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
      let x = gfPopLocal(pp);
      if (x == 0) { // the list is shorter than its count: the free lists are corrupt; never push G 0
        beginAbort();
        throw new Error('gfPut: P ' + p.toString() + '\'s free list ended with ' + n.toString() + ' counted');
      }
      gfPushGlobal(x);
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
