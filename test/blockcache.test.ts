// The M's cache of small value blocks (bindings/runtime/memory/blockcache.ts, DESIGN.md "Small
// values"): it lives in the M's block in shared memory, so what a dead thread held is found and
// given back by its recovery (dropDeadCache). Driven on a core's real memory, both backends, the
// test thread playing M1 and the main thread.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { BlockCache, dropDeadCache } from '../dist/bindings/runtime/memory/blockcache.js';
import { createViews } from '../dist/bindings/codec/views.js';
import { BACKENDS, freshCore } from './helpers/core.js';

describe.each(BACKENDS)('block cache in the M block (%s)', (backend) => {
  const setup = async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 4 });
    const views = createViews(h.memory);
    const f64 = (): Float64Array => new Float64Array(h.memory.buffer);
    /** Value blocks allocated and not freed, in the core's accounts. */
    const live = (): number => f64()[(L.S_COUNTERS + L.SC_HEAP_ALLOCS) >>> 3] - f64()[(L.S_COUNTERS + L.SC_HEAP_FREES) >>> 3];
    /** M m's cached blocks per class, read from its block. */
    const counts = (m: number): number[] => {
      const u32 = new Uint32Array(h.memory.buffer);
      const n = (h.mem.mAddr(m) + L.MR_BCACHE_N) >>> 2;
      return Array.from({ length: L.BCACHE_CLASSES }, (_, c) => u32[n + c]);
    };
    return { h, views, live, counts };
  };

  it('keeps the small blocks it frees in the M block, hands them out again, and gives the rest to the core', async () => {
    const { h, views, live, counts } = await setup();
    const cache = new BlockCache(h.core, views, 1);
    const small = [24, 24, 56, 100].map((n) => h.core.heapAlloc(n)); // classes 1, 1, 2, 3
    const big = h.core.heapAlloc(500); // class 5: never cached
    expect(live()).toBe(5);
    for (const b of small) cache.heapFree(b);
    cache.heapFree(big);
    expect(counts(1)).toEqual([0, 2, 1, 1]);
    expect(live(), 'cached blocks stay allocated; the big one went back').toBe(4);
    expect(counts(2), 'another M\'s cache is untouched').toEqual([0, 0, 0, 0]);
    const again = cache.heapAlloc(20); // class 1: the last one cached
    expect(again).toBe(small[1]);
    expect(new Uint32Array(h.memory.buffer)[(again - 4) >>> 2], 'the header\'s requested size').toBe(20);
    expect(counts(1)).toEqual([0, 1, 1, 1]);
    expect(live()).toBe(4);
    cache.flush();
    expect(counts(1)).toEqual([0, 0, 0, 0]);
    expect(live(), 'only the block handed out is left').toBe(1);
  });

  it('holds at most BCACHE_MAX blocks a class; past it a freed block goes to the core', async () => {
    const { h, views, live, counts } = await setup();
    const cache = new BlockCache(h.core, views, 1);
    const bs = Array.from({ length: L.BCACHE_MAX + 3 }, () => h.core.heapAlloc(8)); // class 0
    for (const b of bs) cache.heapFree(b);
    expect(counts(1)[0]).toBe(L.BCACHE_MAX);
    expect(live()).toBe(L.BCACHE_MAX);
    cache.flush();
    expect(live()).toBe(0);
  });

  it('what a dead M\'s cache held is given back by its recovery (dropDeadCache), on another thread\'s views', async () => {
    const { h, views, live, counts } = await setup();
    const dying = new BlockCache(h.core, views, 3);
    for (const n of [8, 24, 24, 56, 100, 120]) dying.heapFree(h.core.heapAlloc(n));
    expect(counts(3)).toEqual([1, 2, 1, 2]);
    expect(live()).toBe(6);
    // The thread is gone; the main thread sees only the shared memory.
    expect(dropDeadCache(createViews(h.memory), h.core, 3)).toBe(6);
    expect(counts(3)).toEqual([0, 0, 0, 0]);
    expect(live()).toBe(0);
    expect(dropDeadCache(createViews(h.memory), h.core, 3), 'a second recovery finds nothing').toBe(0);
  });
});
