// What the calling thread may do: the one per-instance setting of the core.
//
// Wasm globals belong to an instance, and each thread has its own instance over the shared
// memory, so `canBlock` is exactly a per-thread flag. It is the only mutable global of the core
// (docs/DESIGN.md "Memory layout", rule 1); everything shared lives at layout addresses.

import { S_DUMMY } from './shared/layout';

/** May this thread block in memory.atomic.wait32 (false on a browser or Node main thread). */
let canBlock: bool = false;

/** Sets this instance's canBlock. The instance's own thread only. */
export function setCanBlock(value: i32): void {
  canBlock = value != 0;
}

/** Whether this instance's thread may block. The instance's own thread only. */
@inline export function mayBlock(): bool {
  return canBlock;
}

/**
 * Go's usleep(3) in runqGrab: waits about `ns` nanoseconds on S_DUMMY, a word nobody notifies,
 * so the wait always runs to its timeout. A thread that may not block skips the back-off.
 * Any thread.
 */
export function backoff(ns: i64): void {
  if (canBlock) {
    memory.atomic.wait32(S_DUMMY, 0, ns); // never notified: always times out
  }
}
