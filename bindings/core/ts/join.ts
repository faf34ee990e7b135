// The join's busiest steps in the core (docs/DESIGN.md "Results and joins", "The cost of a
// task"): joinLink, finishLinked, and the one-call finishSlot and joinTasks; the twin of
// assembly/join.ts, byte for byte.

import {
  G_ARG_TAGS, G_ARGC, G_ARGS, G_DEAD, G_FN, G_INDEX, G_INLINE_ARGS, G_JOIN, G_PARENT, G_PENDING, G_PRIO,
  G_RESULT, G_RESULT_TAG, G_SPILL, GF_CONT, GF_SHAPED, JOIN_DONE, JOIN_PARENT,
} from '../../../assembly/shared/layout.js';
import { gfPut } from './gfree.js';
import { gSetStatus, gWord } from './gtable.js';
import { cover, opCall } from './mem.js';
import { ready } from './sched.js';
import type { Mem } from './mem.js';

const PARENT = G_PARENT >> 2;
const INDEX = G_INDEX >> 2;
const JOIN = G_JOIN >> 2;
const PENDING = G_PENDING >> 2;
const FN = G_FN >> 2;
const ARGC = G_ARGC >> 2;
const PRIO = G_PRIO >> 2;
const SPILL = G_SPILL >> 2;
const ARGS = G_ARGS >> 2;
const RESULT = G_RESULT >> 2;

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

/** finishG's common case in one call: G g (status `from`) finished with a result that fits one
 *  slot: `tag` and the payload x (a number, a block's address, or 0 with a tag alone). When g
 *  is linked (JOIN_PARENT), tag and x go into its continuation's slot G_INDEX, g goes G_DEAD,
 *  then finishLinked: 1. Otherwise nothing is done: 0. The M that ran g, holding P p. */
export function finishSlot(m: Mem, p: number, g: number, from: number, tag: number, x: number): number {
  if (p >= 0) opCall(m, p);
  const w = gWord(m, g); // before reading m.i32: gWord may replace the views
  if ((Atomics.load(m.i32, w + JOIN) & JOIN_PARENT) === 0) return 0; // pairs with joinLink's CAS
  // plain: stored by the joiner before its CAS set JOIN_PARENT, which the load above saw
  const pg = m.i32[w + PARENT] >>> 0;
  const i = m.i32[w + INDEX];
  const pw = gWord(m, pg);
  const argc = m.i32[pw + ARGC]; // plain: set by the joiner before the link
  let tagAt: number;
  let slot: number;
  if (argc <= G_INLINE_ARGS) {
    tagAt = pw * 4 + G_ARG_TAGS + i;
    slot = pw * 4 + G_ARGS + i * 8;
  } else {
    const sp = m.i32[pw + SPILL] >>> 0; // plain: as argc
    tagAt = sp + argc * 8 + i;
    slot = sp + i * 8;
    cover(m, sp + argc * 9);
  }
  // plain: this child's slot is its own; the release in finishLinked publishes it
  m.u8[tagAt] = tag;
  m.f64[slot >>> 3] = x;
  gSetStatus(m, g, from, G_DEAD);
  finishLinked(m, p, g, pg);
  return 1;
}

/** joinChildren's common case in one call: G g (G_WAITING) becomes the continuation `fn` over
 *  n (1 to 4) children c0..c3, every one a G, no shape: fn, argc n, GF_CONT, the count n + 1,
 *  each child linked (one done already has its result moved into its slot and is freed), then
 *  the guard dropped and g readied when that was the last release. 1 when g was readied. The
 *  joining M, holding P p (p < 0: the P-less forms). */
export function joinTasks(m: Mem, p: number, g: number, fn: number, n: number, c0: number, c1: number, c2: number, c3: number): number {
  if (p >= 0) opCall(m, p);
  const w = gWord(m, g); // before reading m.i32: gWord may replace the views
  const i32 = m.i32;
  // plain: g is the joiner's until the first link publishes these (joinLink's CAS)
  i32[w + FN] = fn;
  i32[w + ARGC] = n;
  i32[w + PRIO] = (i32[w + PRIO] & ~GF_SHAPED) | GF_CONT;
  i32[w + PENDING] = n + 1;
  for (let i = 0; i < n; i++) {
    const c = i === 0 ? c0 : i === 1 ? c1 : i === 2 ? c2 : c3;
    if (joinLink(m, g, c, i) === 0) moveResult(m, p, c, g, i);
  }
  if (!joinReleased(m, g)) return 0; // drop the guard
  ready(m, p, g, 1);
  return 1;
}

/** joinTasks: child c was done before its link; its result moves into slot i of continuation
 *  g (a raw copy: a value block changes hands), c is freed and its share of g's count released
 *  (never the last: the joiner's guard is held). The joining M, holding P p. */
function moveResult(m: Mem, p: number, c: number, g: number, i: number): void {
  const cw = gWord(m, c); // before reading the views: gWord may replace them
  const gw = gWord(m, g);
  const i32 = m.i32;
  const u8 = m.u8;
  u8[gw * 4 + G_ARG_TAGS + i] = u8[cw * 4 + G_RESULT_TAG]; // plain: slot i is this child's alone
  i32[gw + ARGS + 2 * i] = i32[cw + RESULT];
  i32[gw + ARGS + 2 * i + 1] = i32[cw + RESULT + 1];
  u8[cw * 4 + G_RESULT_TAG] = 0; // plain: c is done and ours
  gfPut(m, p, c);
  joinReleased(m, g);
}
