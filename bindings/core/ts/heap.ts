// Value blocks and the bump allocator under them (docs/DESIGN.md, "Value blocks",
// "Growing the G table").
//
// Right of `brk` the memory holds G table chunks (LINE-aligned) and value blocks (16-aligned),
// bump-allocated under the heap lock; the memory grows in whole pages when `brk` passes its
// end, and H_MEMBYTES records the size the heap lock holder last grew it to. A block of class c
// is 2^(c+4) bytes; a freed block goes on S_HEAP_FREE[c] and never returns to brk.
//
//   block +0  class c (while free: address of the next free block of class c, 0 ends)
//         +4  requested user size (kept while free)
//         +8  user bytes (BLOCK_HEADER)

import {
  BLOCK_HEADER, HEAP_CLASSES, HEAP_MIN_SHIFT, PAGE, S_HEAP_FREE, SC_HEAP_ALLOCS, SC_HEAP_BYTES,
  SC_HEAP_FREES,
} from '../../../assembly/shared/layout.js';
import { heapLock, heapUnlock } from './lock.js';
import { cover, H_BRK_W, H_MEMBYTES_W, SC_F, type Mem } from './mem.js';

const S_HEAP_FREE_W = S_HEAP_FREE >> 2;
const SC_HEAP_ALLOCS_F = SC_F + (SC_HEAP_ALLOCS >> 3);
const SC_HEAP_FREES_F = SC_F + (SC_HEAP_FREES >> 3);
const SC_HEAP_BYTES_F = SC_F + (SC_HEAP_BYTES >> 3);
/** The most memory the layout addresses: H_MEMBYTES is a u32, so 65535 pages. */
const MEM_LIMIT = 0xffff0000;
/** The largest request a block can hold: class HEAP_CLASSES - 1 minus the header. */
const MAX_REQUEST = 2 ** (HEAP_CLASSES - 1 + HEAP_MIN_SHIFT) - BLOCK_HEADER;
/** Value blocks start on 16-byte boundaries (the smallest block). */
const BLOCK_ALIGN = 1 << HEAP_MIN_SHIFT;

/** Grows the memory in whole pages until it reaches byte `end` (refreshing this thread's
 *  views); false when it cannot. Heap lock holder (or init). */
export function memReach(m: Mem, end: number): boolean {
  if (end > MEM_LIMIT) return false;
  const have = m.memory.buffer.byteLength;
  if (end > have) {
    try {
      m.memory.grow(Math.ceil((end - have) / PAGE));
    } catch {
      return false; // past the memory's maximum
    }
  }
  if (end > m.end) m.refresh();
  return true;
}

/** Records the memory's size (at most MEM_LIMIT) in H_MEMBYTES. Heap lock holder (or init). */
export function memRecord(m: Mem): void {
  const have = m.memory.buffer.byteLength;
  Atomics.store(m.i32, H_MEMBYTES_W, (have > MEM_LIMIT ? MEM_LIMIT : have) | 0); // read by the runtime and schedtrace
}

/** Makes sure the memory reaches byte `end` and H_MEMBYTES says so; false when it cannot grow
 *  that far. Heap lock holder (or init). */
export function memEnsure(m: Mem, end: number): boolean {
  if (end <= (m.i32[H_MEMBYTES_W] >>> 0)) { // plain: only the heap lock holder writes it
    if (end > m.end) m.refresh(); // another thread grew it
    return true;
  }
  if (!memReach(m, end)) return false;
  memRecord(m);
  return true;
}

/** Bumps `brk`, rounded up to `align` (a power of two), by `bytes`; returns the start, or 0
 *  when the memory is exhausted. Heap lock holder (or init). */
export function sbrk(m: Mem, bytes: number, align: number): number {
  const brk = m.i32[H_BRK_W] >>> 0; // plain: only written under the heap lock
  const start = Math.ceil(brk / align) * align;
  const end = start + bytes;
  if (!memEnsure(m, end)) return 0;
  Atomics.store(m.i32, H_BRK_W, end | 0); // under the heap lock; read by schedtrace
  return start;
}

/** Size class of a request: max(0, ceil(log2(size + 8)) - 4); HEAP_CLASSES when too large.
 *  Any thread. */
export function heapClass(size: number): number {
  if (size > MAX_REQUEST) return HEAP_CLASSES;
  const c = 32 - Math.clz32(size + BLOCK_HEADER - 1) - HEAP_MIN_SHIFT;
  return c > 0 ? c : 0;
}

/** Allocates a value block of at least `size` user bytes and returns the user address
 *  (8-aligned, not cleared), or 0 when the memory is exhausted. Any thread. */
export function heapAlloc(m: Mem, size: number): number {
  size = size >>> 0;
  const c = heapClass(size);
  if (c >= HEAP_CLASSES) return 0;
  const bytes = 2 ** (c + HEAP_MIN_SHIFT);
  heapLock(m);
  let block = m.i32[S_HEAP_FREE_W + c] >>> 0; // plain: the class lists change only under the heap lock
  if (block !== 0) {
    cover(m, block + BLOCK_HEADER);
    m.i32[S_HEAP_FREE_W + c] = m.i32[block >>> 2]; // plain: under the heap lock
  } else {
    block = sbrk(m, bytes, BLOCK_ALIGN);
    if (block === 0) {
      heapUnlock(m);
      return 0;
    }
  }
  const i32 = m.i32;
  const bw = block >>> 2;
  i32[bw] = c; // plain: the block is ours; published by whatever hands its address on
  i32[bw + 1] = size;
  const f64 = m.f64;
  f64[SC_HEAP_ALLOCS_F] += 1; // plain: under the heap lock
  f64[SC_HEAP_BYTES_F] += bytes;
  heapUnlock(m);
  return block + BLOCK_HEADER;
}

/** Frees a block returned by heapAlloc (0 is ignored): pushes it on its class list. Any thread. */
export function heapFree(m: Mem, addr: number): void {
  if (addr === 0) return;
  const block = (addr >>> 0) - BLOCK_HEADER;
  cover(m, block + BLOCK_HEADER);
  const bw = block >>> 2;
  const c = m.i32[bw]; // plain: the caller owns the live block
  if ((c >>> 0) >= HEAP_CLASSES) {
    throw new Error(`heapFree: bad block addr=${addr >>> 0} class=${c >>> 0}`);
  }
  heapLock(m);
  const i32 = m.i32;
  i32[bw] = i32[S_HEAP_FREE_W + c]; // plain: under the heap lock
  i32[S_HEAP_FREE_W + c] = block;
  const f64 = m.f64;
  f64[SC_HEAP_FREES_F] += 1; // plain: under the heap lock
  f64[SC_HEAP_BYTES_F] -= 2 ** (c + HEAP_MIN_SHIFT);
  heapUnlock(m);
}
