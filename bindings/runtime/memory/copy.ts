// Copies through the codec, for values that stay on this thread but must behave as if they
// crossed one: a task run inline at capacity takes copies of its arguments and gives a copy of
// its result (DESIGN.md "Spawning at capacity"), so it sees the same values and TypeErrors as
// one run by another M. Any thread, on its own values.

import { decodeError, decodeValue, encodeError, encodeValue } from '../../codec/index.js';
import { asMemoryError, reviveError } from '../base/errors.js';
import type { GSlots } from './gslots.js';

/** A copy of v, as a value crossing threads would be. Throws what spawn would (a TypeError, or
 *  the memory error naming maxMemoryMB) with `label` in its message. */
export function copyValue(gs: GSlots, v: unknown, label: string, maxMemoryMB: number): unknown {
  const type = typeof v;
  if (v === null || type === 'number' || type === 'boolean' || type === 'undefined') return v; // travel in the slot itself
  let block: number;
  try {
    block = encodeValue(gs.views, gs.heap, v, label, gs.shared);
  } catch (e) {
    throw asMemoryError(e, label, maxMemoryMB);
  }
  try {
    return decodeValue(gs.views, block, gs.shared);
  } finally {
    gs.heap.heapFree(block);
  }
}

/** A copy of what task `name` threw, as a failure crossing threads would be; the value itself
 *  when the memory is full. */
export function copyError(gs: GSlots, e: unknown, name: string): unknown {
  let block: number;
  try {
    block = encodeError(gs.views, gs.heap, e, `task '${name}' threw`, gs.shared);
  } catch {
    return e;
  }
  try {
    return reviveError(decodeError(gs.views, block, gs.shared));
  } finally {
    gs.heap.heapFree(block);
  }
}
