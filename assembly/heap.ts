// The shared heap: brk, memory growth and value blocks (docs/DESIGN.md, "Value blocks",
// "Growing the G table").
//
// Right of H_BRK everything is bump-allocated under the heap lock: G table chunks and value
// blocks. Value blocks come in power-of-two size classes, 2^(c+4) bytes for class c; a freed
// block goes on its class list (S_HEAP_FREE[c], linked through the block's first word) and is
// never returned to brk.
//
//   block +0  class c (while free: address of the next free block of the class, 0 ends)
//         +4  requested user size (kept while free)
//         +8  user bytes (BLOCK_HEADER)

import {
  BLOCK_HEADER, HEADER, HEAP_CLASSES, HEAP_MIN_SHIFT, H_BRK, H_MEMBYTES, PAGE, S_COUNTERS,
  S_HEAP_FREE, SC_HEAP_ALLOCS, SC_HEAP_BYTES, SC_HEAP_FREES,
} from './shared/layout';
import { counterAdd } from './mem';
import { heapLock, heapUnlock } from './lock';
import { beginAbort } from './abort';
import { reach } from './bounds';

/** The most memory the layout uses: H_MEMBYTES is a u32, so 65535 pages (4 GiB - 64 KiB). */
const MEM_LIMIT: u64 = 0xffff0000;

/** The largest request heapAlloc serves: the biggest class holds 2^30 bytes with its header. */
const MAX_USER_SIZE: u32 = (1 << (HEAP_CLASSES - 1 + HEAP_MIN_SHIFT)) - BLOCK_HEADER;

/** Grows the memory, in whole pages, until it reaches byte `end`; false when it cannot. Holds the heap lock (or init). */
export function memReach(end: u64): bool {
  if (end > MEM_LIMIT) return false;
  let have = <u64>memory.size() << 16;
  if (end <= have) return true;
  return memory.grow(<i32>((end - have + PAGE - 1) >> 16)) >= 0;
}

/** Records the memory's size in H_MEMBYTES. Holds the heap lock (or init). */
export function memRecord(): void {
  let have = <u64>memory.size() << 16;
  if (have > MEM_LIMIT) have = MEM_LIMIT;
  atomic.store<u32>(HEADER, <u32>have, H_MEMBYTES); // pairs with the TS twin's view refresh
}

/**
 * Makes sure the memory reaches byte `end` (growing it in whole pages) and H_MEMBYTES says so.
 * False when the memory cannot grow that far. Holds the heap lock (or init).
 */
export function memEnsure(end: u64): bool {
  if (end <= <u64>load<u32>(HEADER, H_MEMBYTES)) return true; // plain: only the heap lock holder writes it
  if (!memReach(end)) return false;
  memRecord();
  return true;
}

/**
 * Bumps brk by `size` bytes from brk rounded up to `align` (a power of two), growing memory as
 * needed. Returns the start, or 0 when memory is exhausted. Holds the heap lock (or init).
 */
export function sbrk(size: u32, align: u32): usize {
  let brk = <u64>load<u32>(HEADER, H_BRK); // plain: only the heap lock holder writes brk
  let start = (brk + <u64>align - 1) & ~(<u64>align - 1);
  let end = start + <u64>size;
  if (!memEnsure(end)) return 0;
  atomic.store<u32>(HEADER, <u32>end, H_BRK); // pairs with readers of brk (stats, tests)
  return <usize>start;
}

/** Size class of a request: c = max(0, ceil(log2(size + 8)) - 4). Any thread. */
@inline export function heapClass(size: u32): u32 {
  let bytes = size + BLOCK_HEADER;
  let log2 = 32 - clz<u32>(bytes - 1); // ceil(log2(bytes)), bytes >= 8
  return log2 > HEAP_MIN_SHIFT ? log2 - HEAP_MIN_SHIFT : 0;
}

/** Address of at least `size` user bytes (8-aligned, not zeroed), 0 when memory is exhausted. Any thread. */
export function heapAlloc(size: u32): usize {
  if (size > MAX_USER_SIZE) return 0;
  let c = heapClass(size);
  let blockSize: u32 = 1 << (c + HEAP_MIN_SHIFT);
  let list = <usize>S_HEAP_FREE + (<usize>c << 2);
  heapLock();
  let block = <usize>load<u32>(list); // plain: class lists change only under the heap lock
  if (block != 0) {
    reach(block + BLOCK_HEADER); // another thread may have grown the memory the block lies in
    store<u32>(list, load<u32>(block)); // plain pop: heap lock held; the block's first word links the next
  } else {
    block = sbrk(blockSize, 1 << HEAP_MIN_SHIFT);
    if (block == 0) {
      heapUnlock();
      return 0;
    }
  }
  store<u32>(block, c); // plain: the block is ours until heapAlloc returns it
  store<u32>(block, size, 4); // plain: as above
  counterAdd(S_COUNTERS + SC_HEAP_ALLOCS, 1);
  counterAdd(S_COUNTERS + SC_HEAP_BYTES, <f64>blockSize);
  heapUnlock();
  return block + BLOCK_HEADER;
}

/** Frees a block returned by heapAlloc; 0 is ignored. Any thread. */
export function heapFree(addr: usize): void {
  if (addr == 0) return;
  let block = addr - BLOCK_HEADER;
  reach(addr); // another thread may have grown the memory the block lies in
  let c = load<u32>(block); // plain: the caller owns the live block
  if (c >= <u32>HEAP_CLASSES) {
    beginAbort();
    throw new Error('heapFree: bad block addr=' + addr.toString() + ' class=' + c.toString());
  }
  let list = <usize>S_HEAP_FREE + (<usize>c << 2);
  heapLock();
  store<u32>(block, load<u32>(list)); // plain push: heap lock held; link to the old first block
  store<u32>(list, <u32>block); // plain: class lists change only under the heap lock
  counterAdd(S_COUNTERS + SC_HEAP_FREES, 1);
  counterAdd(S_COUNTERS + SC_HEAP_BYTES, -<f64>(1 << (c + HEAP_MIN_SHIFT)));
  heapUnlock();
}
