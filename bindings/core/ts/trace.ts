// The TypeScript twin of assembly/trace.ts: the core's part of the event trace, task starts and
// spawns recorded where the core makes them happen (execute, newproc), into the ring of the M
// concerned (bindings/runtime/trace.ts has the format, the other events and the export). The
// ring's words are the M's own, so nothing here is atomic: the runtime publishes the slot count
// with each time slot.

import {
  G_FN, LINE, MR_TRACE_CAP, MR_TRACE_POS, TR_EV_SPAWN, TR_EV_START, TR_FN_MASK, TR_HEAD, TR_SLOT,
  TR_SLOTS_PER_EVENT,
} from '../../../assembly/shared/layout.js';
import { gWord } from './gtable.js';
import { cover, type Mem } from './mem.js';

const CAP = MR_TRACE_CAP >> 2;
const POS = MR_TRACE_POS >> 2;
const FN = G_FN >> 2;

/** Appends the slot [w0, w1] to the ring at byte `buf` of the M whose block is at i32 index
 *  mw. That M only. */
function tracePut(m: Mem, mw: number, buf: number, w0: number, w1: number): void {
  const slots = m.i32[mw + CAP] * TR_SLOTS_PER_EVENT; // plain: set before the M started
  const pos = m.i32[mw + POS]; // plain: owner only
  const at = ((buf + TR_HEAD + LINE - 1) & -LINE) + (pos & (slots - 1)) * TR_SLOT;
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
