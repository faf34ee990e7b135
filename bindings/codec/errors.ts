// Task failures: what a throwing task leaves in its result slot, and what the awaiting side
// rejects with.
//
// An error block's top item says which kind of failure it holds:
// - ERROR: the task threw an Error (any subclass). name, message, stack, an encodable `cause`
//   and the encodable extra own enumerable props travel; the rest is left out. It decodes as
//   the built-in class its name names (TypeError, RangeError, ...), else as an Error carrying
//   that name.
// - THROWN: the task threw something else (`throw 42`, `throw 'no'`, `throw {code: 3}`); it
//   decodes as that same value.
// A thrown value that cannot cross threads (a function, a class instance ...) becomes a
// TypeError whose message says what it was and where. So encodeError never fails on the value;
// only an exhausted heap makes it throw (a RangeError).
//
// The result slot of a failed G holds TAG_ERROR with the error block (writeErrorSlot); the
// runtime also sets JOIN_ERROR in the join word, and the awaiting side reads the slot with
// readErrorSlot and rejects. freeSlot frees it like any block.

import { TAG_ERROR } from '../../assembly/shared/layout.js';
import { K_ERROR, K_THROWN } from './format.js';
import { encodeValue, encodeThrown, isError } from './encode.js';
import { blockKind, decodeValue } from './decode.js';
import { slotBlock, writeBlockSlot } from './slots.js';
import type { Heap, SharedRegistry } from './hooks.js';
import type { Views } from './views.js';

/**
 * Encodes what a task threw into a new error block; returns its address. `label` names the
 * task for the TypeError that replaces an unencodable thrown value (e.g. "task 'fib' threw").
 * Never throws for the value; a RangeError when the heap is exhausted. Any thread.
 */
export function encodeError(views: Views, heap: Heap, thrown: unknown, label: string,
  shared: SharedRegistry | null): number {
  try {
    return isError(thrown) ? encodeValue(views, heap, thrown, label, shared)
      : encodeThrown(views, heap, thrown, label, shared);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    const replacement = new TypeError(e.message);
    replacement.stack = `TypeError: ${e.message}`;
    return encodeValue(views, heap, replacement, label, shared);
  }
}

/**
 * What the awaiting side rejects with: the Error rebuilt from an ERROR block, or the very
 * value of a THROWN block. Does not free the block. A RangeError when the block is neither.
 * Any thread.
 */
export function decodeError(views: Views, addr: number, shared: SharedRegistry | null): unknown {
  const kind = blockKind(views, addr);
  if (kind !== K_ERROR && kind !== K_THROWN) {
    throw new RangeError(`decodeError: the block at address ${addr} holds a value (kind 0x${kind.toString(16)}), not an error`);
  }
  return decodeValue(views, addr, shared);
}

/** encodeError into the slot, tagged TAG_ERROR; the slot must be empty. Any thread. */
export function writeErrorSlot(views: Views, heap: Heap, tagAddr: number, slotAddr: number,
  thrown: unknown, label: string, shared: SharedRegistry | null): void {
  writeBlockSlot(views, tagAddr, slotAddr, TAG_ERROR, encodeError(views, heap, thrown, label, shared));
}

/** What to reject with, from a TAG_ERROR slot (which stays as it is until freeSlot). A
 *  RangeError for any other tag. Any thread. */
export function readErrorSlot(views: Views, tagAddr: number, slotAddr: number,
  shared: SharedRegistry | null): unknown {
  const addr = slotBlock(views, tagAddr, slotAddr);
  if (addr === 0 || views.u8[tagAddr] !== TAG_ERROR) {
    throw new RangeError(`readErrorSlot: the slot at address ${tagAddr} holds tag ${views.u8[tagAddr]}, not TAG_ERROR`);
  }
  return decodeError(views, addr, shared);
}
