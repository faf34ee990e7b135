// What the codec needs from the runtime: a heap for value blocks and a registry for the
// SharedArrayBuffers that values share rather than copy.

import type { Core } from '../core/core.js';

/** The two core operations the codec calls (docs/DESIGN.md, "Value blocks"). Any thread. */
export type Heap = Pick<Core, 'heapAlloc' | 'heapFree'>;

/**
 * The runtime's registry of SharedArrayBuffers. A SharedArrayBuffer (or a view on one) inside a
 * value is not copied: the encoding thread registers it and the block holds the id; the
 * decoding thread looks the id up and gets the same memory back.
 *
 * Contract, for whoever implements it:
 * - `register(sab)` runs on the encoding thread, during encode. It returns a u32 id. Returning
 *   the same id for the same buffer is allowed (and cheap for the runtime).
 * - `lookup(id)` runs on the decoding thread, during decode, and must return the buffer at once
 *   (decode is synchronous). So the runtime must have delivered the buffer to every thread that
 *   may decode the block before the block is published, and must keep the id valid for as long
 *   as any block holding it may still be decoded. The codec never tells the registry that a
 *   block was freed.
 */
export interface SharedRegistry {
  register(sab: SharedArrayBuffer): number;
  lookup(id: number): SharedArrayBuffer;
}
