// The TypeScript twin of assembly/trace.ts: the core's part of the event trace, task starts,
// spawns, steals and ring overflows recorded where the core makes them happen (execute, newproc,
// findRunnable, runqPutSlow), into the ring of the M concerned (bindings/runtime/observe/trace.ts has the
// format, the other events, the clock reads and the export). The ring's words are the M's own,
// so nothing here is atomic but the load of the victim's M: the runtime publishes the slot count
// with each time slot.

import {
  G_FN, LINE, MR_TRACE_CAP, MR_TRACE_NEXT, MR_TRACE_POS, P_M, P_STEAL_N, P_STEAL_VICTIM,
  TR_EV_OVERFLOW, TR_EV_SPAWN, TR_EV_START, TR_EV_STEAL, TR_FN_MASK, TR_HEAD, TR_SLOT,
  TR_SLOTS_PER_EVENT, TR_TAG_ARG,
} from '../../../assembly/shared/layout.js';
import { gWord } from './gtable.js';
import { cover, pWord, type Mem } from './mem.js';

const CAP = MR_TRACE_CAP >> 2;
const POS = MR_TRACE_POS >> 2;
const FN = G_FN >> 2;
const NEXT = MR_TRACE_NEXT >> 2;
const STEAL_VICTIM = P_STEAL_VICTIM >> 2;
const STEAL_N = P_STEAL_N >> 2;
const P_M_W = P_M >> 2;

/** Byte address of slot 0 of the ring whose block is at `buf` (the slots start at the first
 *  LINE boundary past the base time). Any thread; the runtime reaches it through the core's face
 *  (bindings/core/index.ts). */
export function traceSlot0(buf: number): number {
  return (buf + TR_HEAD + LINE - 1) & -LINE;
}

/** Appends the slot [w0, w1] to the ring at byte `buf` of the M whose block is at i32 index
 *  mw. That M only. */
function tracePut(m: Mem, mw: number, buf: number, w0: number, w1: number): void {
  const slots = m.i32[mw + CAP] * TR_SLOTS_PER_EVENT; // plain: set before the M started
  const pos = m.i32[mw + POS]; // plain: owner thread only; the other writer is the runtime's TraceWriter, between core calls
  const at = traceSlot0(buf) + (pos & (slots - 1)) * TR_SLOT;
  if (at + TR_SLOT > m.end) cover(m, at + TR_SLOT);
  const i32 = m.i32;
  i32[at >> 2] = w0;
  i32[(at >> 2) + 1] = w1;
  i32[mw + POS] = pos + 1;
}

/** Records that G g starts on P p (execute). */
export function traceStart(m: Mem, mw: number, buf: number, p: number, g: number): void {
  const fn = m.i32[gWord(m, g) + FN]; // gWord may refresh the views
  tracePut(m, mw, buf, TR_EV_START | (g << 4), (fn & TR_FN_MASK) | (p << 24));
}

/** Records that G parent spawned G g (newproc). */
export function traceSpawn(m: Mem, mw: number, buf: number, g: number, parent: number): void {
  tracePut(m, mw, buf, TR_EV_SPAWN | (g << 4), parent);
}

/** Records the steal P p just made, from the words runqSteal left in its block, and asks the
 *  runtime to read the clock at its next look (MR_TRACE_NEXT 0), so the steal is dated right
 *  before the start of the first stolen G, written next (findRunnable). */
export function traceSteal(m: Mem, mw: number, buf: number, p: number): void {
  const w = pWord(p);
  const victim = m.i32[w + STEAL_VICTIM]; // plain: the thief's own words
  const vm = victim === 0 ? 0 : Atomics.load(m.i32, pWord(victim - 1) + P_M_W); // the victim's M + 1: pairs with acquireP's store
  const n = m.i32[w + STEAL_N];
  tracePut(m, mw, buf, TR_EV_STEAL | (vm << 4), (p << 16) | victim);
  tracePut(m, mw, buf, TR_TAG_ARG, n);
  m.i32[mw + NEXT] = 0; // plain: owner only
}

/** Records that P p's ring overflowed once (half of it went to the global queue)
 *  (runqPutSlow). */
export function traceOverflow(m: Mem, mw: number, buf: number, p: number): void {
  tracePut(m, mw, buf, TR_EV_OVERFLOW, p);
  tracePut(m, mw, buf, TR_TAG_ARG, 1);
}
