// Free Gs: Go's gfput / gfget (docs/DESIGN.md, "Free Gs").
//
// Each P keeps a LIFO list of G_DEAD Gs (P_GFREE, P_GFREE_N), touched only by its owner; past
// GFREE_LOCAL_MAX it moves Gs to the global free stack (gfstack.ts) until fewer than
// GFREE_LOCAL_KEEP remain, and when empty it refills up to GFREE_LOCAL_KEEP from there. With
// no free G anywhere the table grows (ggrow.ts).

import {
  FLAG_DEBUG, G_DEAD, G_GEN, G_SCHEDLINK, G_STATUS, GFREE_LOCAL_KEEP, GFREE_LOCAL_MAX,
  P_GFREE, P_GFREE_N, PC_GFREE_MOVES,
} from '../../../assembly/shared/layout.js';
import { gfStackPop, gfStackPush } from './gfstack.js';
import { gGrow } from './ggrow.js';
import { gWord } from './gtable.js';
import { flags, H_GCAP_W, pCounters, pWord, type Mem } from './mem.js';

const GFREE = P_GFREE >> 2;
const GFREE_N = P_GFREE_N >> 2;
const MOVES = PC_GFREE_MOVES >> 3;
const STATUS = G_STATUS >> 2;
const LINK = G_SCHEDLINK >> 2;
const GEN = G_GEN >> 2;

/** Clears every field of G g except G_STATUS (+0) and G_GEN (+60); gw is g's i32 index.
 *  Bytes 4..59 and 64..127 are zeroed mostly 8 at a time through the f64 view (+0.0 is all
 *  zero bits; a G is 8-aligned), unrolled: a loop of 30 i32 stores costs three times as much.
 *  The caller owns g. */
function gClear(m: Mem, gw: number): void {
  const i32 = m.i32;
  const f64 = m.f64;
  const gf = gw >>> 1;
  // plain: g is off every list and owned by the caller
  i32[gw + 1] = 0; // +4 fn
  f64[gf + 1] = 0; // +8 schedlink, parent
  f64[gf + 2] = 0; // +16 pending, argc
  f64[gf + 3] = 0; // +24 index, join
  f64[gf + 4] = 0; // +32 prio, resultTag
  f64[gf + 5] = 0; // +40 result
  f64[gf + 6] = 0; // +48 argTags
  i32[gw + 14] = 0; // +56 spill
  f64[gf + 8] = 0; // +64 args
  f64[gf + 9] = 0;
  f64[gf + 10] = 0;
  f64[gf + 11] = 0;
  f64[gf + 12] = 0;
  f64[gf + 13] = 0;
  f64[gf + 14] = 0;
  f64[gf + 15] = 0;
}

/** Refills P p's empty local list to GFREE_LOCAL_KEEP Gs (by its count P_GFREE_N), popping
 *  them one by one from the global stack (Go's gfget refill; the list ends up in reverse pop
 *  order). Returns how many moved. Owner P only. */
function gfRefill(m: Mem, p: number): number {
  const w = pWord(p);
  let n = m.i32[w + GFREE_N] >>> 0; // plain: owner only
  let moved = 0;
  while (n < GFREE_LOCAL_KEEP) {
    const g = gfStackPop(m);
    if (g === 0) break;
    const gw = gWord(m, g); // before reading m.i32: gWord may replace the views
    const i32 = m.i32;
    i32[gw + LINK] = i32[w + GFREE]; // plain: g is ours; the local list is owner only
    i32[w + GFREE] = g;
    n++;
    moved++;
  }
  if (moved !== 0) {
    m.i32[w + GFREE_N] = n | 0; // plain: owner only (schedtrace tolerates a stale count)
    m.f64[pCounters(p) + MOVES] += 1; // plain: owner counter
  }
  return moved;
}

/** Takes a free G (G_DEAD, every field but status and gen zeroed), growing the table when no
 *  free G is left; 0 when the table is at gmax. p >= 0: owner P only (uses the P's list);
 *  p < 0: any thread (global stack). */
export function gfGet(m: Mem, p: number): number {
  let g = 0;
  if (p < 0) {
    for (;;) {
      const seen = Atomics.load(m.i32, H_GCAP_W) >>> 0; // pairs with the H_GCAP store in gGrow
      g = gfStackPop(m);
      if (g !== 0) break;
      if (!gGrow(m, seen)) return 0;
    }
  } else {
    const w = pWord(p);
    g = m.i32[w + GFREE]; // plain: the local list is owner only
    while (g === 0) {
      const seen = Atomics.load(m.i32, H_GCAP_W) >>> 0; // pairs with the H_GCAP store in gGrow
      if (gfRefill(m, p) === 0 && !gGrow(m, seen)) return 0;
      g = m.i32[w + GFREE]; // plain: owner only
    }
    const gw = gWord(m, g);
    const i32 = m.i32;
    i32[w + GFREE] = i32[gw + LINK]; // plain: owner only
    i32[w + GFREE_N] -= 1;
    gClear(m, gw);
    return g;
  }
  gClear(m, gWord(m, g));
  return g;
}

/** Returns a G_DEAD G to the free lists and bumps its generation; past GFREE_LOCAL_MAX on the
 *  P's list, moves Gs to the global stack until fewer than GFREE_LOCAL_KEEP remain.
 *  p >= 0: owner P only; p < 0: any thread. */
export function gfPut(m: Mem, p: number, g: number): void {
  const gw = gWord(m, g);
  const i32 = m.i32;
  if ((flags(m) & FLAG_DEBUG) !== 0) {
    const s = Atomics.load(i32, gw + STATUS); // pairs with the status store in gSetStatus
    if (s !== G_DEAD) throw new Error(`gfPut: g=${g} is not dead (status ${s})`);
  }
  i32[gw + GEN] = (i32[gw + GEN] + 1) | 0; // plain: g is ours (dead, off every list)
  if (p < 0) {
    gfStackPush(m, g);
    return;
  }
  const w = pWord(p);
  i32[gw + LINK] = i32[w + GFREE]; // plain: the local list is owner only
  i32[w + GFREE] = g;
  let n = (i32[w + GFREE_N] + 1) >>> 0;
  i32[w + GFREE_N] = n | 0;
  if (n < GFREE_LOCAL_MAX) return;
  while (n >= GFREE_LOCAL_KEEP) {
    const x = m.i32[w + GFREE]; // plain: owner only
    if (x === 0) throw new Error(`gfPut: P ${p}'s free list ended with ${n} counted`); // corrupt lists: never push G 0 (as the Wasm core)
    const xw = gWord(m, x); // before reading m.i32: gWord may replace the views
    m.i32[w + GFREE] = m.i32[xw + LINK];
    n--;
    gfStackPush(m, x);
  }
  m.i32[w + GFREE_N] = n | 0; // plain: owner only
  m.f64[pCounters(p) + MOVES] += 1; // plain: owner counter
}
