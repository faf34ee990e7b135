// The runtime's use of the codec: tagged slots with the runtime's own error tag (TAG_ERROR, so a
// join continuation can tell a failed child's slot from a value), and labels built only when a
// value cannot cross threads.

import { TAG_BLOCK, TAG_ERROR, TAG_FALSE, TAG_NULL, TAG_NUMBER, TAG_SHORT, TAG_TRUE, TAG_UNDEFINED } from '../../../assembly/shared/layout.js';
import {
  Views, decodeValue, encodeError, encodeLabelled, readSlot as codecReadSlot, freeSlot as codecFreeSlot,
  writeErrorSlot as codecWriteErrorSlot, readErrorSlot as codecReadErrorSlot, type Heap, type SharedRegistry,
} from '../../codec/index.js';

import { reviveError } from '../base/errors.js';
import { readShort, shortPayload } from './shortstr.js';

export { Views };
export type { Heap, SharedRegistry };

/**
 * Writes argument `index` (0-based; -1 for a result) of task `name` into the slot. Numbers,
 * booleans, null, undefined and short strings (shortstr.ts) are stored in the slot itself
 * without calling the codec.
 */
export function writeSlot(views: Views, heap: Heap, tagAddr: number, slotAddr: number, value: unknown,
  name: string, index: number, shared: SharedRegistry | null): void {
  if (slotAddr + 8 > views.end) views.ensure(slotAddr + 8);
  switch (typeof value) {
    case 'number': views.u8[tagAddr] = TAG_NUMBER; views.f64[slotAddr >>> 3] = value; return;
    case 'boolean': views.u8[tagAddr] = value ? TAG_TRUE : TAG_FALSE; return;
    case 'undefined': views.u8[tagAddr] = TAG_UNDEFINED; return;
    case 'string': {
      const x = shortPayload(value);
      if (x >= 0) { views.u8[tagAddr] = TAG_SHORT; views.f64[slotAddr >>> 3] = x; return; }
    }
    // fall through: a longer string goes into a block
    default: {
      if (value === null) { views.u8[tagAddr] = TAG_NULL; return; }
      // A small value is written straight into its block (the codec's small.ts); the label is
      // made only for the general encoder or a failure.
      const block = encodeLabelled(views, heap, value, shared, slotLabel, name, index);
      views.u8[tagAddr] = TAG_BLOCK; // views read after the encode: it may have refreshed them
      views.f64[slotAddr >>> 3] = block;
    }
  }
}

/** What a value that cannot cross is called: argument `index` (0-based) of task `name`, or its
 *  result (-1). */
export function slotLabel(name: string, index: number): string {
  return index < 0 ? `the result of task '${name}'` : `spawn('${name}'): argument ${index + 1}`;
}

export function readSlot(views: Views, tagAddr: number, slotAddr: number, shared: SharedRegistry | null): unknown {
  if (slotAddr + 8 > views.end) views.ensure(slotAddr + 8);
  const tag = views.u8[tagAddr];
  if (tag === TAG_NUMBER) {
    const x = views.f64[slotAddr >>> 3];
    const i = x | 0;
    return i === x && (i !== 0 || 1 / x > 0) ? i : x; // small integers stay small integers (not -0)
  }
  if (tag === TAG_BLOCK) return decodeValue(views, views.f64[slotAddr >>> 3], shared); // a small one read straight (small.ts)
  if (tag === TAG_SHORT) return readShort(views, slotAddr);
  return codecReadSlot(views, tagAddr, slotAddr, shared);
}

/** Frees whatever block the slot holds (a value or an error) and empties it. */
export function freeSlot(views: Views, heap: Heap, tagAddr: number, slotAddr: number): void {
  const tag = views.u8[tagAddr];
  if (tag === TAG_BLOCK || tag === TAG_ERROR) codecFreeSlot(views, heap, tagAddr, slotAddr);
}

/** Encodes what task `name` threw into an error block (for a TAG_ERROR slot); its address. */
export function encodeErrorBlock(views: Views, heap: Heap, thrown: unknown, name: string, shared: SharedRegistry | null): number {
  return encodeError(views, heap, thrown, `task '${name}' threw`, shared);
}

/** Stores what task `name` threw (a TAG_ERROR slot). */
export function writeErrorSlot(views: Views, heap: Heap, tagAddr: number, slotAddr: number, thrown: unknown,
  name: string, shared: SharedRegistry | null): void {
  codecWriteErrorSlot(views, heap, tagAddr, slotAddr, thrown, `task '${name}' threw`, shared);
}

/** What the awaiting side rejects with: the error as thrown, a scheduler error with its class
 *  back (errors.ts reviveError). */
export function readErrorSlot(views: Views, tagAddr: number, slotAddr: number, shared: SharedRegistry | null): unknown {
  return reviveError(codecReadErrorSlot(views, tagAddr, slotAddr, shared));
}
