// Free Gs and value blocks, single-threaded, for both backends (DESIGN.md "Free Gs", "Value
// blocks"): the per-P cache's batch moves (at 64 down to 31, refill 32), the global Treiber stack
// and its version, table growth chunk by chunk up to gmax, generations, and heapAlloc/heapFree
// reuse and counters. The threaded version of the free-list checks is in core-threads.test.ts.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import type { Core } from '../bindings/core/index.js';
import { attachAgain, BACKENDS, freshCore, takeGs, type Harness } from './helpers/core.js';

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** Free Gs counted by walking every list must equal gcap - 1 - live. */
function expectWhole(h: Harness, live: number): void {
  const free = h.mem.allFree();
  expect(new Set(free).size, 'no G on two free lists').toBe(free.length);
  expect(free.length, 'free = gcap - 1 - live').toBe(h.mem.gcap - 1 - live);
  for (const g of free) expect(h.mem.g(g, L.G_STATUS)).toBe(L.G_DEAD);
  expect(h.mem.u32(L.S_GFREE_N), 'S_GFREE_N (exact when single-threaded)').toBe(h.mem.gfreeGlobal().length);
}

/** Class of a block: max(0, ceil(log2(size + 8)) - 4). */
function sizeClass(size: number): number {
  let c = 0;
  while (2 ** (c + L.HEAP_MIN_SHIFT) < size + L.BLOCK_HEADER) c++;
  return c;
}

