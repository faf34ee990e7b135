// The value codec: what crosses between threads, and how (docs/DESIGN.md, "Value blocks";
// the byte format is the table at the head of encode.ts). Re-exports only.

export { Views, createViews } from './views.js';
export type { Heap, SharedRegistry } from './hooks.js';
export { encodeValue, encodeLabelled, MAX_DEPTH } from './encode.js';
export { SUPPORTED } from './refusal.js';
export { decodeValue, blockKind, blockSize } from './decode.js';
export { writeSlot, writeBlockSlot, readSlot, slotBlock, freeSlot } from './slots.js';
export { encodeError, decodeError, writeErrorSlot, readErrorSlot } from './errors.js';
