// Not in use: M does not turn it on (a dying thread lost its cached blocks; see m.ts). A worker
// thread's cache of small value blocks (docs/DESIGN.md "Small values"): the blocks its
// tasks free (an argument read, a result taken) wait here for the next small value this thread
// writes, instead of going back through the core's heap, whose lock and class lists every
// thread shares. Go keeps such a cache per P (mcache); here it is per M, in the M's own JS
// heap, because a block is freed wherever its value is read, P or not.
//
// Measured: fib(27) with a task per call, each returning [n, 1, depth], 2 Ps: heapAlloc and
// heapFree were about a tenth of the workers' profile, the class list's head and the freed
// blocks moving between the two cores with every call (bench/fork.mjs, "tuple").
//
// The blocks stay allocated in the core's accounts (stats().sched.heapLiveBlocks counts them)
// while cached; the M returns them all (flush) whenever it is about to sleep without a P and
// when it ends, so a scheduler at rest, or closed, holds none. A crashed thread's cache is lost
// with it: at most CACHE_MAX blocks per class. A thread that runs a kill-armed task (kill.ts)
// gives its cache back first and keeps none after (GSlots.dropBlocks): a kill ends the thread
// in the task's own code, and would lose it. The owning M only.

import { BLOCK_HEADER, HEAP_MIN_SHIFT } from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import type { Heap, Views } from './values.js';

/** The size classes cached: blocks of 16 to 128 bytes (values of up to 120 bytes), which every
 *  small value's block is (the codec's small.ts: at most 16 items). */
const CACHED_CLASSES = 4;
/** Blocks kept per class: enough for the results of a wide join in flight on one thread. */
const CACHE_MAX = 64;

export class BlockCache implements Heap {
  private readonly core: Core;
  private readonly views: Views;
  /** Free block addresses (the user address, as heapAlloc gives it), per class. */
  private readonly lists: number[][] = [];

  constructor(core: Core, views: Views) {
    this.core = core;
    this.views = views;
    for (let c = 0; c < CACHED_CLASSES; c++) this.lists.push([]);
  }

  /** A block of at least `size` bytes: a cached one of its class, else the core's (0 when the
   *  memory is exhausted). */
  heapAlloc(size: number): number {
    const c = size <= 8 ? 0 : 32 - Math.clz32(size + BLOCK_HEADER - 1) - HEAP_MIN_SHIFT; // the core's heapClass
    if (c < CACHED_CLASSES) {
      const list = this.lists[c];
      if (list.length !== 0) {
        const addr = list.pop()!;
        this.views.u32[(addr - 4) >>> 2] = size; // the header's requested size, as the core writes it
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
    const c = v.u32[(addr - BLOCK_HEADER) >>> 2];
    if (c < CACHED_CLASSES) {
      const list = this.lists[c];
      if (list.length < CACHE_MAX) { list.push(addr); return; }
    }
    this.core.heapFree(addr);
  }

  /** Gives every cached block back to the core. */
  flush(): void {
    for (let c = 0; c < CACHED_CLASSES; c++) {
      const list = this.lists[c];
      while (list.length !== 0) this.core.heapFree(list.pop()!);
    }
  }
}