describe.each(BACKENDS)('free Gs (%s)', (backend) => {
  it('init: the first chunk on the global stack, lowest id on top, id 0 never handed out', async () => {
    const h = await freshCore(backend, { gcapInit: L.G_CHUNK });
    expect(h.mem.gfreeGlobal()).toEqual(range(1, L.G_CHUNK));
    expectWhole(h, 0);
    expect(takeGs(h, 5)).toEqual([1, 2, 3, 4, 5]);
    expectWhole(h, 5);
  });

  it('gfGet returns a dead G with every field zeroed except status and generation', async () => {
    const h = await freshCore(backend);
    const { core, mem } = h;
    const [g] = takeGs(h, 1);
    expect(core.gAddr(g)).toBe(mem.gAddr(g));
    const a = core.gAddr(g);
    expect(mem.u32(a + L.G_STATUS)).toBe(L.G_DEAD);
    const gen0 = mem.u32(a + L.G_GEN);
    for (let o = 4; o < L.G_SIZE; o += 4) if (o !== L.G_GEN) mem.setU32(a + o, 0xa5a5a5a5);
    core.gfPut(-1, g);
    expect(mem.u32(a + L.G_GEN)).toBe(gen0 + 1);
    expect(core.gfGet(-1)).toBe(g); // LIFO
    for (let o = 0; o < L.G_SIZE; o += 4) {
      const want = o === L.G_STATUS ? L.G_DEAD : o === L.G_GEN ? gen0 + 1 : 0;
      expect(mem.u32(a + o), `offset ${o}`).toBe(want);
    }
  });

  it('generation: every gfPut bumps it by one, locally or globally', async () => {
    const h = await freshCore(backend);
    const { core, mem } = h;
    const [g] = takeGs(h, 1, 0);
    const gen0 = mem.g(g, L.G_GEN);
    for (let i = 1; i <= 10; i++) {
      core.gfPut(i % 2 === 0 ? -1 : 0, g);
      expect(mem.g(g, L.G_GEN)).toBe(gen0 + i);
      const again = core.gfGet(i % 2 === 0 ? -1 : 0);
      expect(again).toBe(g);
    }
  });

  it('gfGet(p) on an empty cache refills 32 from the global stack (one move)', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    expect(core.gfGet(0)).toBe(32); // popped 1..32 onto the cache: 32 on top
    expect(mem.gfreeLocal(0)).toEqual(range(1, 32).reverse());
    expect(mem.pc(0, L.PC_GFREE_MOVES)).toBe(1);
    expect(mem.gfreeGlobal()[0]).toBe(33);
    expectWhole(h, 1);
    // 31 more come from the cache without a move; the next refills again.
    for (let i = 31; i >= 1; i--) expect(core.gfGet(0)).toBe(i);
    expect(mem.pc(0, L.PC_GFREE_MOVES)).toBe(1);
    expect(core.gfGet(0)).toBe(64);
    expect(mem.pc(0, L.PC_GFREE_MOVES)).toBe(2);
    expect(mem.pc(1, L.PC_GFREE_MOVES)).toBe(0);
    expectWhole(h, 33);
  });

  it('gfPut(p): the 64th G moves 33 to the global stack and leaves 31', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const xs = takeGs(h, 64); // from the global stack: the cache stays empty
    for (let i = 0; i < 63; i++) core.gfPut(1, xs[i]);
    expect(mem.p(1, L.P_GFREE_N)).toBe(63);
    expect(mem.pc(1, L.PC_GFREE_MOVES)).toBe(0);
    const globalBefore = mem.gfreeGlobal();
    core.gfPut(1, xs[63]);
    expect(mem.p(1, L.P_GFREE_N)).toBe(L.GFREE_LOCAL_KEEP - 1);
    expect(mem.pc(1, L.PC_GFREE_MOVES)).toBe(1);
    // Popped from the cache top (xs[63] first) and pushed one by one: xs[31] ends on top.
    expect(mem.gfreeLocal(1)).toEqual(xs.slice(0, 31).reverse());
    expect(mem.gfreeGlobal()).toEqual([...xs.slice(31, 64), ...globalBefore]);
    expectWhole(h, 0);
  });

  it('the global stack is LIFO and its version moves with every push and pop', async () => {
    const h = await freshCore(backend);
    const { core, mem } = h;
    const [a, b, c] = takeGs(h, 3);
    const v0 = mem.gfreeVersion();
    core.gfPut(-1, a);
    core.gfPut(-1, b);
    core.gfPut(-1, c);
    expect(mem.gfreeVersion()).toBe((v0 + 3) >>> 0);
    expect(mem.gfreeGlobal().slice(0, 3)).toEqual([c, b, a]);
    expect(takeGs(h, 3)).toEqual([c, b, a]);
    expect(mem.gfreeVersion()).toBe((v0 + 6) >>> 0);
    core.gfGet(0); // a refill: 32 pops
    expect(mem.gfreeVersion()).toBe((v0 + 6 + 32) >>> 0);
  });

  it('the table grows chunk by chunk up to gmax, then gfGet returns 0 (global)', async () => {
    const gmax = 3 * L.G_CHUNK;
    const h = await freshCore(backend, { gcapInit: L.G_CHUNK, gmax, initialPages: 4 });
    const { core, mem } = h;
    const grows0 = mem.sc(L.SC_GROWS);
    const got = takeGs(h, gmax - 1);
    expect(got).toEqual(range(1, gmax)); // each new chunk pushed lowest id on top
    expect(mem.gcap).toBe(gmax);
    expect(mem.sc(L.SC_GROWS)).toBe(grows0 + 2);
    expect(core.gfGet(-1)).toBe(0);
    expect(core.gfGet(0)).toBe(0);
    expect(core.gfGet(-1)).toBe(0);
    expect(mem.gcap).toBe(gmax);
    expect(mem.sc(L.SC_GROWS)).toBe(grows0 + 2);
    // Every G has its own slot; the core agrees with the directory.
    const addrs = new Set<number>();
    for (const g of got) {
      const a = core.gAddr(g);
      expect(a).toBe(mem.gAddr(g));
      addrs.add(a);
    }
    expect(addrs.size).toBe(got.length);
    expect(mem.brk).toBeLessThanOrEqual(mem.byteLength);
    expect(mem.hdr(L.H_MEMBYTES)).toBe(mem.byteLength);
    for (const g of got) expect(mem.g(g, L.G_STATUS)).toBe(L.G_DEAD);
    expectWhole(h, got.length);
    for (const g of got) core.gfPut(-1, g);
    expectWhole(h, 0);
  });

  it('the table grows through a P cache too, and every id comes out once', async () => {
    const gmax = 4 * L.G_CHUNK;
    const h = await freshCore(backend, { nprocs: 3, gcapInit: L.G_CHUNK, gmax });
    const { core, mem } = h;
    // Round-robin until every P comes back empty-handed (a P's gfGet does not look in another
    // P's cache, so the first 0 can come while others still hold cached Gs).
    const got: number[] = [];
    const open = new Set([0, 1, 2]);
    for (let i = 0; open.size > 0; i++) {
      const p = i % 3;
      if (!open.has(p)) continue;
      const g = core.gfGet(p);
      if (g === 0) open.delete(p);
      else got.push(g);
    }
    expect(got.length).toBe(gmax - 1);
    expect(new Set(got).size).toBe(gmax - 1);
    expect(Math.min(...got)).toBe(1);
    expect(Math.max(...got)).toBe(gmax - 1);
    expect(mem.gcap).toBe(gmax);
    for (let p = 0; p < 3; p++) expect(core.gfGet(p)).toBe(0);
    expectWhole(h, gmax - 1);
  });

  it('mixed gets and puts keep the free lists whole', async () => {
    const h = await freshCore(backend, { nprocs: 3, gcapInit: L.G_CHUNK, gmax: 2 * L.G_CHUNK });
    const { core } = h;
    const held: number[] = [];
    let x = 12345;
    const rnd = (n: number): number => {
      x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
      return (x >>> 0) % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const p = rnd(4) - 1;
      if (held.length === 0 || (rnd(2) === 0 && held.length < 1500)) {
        const g = core.gfGet(p);
        if (g !== 0) held.push(g);
      } else {
        const [g] = held.splice(rnd(held.length), 1);
        core.gfPut(p, g);
      }
      if (i % 2000 === 0) expectWhole(h, held.length);
    }
    expectWhole(h, held.length);
  });
});

