// The core's part of the event trace: task starts, spawns, steals and ring overflows, recorded
// where the core makes them happen (execute, newproc, findRunnable, runqPutSlow), into the ring of
// the M concerned (bindings/runtime/observe/trace.ts has the ring's format, the other events, the clock
// reads and the export; DESIGN.md "Event trace").
//
// Recording here rather than in the runtime keeps the per-event cost to what the compiled code
// does: two plain stores of the slot, the count's load and store, and the loads that find the
// slot; no call into JS and no clock read. The ring's words are the M's own (owner only: the
// runtime's writer runs on the same thread), so nothing here is atomic; the runtime publishes
// the slot count with each time slot.

import {
  G_FN, LINE, MR_TRACE_CAP, MR_TRACE_NEXT, MR_TRACE_POS, P_M, P_STEAL_N, P_STEAL_VICTIM,
  TR_EV_OVERFLOW, TR_EV_SPAWN, TR_EV_START, TR_EV_STEAL, TR_FN_MASK, TR_HEAD, TR_SLOT,
  TR_SLOTS_PER_EVENT, TR_TAG_ARG,
} from './shared/layout';
import { gAddr } from './gtable';
import { pAddr } from './mem';

/** Byte address of slot 0 of the ring whose block is at `buf` (the slots start at the first
 *  LINE boundary past the base time). Any thread. */
@inline function traceSlot0(buf: u32): usize {
  return (<usize>buf + TR_HEAD + LINE - 1) & ~(<usize>LINE - 1);
}

/** Appends the slot [w0, w1] to the ring at `buf` of M mp. M mp only. */
@inline function tracePut(mp: usize, buf: u32, w0: u32, w1: u32): void {
  let slots = load<u32>(mp, MR_TRACE_CAP) * TR_SLOTS_PER_EVENT; // plain: set before the M started
  let pos = load<u32>(mp, MR_TRACE_POS); // plain: owner thread only; the other writer is the runtime's TraceWriter, between core calls
  let w = traceSlot0(buf) + <usize>(pos & (slots - 1)) * TR_SLOT;
  store<u32>(w, w0);
  store<u32>(w, w1, 4);
  store<u32>(mp, pos + 1, MR_TRACE_POS);
}

/** Records that G g starts on P p, in the ring `buf` of M mp. M mp only (execute). */
export function traceStart(mp: usize, buf: u32, p: i32, g: u32): void {
  tracePut(mp, buf, TR_EV_START | (g << 4), (load<u32>(gAddr(g), G_FN) & TR_FN_MASK) | (<u32>p << 24));
}

/** Records that G parent spawned G g, in the ring `buf` of M mp. M mp only (newproc). */
export function traceSpawn(mp: usize, buf: u32, g: u32, parent: u32): void {
  tracePut(mp, buf, TR_EV_SPAWN | (g << 4), parent);
}

/**
 * Records the steal P p (block pp) just made, from the words runqSteal left in its block, in the
 * ring `buf` of M mp, and asks the runtime to read the clock at its next look (MR_TRACE_NEXT 0),
 * so the steal is dated right before the start of the first stolen G, written next. M mp
 * holding P p only (findRunnable).
 */
export function traceSteal(mp: usize, buf: u32, p: i32, pp: usize): void {
  let victim = load<u32>(pp, P_STEAL_VICTIM); // plain: the thief's own words
  let vm: u32 = victim == 0 ? 0 : atomic.load<u32>(pAddr(<i32>victim - 1), P_M); // the victim's M + 1: pairs with acquireP's store
  tracePut(mp, buf, TR_EV_STEAL | (vm << 4), (<u32>p << 16) | victim);
  tracePut(mp, buf, TR_TAG_ARG, load<u32>(pp, P_STEAL_N));
  store<u32>(mp, 0, MR_TRACE_NEXT); // plain: owner only
}

/** Records that P p's ring overflowed once (half of it went to the global queue), in the ring
 *  `buf` of M mp. M mp holding P p only (runqPutSlow). */
export function traceOverflow(mp: usize, buf: u32, p: i32): void {
  tracePut(mp, buf, TR_EV_OVERFLOW, <u32>p);
  tracePut(mp, buf, TR_TAG_ARG, 1);
}
