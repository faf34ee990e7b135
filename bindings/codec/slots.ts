// Tagged slots: a tag byte plus an f64 payload, as in a G entry (G_ARG_TAGS[i] with G_ARGS[i],
// G_RESULT_TAG with G_RESULT; assembly/shared/layout.ts).
//
// numbers, booleans, null and undefined live in the slot itself (no block, no allocation):
//
//   value                 tag            payload
//   undefined             TAG_UNDEFINED  0
//   null                  TAG_NULL       0
//   false / true          TAG_FALSE/TRUE 0
//   a number              TAG_NUMBER     the number (-0, NaN and Infinity exact)
//   anything else         TAG_BLOCK      address of its value block (encode.ts)
//   what a task threw     TAG_ERROR      address of its error block (errors.ts)
//
// TAG_TASK slots belong to the runtime (a child G id); readSlot refuses them, and TAG_ERROR
// slots, which only readErrorSlot reads (so a failure is never mistaken for a value).
//
// Ownership: writeSlot (or writeErrorSlot) allocates the block; the slot owns it from then on;
// freeSlot frees it, whichever of the two tags it has, and resets the slot to undefined, so a
// second freeSlot is a no-op. readSlot leaves the slot as it is. The plain stores here are
// published to other threads by the scheduler's atomics that hand the G over (the run-queue
// tail store, the join word), never by the slot itself.

import {
  TAG_UNDEFINED, TAG_NULL, TAG_FALSE, TAG_TRUE, TAG_NUMBER, TAG_BLOCK, TAG_ERROR,
} from '../../assembly/shared/layout.js';
import { encodeValue } from './encode.js';
import { decodeValue } from './decode.js';
import type { Heap, SharedRegistry } from './hooks.js';
import type { Views } from './views.js';

/** Slot payloads are f64 words: 8-aligned. Refreshes the views when the slot lies past them. */
function checkSlot(views: Views, tagAddr: number, slotAddr: number, who: string): void {
  if ((slotAddr & 7) !== 0) throw new RangeError(`${who}: slot address ${slotAddr} is not 8-aligned`);
  const end = tagAddr + 1 > slotAddr + 8 ? tagAddr + 1 : slotAddr + 8;
  if (end > views.end) views.ensure(end);
}

/**
 * Stores `value` in the slot (tag byte at tagAddr, 8-aligned f64 payload at slotAddr),
 * encoding it into a value block unless it is a number, boolean, null or undefined. The slot
 * must be empty (never written, or freed): a block already in it would leak. Throws a TypeError
 * naming `label` and the path when the value cannot cross threads (the slot is left untouched),
 * a RangeError when the heap is exhausted. Any thread; `views` must be this thread's.
 */
export function writeSlot(views: Views, heap: Heap, tagAddr: number, slotAddr: number,
  value: unknown, label: string, shared: SharedRegistry | null): void {
  checkSlot(views, tagAddr, slotAddr, 'writeSlot');
  let tag: number;
  switch (typeof value) {
    case 'number':
      views.u8[tagAddr] = TAG_NUMBER;
      views.f64[slotAddr >>> 3] = value;
      return;
    case 'boolean': tag = value ? TAG_TRUE : TAG_FALSE; break;
    case 'undefined': tag = TAG_UNDEFINED; break;
    default:
      if (value === null) {
        tag = TAG_NULL;
        break;
      }
      writeBlockSlot(views, tagAddr, slotAddr, TAG_BLOCK, encodeValue(views, heap, value, label, shared));
      return;
  }
  views.u8[tagAddr] = tag;
  views.f64[slotAddr >>> 3] = 0;
}

/** Stores a block address in the slot with `tag` (TAG_BLOCK for a value block, TAG_ERROR for
 *  an error block); the slot now owns the block. Any thread. */
export function writeBlockSlot(views: Views, tagAddr: number, slotAddr: number, tag: number,
  addr: number): void {
  checkSlot(views, tagAddr, slotAddr, 'writeBlockSlot');
  views.u8[tagAddr] = tag;
  views.f64[slotAddr >>> 3] = addr;
}

/**
 * The value in the slot: from the slot itself, or decoded from its block (a fresh copy; the
 * block stays in the slot until freeSlot). A RangeError for a tag that is not a value tag
 * (TAG_TASK, or garbage). Any thread; `views` must be this thread's.
 */
export function readSlot(views: Views, tagAddr: number, slotAddr: number,
  shared: SharedRegistry | null): unknown {
  checkSlot(views, tagAddr, slotAddr, 'readSlot');
  const tag = views.u8[tagAddr]!;
  switch (tag) {
    case TAG_NUMBER: return views.f64[slotAddr >>> 3];
    case TAG_UNDEFINED: return undefined;
    case TAG_NULL: return null;
    case TAG_FALSE: return false;
    case TAG_TRUE: return true;
    case TAG_BLOCK: return decodeValue(views, views.f64[slotAddr >>> 3]!, shared);
    case TAG_ERROR:
      throw new RangeError(`readSlot: the slot at address ${tagAddr} holds a failure (TAG_ERROR); read it with readErrorSlot`);
    default:
      throw new RangeError(`readSlot: tag ${tag} at address ${tagAddr} is not a value tag (TAG_TASK slots are the runtime's)`);
  }
}

/** The block address in the slot (TAG_BLOCK or TAG_ERROR), or 0 when it holds no block. Any
 *  thread. */
export function slotBlock(views: Views, tagAddr: number, slotAddr: number): number {
  checkSlot(views, tagAddr, slotAddr, 'slotBlock');
  const tag = views.u8[tagAddr];
  return tag === TAG_BLOCK || tag === TAG_ERROR ? views.f64[slotAddr >>> 3]! : 0;
}

/**
 * Frees the slot's value or error block, if it holds one, and resets the slot to undefined (so freeing
 * twice is harmless). Call it once the value has been read, or will never be (a detached or
 * cancelled task). Any thread, but only the one thread that owns the slot at that moment.
 */
export function freeSlot(views: Views, heap: Heap, tagAddr: number, slotAddr: number): void {
  checkSlot(views, tagAddr, slotAddr, 'freeSlot');
  const tag = views.u8[tagAddr];
  if (tag !== TAG_BLOCK && tag !== TAG_ERROR) return;
  const addr = views.f64[slotAddr >>> 3]!;
  views.u8[tagAddr] = TAG_UNDEFINED;
  views.f64[slotAddr >>> 3] = 0;
  heap.heapFree(addr);
}
