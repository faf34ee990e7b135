// This instance's bounds on the shared memory (docs/DESIGN.md, "Platform defects": memory grown
// by another thread).
//
// V8 keeps, per instance, the memory size its bounds checks compare against, and updates it
// after another thread grows a shared memory only when this thread handles an interrupt. Until
// then an access to the new pages traps as out of bounds, even when an atomic read ordered it
// after the grow (test/engines/defects/grow-bounds.mjs reproduces it on Node 20, 22, 24 and Deno;
// Bun's JavaScriptCore does not trap). `memory.grow(0)` on this thread brings its bounds up to
// date. So the core calls `reach(end)` before it touches memory that another thread may have
// added (a G in a table chunk, a value block): past the end this instance has seen, it grows by
// zero pages first. The fixed layout below the first chunk is never grown into.
//
// `seenEnd` is a Wasm global, so it belongs to this instance, which is exactly the scope of the
// bounds it caches: a second mutable global beside `canBlock` (thread.ts).

/** The end of the memory this instance has synced its bounds to (bytes); 0 before the first sync. */
let seenEnd: usize = 0;

/**
 * Makes sure this instance's bounds cover byte `end` (exclusive) of memory that exists: another
 * thread grew it before publishing what lies there. One compare on the common path. The
 * instance's own thread only.
 */
@inline export function reach(end: usize): void {
  if (end > seenEnd) syncBounds();
}

/** Grows the memory by zero pages, which makes V8 refresh this instance's bounds, and records them. */
function syncBounds(): void {
  memory.grow(0);
  seenEnd = <usize>memory.size() << 16;
}
