// Typed-array views over the shared WebAssembly.Memory, one set per thread.
//
// Any thread may grow the memory at any time (the heap lock holder bumps `brk` past the end,
// docs/DESIGN.md "Value blocks"). A view made before the growth keeps the old length: it stays
// valid below its end but cannot reach the new pages. So every access past `end` first calls
// `ensure`, which re-reads `memory.buffer` (for a shared memory the getter returns a buffer of
// the current length) and re-creates the views only when the length changed. The common case
// costs one compare.

/** Typed-array views over one memory, with the byte length they reach. Owned by one thread:
 *  each thread makes its own with createViews (a Views is never posted to another thread). */
export class Views {
  readonly memory: WebAssembly.Memory;
  /** Bytes reachable through the views: the memory's length when they were last made. */
  end = 0;
  u8: Uint8Array = new Uint8Array(0);
  u16: Uint16Array = new Uint16Array(0);
  u32: Uint32Array = new Uint32Array(0);
  i32: Int32Array = new Int32Array(0);
  f64: Float64Array = new Float64Array(0);

  constructor(memory: WebAssembly.Memory) {
    this.memory = memory;
    this.refresh();
  }

  /** Re-creates the views if the memory grew since they were made. Owning thread only. */
  refresh(): void {
    const buffer = this.memory.buffer;
    const length = buffer.byteLength;
    if (length === this.end) return;
    this.u8 = new Uint8Array(buffer);
    this.u16 = new Uint16Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.end = length;
  }

  /** Makes bytes below `end` reachable: refreshes when `end` lies past the known end, and
   *  throws a RangeError if it lies past the memory even then (a bad address). Owning thread
   *  only; call before touching any byte at or past `this.end`. */
  ensure(end: number): void {
    if (end <= this.end) return;
    this.refresh();
    if (end > this.end) {
      throw new RangeError(`codec: address range ends at ${end}, past the memory's ${this.end} bytes`);
    }
  }
}

/** Views over `memory` for the calling thread. Any thread, once per thread and memory. */
export function createViews(memory: WebAssembly.Memory): Views {
  return new Views(memory);
}