describe.each(BACKENDS)('a thread attached before the memory grew (%s)', (backend) => {
  // DESIGN.md "Growing the G table": every thread sees the new memory, the TS twin by refreshing
  // its views when an address lies past them. `other` attaches while memory is 4 pages; `h.core`
  // then grows the G table past that, and `other` works on Gs of the new chunks.
  const grown = async (): Promise<{ h: Harness; other: Core; far: number[] }> => {
    const h = await freshCore(backend, { nprocs: 2, initialPages: 4, gcapInit: L.G_CHUNK, gmax: 4 * L.G_CHUNK });
    const other = await attachAgain(h);
    const len = h.mem.byteLength;
    const held = takeGs(h, 2 * L.G_CHUNK); // the third chunk starts past `other`'s views
    const far = held.filter((g) => h.core.gAddr(g) >= len);
    expect(far.length).toBeGreaterThan(0);
    expect(h.mem.byteLength).toBeGreaterThan(len);
    for (const g of held) h.core.gfPut(-1, g);
    return { h, other, far };
  };

  it('pops and pushes Gs of new chunks on the global free stack without losing any', async () => {
    const { h, other, far } = await grown();
    const top = h.mem.gfreeGlobal()[0];
    expect(far).toContain(top);
    expect(other.gfGet(-1)).toBe(top);
    expectWhole(h, 1);
    other.gfPut(-1, top);
    expectWhole(h, 0);
  });

  it('readies, queues, steals and frees Gs of new chunks', async () => {
    const { h, other, far } = await grown();
    const gs = far.slice(0, 4).map(() => h.core.gfGet(-1));
    for (const g of gs) expect(h.core.gAddr(g)).toBe(other.gAddr(g));
    other.ready(-1, gs[0], 0);
    other.gSetStatus(gs[1], L.G_DEAD, L.G_RUNNABLE);
    other.runqPut(0, gs[1], 0);
    other.gSetStatus(gs[2], L.G_DEAD, L.G_RUNNABLE);
    other.runqPut(0, gs[2], 1);
    expect(other.runqSteal(1, 0, 1)).toBe(gs[1]);
    expect(other.globrunqGet(1, 0)).toBe(gs[0]);
    other.gfPut(1, gs[3]);
    expect(h.mem.gfreeLocal(1)).toEqual([gs[3]]);
    expect(h.mem.runnext(0)).toBe(gs[2]);
  });

  it('allocates value blocks after another thread grew the memory', async () => {
    const { h, other } = await grown();
    const a = h.core.heapAlloc(1 << 20); // grows the memory again, past `other`'s views
    const b = other.heapAlloc(1 << 20); // `other` bumps brk past it
    expect(b).not.toBe(0);
    expect(b >= a + (1 << 20) || b + (1 << 20) <= a).toBe(true);
    other.heapFree(a);
    expect(h.core.heapAlloc(1 << 20)).toBe(a);
    expect(h.mem.sc(L.SC_HEAP_ALLOCS) - h.mem.sc(L.SC_HEAP_FREES)).toBe(2);
  });
});

