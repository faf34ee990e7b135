// A worker thread's cache of small value blocks (docs/DESIGN.md "Small values"): the blocks its
// tasks free (an argument read, a result taken) wait here for the next small value this thread
// writes, instead of going back through the core's heap, whose lock and class lists every
// thread shares. Go keeps such a cache per P (mcache); here it is per M, because a block is
// freed wherever its value is read, P or not.
//
// The cache lives in the M's block in shared memory (assembly/shared/layout.ts M_BCACHE, the
// counts in MR_BCACHE_N), not in the thread's JS heap: a thread that dies (a crash, a kill,
// process.exit in a task) leaves it readable, and the main thread's recovery gives the dead M's
// blocks back (dropCache, from recover.ts) before a new thread takes the slot. A thread is only
// ever stopped in a task's own code (kill.ts; a crash in the runtime is a bug), never half way
// through a push or a pop here; even so, each writes the address before the count on a push
// and reads it before lowering the count on a pop, so a thread stopped between the two loses
// at most that one block and never frees one twice.
//
// Measured: fib(27) with a task per call, each returning [n, 1, depth], 2 Ps: heapAlloc and
// heapFree were about a tenth of the workers' profile without a cache, the class list's head
// and the freed blocks moving between the two cores with every call. With this cache 85% of
// those blocks never reach the core's heap; on a machine under load the time saved did not
// show beside the noise (DESIGN.md "Small values", item 8; bench/scheduler.mjs "small values").
//
// The blocks stay allocated in the core's accounts (stats().sched.heapLiveBlocks counts them)
// while cached; the M returns them all (flush) whenever it is about to sleep without a P and
// when it ends, so a scheduler at rest, or closed, holds none. The owning M only, but dropCache.

import {
  BCACHE_CLASSES, BCACHE_MAX, BLOCK_HEADER, HEAP_MIN_SHIFT, M_BCACHE, MR_BCACHE_N,
} from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import { mAddr } from './mblock.js';
import type { Heap, Views } from './values.js';

export class BlockCache implements Heap {
  private readonly core: Core;
  private readonly views: Views;
  /** The u32 index of this M's MR_BCACHE_N (class c's count at n + c). */
  private readonly n: number;
  /** The u32 index of this M's M_BCACHE (class c's addresses from list + c * BCACHE_MAX). */
  private readonly list: number;

  constructor(core: Core, views: Views, mid: number) {
    this.core = core;
    this.views = views;
    const m = mAddr(views, mid);
    this.n = (m + MR_BCACHE_N) >>> 2;
    this.list = (m + M_BCACHE) >>> 2;
  }

  /** A block of at least `size` bytes: a cached one of its class, else the core's (0 when the
   *  memory is exhausted). */
  heapAlloc(size: number): number {
    const c = size <= 8 ? 0 : 32 - Math.clz32(size + BLOCK_HEADER - 1) - HEAP_MIN_SHIFT; // the core's heapClass
    if (c < BCACHE_CLASSES) {
      const u32 = this.views.u32;
      const k = u32[this.n + c]!;
      if (k !== 0) {
        const addr = u32[this.list + c * BCACHE_MAX + k - 1]!; // read before the count drops: see the head
        u32[this.n + c] = k - 1; // plain: owner only
        u32[(addr - 4) >>> 2] = size; // the header's requested size, as the core writes it
        return addr;
      }
    }
    return this.core.heapAlloc(size);
  }

  /** Keeps a freed block of a cached class (its header says which), else gives it back. */
  heapFree(addr: number): void {
    if (addr === 0) return;
    const v = this.views;
    if (addr > v.end) v.refresh(); // a block in memory grown since these views were made
    const u32 = v.u32;
    const c = u32[(addr - BLOCK_HEADER) >>> 2]!;
    if (c < BCACHE_CLASSES) {
      const k = u32[this.n + c]!;
      if (k < BCACHE_MAX) {
        u32[this.list + c * BCACHE_MAX + k] = addr; // written before the count rises: see the head
        u32[this.n + c] = k + 1; // plain: owner only
        return;
      }
    }
    this.core.heapFree(addr);
  }

  /** Gives every cached block back to the core. */
  flush(): void {
    dropCache(this.views, this.core, this.n, this.list);
  }
}

/** Gives back the blocks in the cache at u32 indices n (counts) and list (addresses). */
function dropCache(views: Views, core: Core, n: number, list: number): number {
  let freed = 0;
  for (let c = 0; c < BCACHE_CLASSES; c++) {
    const u32 = views.u32;
    const k = u32[n + c]!;
    u32[n + c] = 0;
    for (let i = 0; i < k; i++) core.heapFree(u32[list + c * BCACHE_MAX + i]!);
    freed += k;
  }
  return freed;
}

/**
 * Gives back the blocks M slot mid's cache held: the main thread's recovery of a thread that
 * died (recover.ts), after it is gone and before its successor starts. Returns how many.
 */
export function dropDeadCache(views: Views, core: Core, mid: number): number {
  views.refresh();
  const m = mAddr(views, mid);
  return dropCache(views, core, (m + MR_BCACHE_N) >>> 2, (m + M_BCACHE) >>> 2);
}