describe.each(BACKENDS)('value blocks (%s)', (backend) => {
  it('size classes: block of 2^(c+4) bytes, 8-aligned user address, counters', async () => {
    const h = await freshCore(backend);
    const { core, mem } = h;
    const sizes = [0, 1, 8, 9, 24, 25, 56, 57, 120, 121, 1000, 4088, 4089, 100_000];
    let bytes = 0;
    const blocks: Array<[number, number]> = [];
    for (const size of sizes) {
      const a = core.heapAlloc(size);
      expect(a, `size ${size}`).not.toBe(0);
      expect(a % 8).toBe(0);
      expect(a + size).toBeLessThanOrEqual(mem.byteLength);
      const block = 2 ** (sizeClass(size) + L.HEAP_MIN_SHIFT);
      bytes += block;
      blocks.push([a - L.BLOCK_HEADER, block]);
    }
    expect(sizeClass(1)).toBe(0);
    expect(sizeClass(9)).toBe(1);
    expect(sizeClass(1000)).toBe(6);
    expect(mem.sc(L.SC_HEAP_ALLOCS)).toBe(sizes.length);
    expect(mem.sc(L.SC_HEAP_FREES)).toBe(0);
    expect(mem.sc(L.SC_HEAP_BYTES)).toBe(bytes);
    // Blocks are disjoint, and lie past the fixed layout and clear of every G chunk.
    const fixedEnd = mem.hdr(L.H_MBASE) + mem.maxMs * L.M_SIZE;
    const chunks: Array<[number, number]> = [];
    for (let c = 0; c * L.G_CHUNK < mem.gcap; c++) chunks.push([mem.u32(L.GDIR + 4 * c), L.G_CHUNK * L.G_SIZE]);
    const all = [...blocks, ...chunks].sort((a, b) => a[0] - b[0]);
    expect(all[0][0]).toBeGreaterThanOrEqual(fixedEnd);
    for (let i = 1; i < all.length; i++) expect(all[i][0]).toBeGreaterThanOrEqual(all[i - 1][0] + all[i - 1][1]);
    expect(mem.u32(L.S_HEAP_LOCK)).toBe(0);
  });

  it('a freed block is reused by its class, last freed first, and only by its class', async () => {
    const h = await freshCore(backend);
    const { core, mem } = h;
    const a = core.heapAlloc(10);
    const b = core.heapAlloc(20);
    const c = core.heapAlloc(100);
    core.heapFree(a);
    core.heapFree(b);
    expect(mem.sc(L.SC_HEAP_FREES)).toBe(2);
    expect(mem.sc(L.SC_HEAP_BYTES)).toBe(128);
    const d = core.heapAlloc(3); // class 0: not a or b
    expect([a, b, c]).not.toContain(d);
    expect(core.heapAlloc(24)).toBe(b); // class 1, last freed
    expect(core.heapAlloc(9)).toBe(a);
    expect(mem.sc(L.SC_HEAP_ALLOCS)).toBe(6);
  });

  it('contents survive other allocations, frees and G table growth', async () => {
    const h = await freshCore(backend, { gcapInit: L.G_CHUNK, gmax: 4 * L.G_CHUNK, initialPages: 4 });
    const { core, mem } = h;
    const live = new Map<number, number>();
    const fill = (a: number, size: number, tag: number): void => {
      for (let i = 0; i < size; i++) mem.setU8(a + i, (tag + i) & 0xff);
    };
    const check = (): void => {
      for (const [a, size] of live) {
        for (let i = 0; i < size; i++) if (mem.u8(a + i) !== ((a + i) & 0xff)) throw new Error(`block ${a} byte ${i} clobbered`);
      }
    };
    let x = 99;
    const rnd = (n: number): number => {
      x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
      return (x >>> 0) % n;
    };
    for (let i = 0; i < 600; i++) {
      if (live.size === 0 || rnd(3) !== 0) {
        const size = 1 + rnd(rnd(2) === 0 ? 64 : 5000);
        const a = core.heapAlloc(size);
        expect(a).not.toBe(0);
        fill(a, size, a);
        live.set(a, size);
      } else {
        const keys = [...live.keys()];
        const a = keys[rnd(keys.length)];
        live.delete(a);
        core.heapFree(a);
      }
      if (i === 300) takeGs(h, 3 * L.G_CHUNK); // grows the table between value blocks
    }
    check();
    expect(mem.sc(L.SC_HEAP_ALLOCS) - mem.sc(L.SC_HEAP_FREES)).toBe(live.size);
    let bytes = 0;
    for (const size of live.values()) bytes += 2 ** (sizeClass(size) + L.HEAP_MIN_SHIFT);
    expect(mem.sc(L.SC_HEAP_BYTES)).toBe(bytes);
    for (const a of live.keys()) core.heapFree(a);
    expect(mem.sc(L.SC_HEAP_BYTES)).toBe(0);
    expect(mem.sc(L.SC_HEAP_ALLOCS)).toBe(mem.sc(L.SC_HEAP_FREES));
  });

  it('grows memory in whole pages and records it; 0 when the maximum is reached', async () => {
    const h = await freshCore(backend, { initialPages: 8, maximumPages: 64 });
    const { core, mem } = h;
    const len0 = mem.byteLength;
    const a = core.heapAlloc(1 << 20);
    expect(a).not.toBe(0);
    expect(mem.byteLength).toBeGreaterThan(len0);
    expect(mem.byteLength % L.PAGE).toBe(0);
    expect(mem.hdr(L.H_MEMBYTES)).toBe(mem.byteLength);
    expect(a + (1 << 20)).toBeLessThanOrEqual(mem.byteLength);
    const allocs = mem.sc(L.SC_HEAP_ALLOCS);
    const bytes = mem.sc(L.SC_HEAP_BYTES);
    expect(core.heapAlloc(8 << 20)).toBe(0); // 8 MiB more does not fit in 4 MiB of maximum
    expect(mem.sc(L.SC_HEAP_ALLOCS)).toBe(allocs);
    expect(mem.sc(L.SC_HEAP_BYTES)).toBe(bytes);
    expect(mem.u32(L.S_HEAP_LOCK)).toBe(0);
    expect(core.heapAlloc(100)).not.toBe(0); // still usable
  });
});
