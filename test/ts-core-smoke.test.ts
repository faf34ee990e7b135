// Smoke tests of the TypeScript twin of the core (bindings/core/ts/), single-threaded: Go's
// run-queue tests (runtime/proc_test.go) plus the free lists, the heap and the park protocol.

import { describe, expect, it } from 'vitest';
import {
  FLAG_DEBUG, FLAG_GLOBAL_ONLY, FLAG_THRESHOLD_LOAD, GFREE_LOCAL_KEEP, G_CHUNK, G_DEAD, G_GEN,
  G_IDLE, G_RUNNABLE, G_RUNNING, G_SCHEDLINK, G_SIZE, G_STATUS, HEADER, H_BRK, H_GCAP, H_MBASE,
  H_MEMBYTES, LINE, M_NEXTP, M_PARK, M_SIZE, M_SPINNING, ORDER_RANDOM, ORDER_ROUND_ROBIN, PAGE,
  PC_EXECUTED, PC_GFREE_MOVES, PC_GLOBAL_HITS, PC_LOCAL_HITS, PC_OVERFLOWS, PC_PARKS,
  PC_RUNNEXT_HITS, PC_SPAWNED, PC_SPINS, PC_STEAL_MISSES, PC_STEAL_OPS, PC_STOLEN, PC_WAKEUPS, PS,
  P_COUNTERS, P_GFREE_N, P_IDLE, P_M, P_RUNNING, P_SCHEDTICK, P_SIZE, P_STATUS, P_STEAL_FROM_OPS,
  P_STOLEN_FROM, RUNQ_SIZE, SC_GLOB_GET, SC_GLOB_PUT, SC_GROWS, SC_HEAP_ALLOCS, SC_HEAP_BYTES,
  SC_HEAP_FREES, SC_LOCK_ACQ, S_COUNTERS, S_GFREE_N, S_MIDLE, S_NEEDSPINNING, S_NMIDLE,
  S_NMSPINNING, S_NPIDLE, S_PIDLE, S_RUNQ_SIZE,
} from '../assembly/shared/layout.js';
import { Stop, type Core } from '../bindings/core/core.js';
import { createTsCore } from '../bindings/core/ts/index.js';

interface Fixture {
  core: Core;
  memory: WebAssembly.Memory;
  u32(addr: number): number;
  f64(addr: number): number;
  setU32(addr: number, v: number): void;
}

interface Options {
  nprocs?: number;
  maxMs?: number;
  gcapInit?: number;
  gmax?: number;
  flags?: number;
  threshold?: number;
  seed?: number;
}

/** A fresh shared memory with the layout laid down by the TS core. */
function setup(o: Options = {}): Fixture {
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 2048, shared: true });
  const core = createTsCore(memory, false);
  core.init(o.nprocs ?? 4, o.maxMs ?? 8, o.gcapInit ?? 1024, o.gmax ?? 8192,
    o.flags ?? FLAG_DEBUG, o.threshold ?? 1, o.seed ?? 12345);
  return {
    core,
    memory,
    u32: (addr) => new Uint32Array(memory.buffer)[addr >>> 2],
    f64: (addr) => new Float64Array(memory.buffer)[addr >>> 3],
    setU32: (addr, v) => { new Uint32Array(memory.buffer)[addr >>> 2] = v; },
  };
}

const pAt = (p: number, off: number): number => PS + p * P_SIZE + off;
const pc = (p: number, off: number): number => pAt(p, P_COUNTERS + off);
const sc = (off: number): number => S_COUNTERS + off;

/** n fresh Gs from the global free stack. */
function gs(core: Core, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(core.gfGet(-1));
  return out;
}

describe('local run queue (Go: TestSchedLocalQueue)', () => {
  it('put then get returns the same Gs in order at every fill level 0..256', () => {
    const { core } = setup();
    const g = gs(core, RUNQ_SIZE);
    for (let i = 0; i <= RUNQ_SIZE; i++) {
      expect(core.runqEmpty(0)).toBe(1);
      expect(core.runqGet(0)).toBe(0);
      for (let j = 0; j < i; j++) core.runqPut(0, g[j], 0);
      expect(core.runqLen(0)).toBe(i);
      expect(core.runqEmpty(0)).toBe(i === 0 ? 1 : 0);
      for (let j = 0; j < i; j++) expect(core.runqGet(0)).toBe(g[j]);
      expect(core.runqGet(0)).toBe(0);
      expect(core.runqEmpty(0)).toBe(1);
    }
  });

  it('runnext is taken first and a displaced runnext goes to the tail', () => {
    const { core } = setup();
    const [a, b, c] = gs(core, 3);
    core.runqPut(0, a, 0);
    core.runqPut(0, b, 1);
    expect(core.runqLen(0)).toBe(1); // runnext not counted
    core.runqPut(0, c, 1); // b is kicked to the tail
    expect(core.runqGet(0)).toBe(c);
    expect(core.runqGet(0)).toBe(a);
    expect(core.runqGet(0)).toBe(b);
    expect(core.runqEmpty(0)).toBe(1);
  });

  it('head and tail wrap at 2^32', () => {
    const { core, memory } = setup();
    const i32 = new Int32Array(memory.buffer);
    i32[pAt(0, 0) >> 2] = -3; // tail (0xfffffffd)
    i32[pAt(0, 128) >> 2] = -3; // head
    const g = gs(core, 10);
    for (const x of g) core.runqPut(0, x, 0);
    expect(core.runqLen(0)).toBe(10);
    expect(core.runqSteal(1, 0, 0)).toBe(g[4]);
    for (let j = 5; j < 10; j++) expect(core.runqGet(0)).toBe(g[j]);
    for (let j = 0; j < 4; j++) expect(core.runqGet(1)).toBe(g[j]);
    expect(core.runqEmpty(0) & core.runqEmpty(1)).toBe(1);
  });
});

describe('stealing (Go: TestSchedLocalQueueSteal)', () => {
  it('every G is seen exactly once and the stolen count is ceil(half), fill 0..256', () => {
    const { core, u32, f64 } = setup();
    const g = gs(core, RUNQ_SIZE);
    let ops = 0;
    let stolenTotal = 0;
    for (let i = 0; i <= RUNQ_SIZE; i++) {
      for (let j = 0; j < i; j++) core.runqPut(0, g[j], 0);
      const seen = new Map<number, number>();
      const see = (x: number): void => { seen.set(x, (seen.get(x) ?? 0) + 1); };
      let stolen = 0;
      const first = core.runqSteal(1, 0, 1); // P0 is idle: no back-off
      if (first !== 0) {
        stolen++;
        see(first);
        for (let x = core.runqGet(1); x !== 0; x = core.runqGet(1)) { stolen++; see(x); }
      }
      for (let x = core.runqGet(0); x !== 0; x = core.runqGet(0)) see(x);
      for (let j = 0; j < i; j++) expect(seen.get(g[j])).toBe(1);
      expect(seen.size).toBe(i);
      expect(stolen).toBe(i - (i >> 1));
      if (stolen > 0) ops++;
      stolenTotal += stolen;
    }
    expect(f64(pc(1, PC_STEAL_OPS))).toBe(ops);
    expect(f64(pc(1, PC_STOLEN))).toBe(stolenTotal);
    expect(u32(pAt(0, P_STOLEN_FROM))).toBe(stolenTotal);
    expect(u32(pAt(0, P_STEAL_FROM_OPS))).toBe(ops);
  });

  it('the thief runs the last grabbed G and queues the others (Go demo g0..g9)', () => {
    const { core } = setup();
    const g = gs(core, 10);
    for (const x of g) core.runqPut(0, x, 0);
    expect(core.runqSteal(1, 0, 1)).toBe(g[4]);
    for (let j = 0; j < 4; j++) expect(core.runqGet(1)).toBe(g[j]);
    expect(core.runqLen(0)).toBe(5);
  });

  it('runnext is stolen only when the ring is empty and stealRunNext is set', () => {
    const { core } = setup();
    const [a, b] = gs(core, 2);
    core.runqPut(0, a, 1);
    expect(core.runqSteal(1, 0, 0)).toBe(0);
    expect(core.runqSteal(1, 0, 1)).toBe(a);
    core.runqPut(0, a, 1);
    core.runqPut(0, b, 0);
    expect(core.runqSteal(1, 0, 1)).toBe(b); // the ring first
    expect(core.runqGet(0)).toBe(a);
  });
});

describe('overflow and the global queue', () => {
  it('runqPut into a full ring spills the 128 oldest plus the new G (129) to the global queue', () => {
    const { core, u32, f64 } = setup();
    const g = gs(core, RUNQ_SIZE + 1);
    for (const x of g) core.runqPut(0, x, 0);
    expect(core.runqLen(0)).toBe(128);
    expect(u32(S_RUNQ_SIZE)).toBe(129);
    expect(f64(pc(0, PC_OVERFLOWS))).toBe(1);
    expect(f64(sc(SC_GLOB_PUT))).toBe(129);
    const tail = core.gAddr(g[RUNQ_SIZE]);
    expect(u32(tail + G_SCHEDLINK)).toBe(0);
    for (let j = 128; j < 256; j++) expect(core.runqGet(0)).toBe(g[j]);
    // Drain the global queue one at a time: g0..g127, then g256.
    const order: number[] = [];
    for (let x = core.globrunqGet(0, 1); x !== 0; x = core.globrunqGet(0, 1)) order.push(x);
    expect(order).toEqual([...g.slice(0, 128), g[256]]);
    expect(f64(sc(SC_GLOB_GET))).toBe(129);
  });

  it('globrunqGet takes min(size / nprocs + 1, size, max, 128) and queues the rest locally', () => {
    const { core, u32, f64, setU32 } = setup({ nprocs: 4 });
    const g = gs(core, 1000);
    for (let j = 0; j < 100; j++) core.globrunqPut(g[j]);
    expect(core.globrunqGet(0, 0)).toBe(g[0]); // 100 / 4 + 1 = 26
    expect(core.runqLen(0)).toBe(25);
    for (let j = 1; j < 26; j++) expect(core.runqGet(0)).toBe(g[j]);
    expect(u32(S_RUNQ_SIZE)).toBe(74);
    expect(core.globrunqGet(0, 5)).toBe(g[26]); // max 5
    expect(core.runqLen(0)).toBe(4);
    for (let j = 27; j < 31; j++) expect(core.runqGet(0)).toBe(g[j]);
    expect(u32(S_RUNQ_SIZE)).toBe(69);
    // A batch linked by the caller; then a long queue is capped at 128.
    const chain = g.slice(100);
    for (let j = 0; j + 1 < chain.length; j++) setU32(core.gAddr(chain[j]) + G_SCHEDLINK, chain[j + 1]);
    core.globrunqPutBatch(chain[0], chain[chain.length - 1], chain.length);
    expect(u32(S_RUNQ_SIZE)).toBe(69 + 900);
    expect(core.globrunqGet(1, 0)).toBe(g[31]); // min(969 / 4 + 1, 128) = 128
    expect(core.runqLen(1)).toBe(127);
    for (let j = 32; j < 32 + 127; j++) expect(core.runqGet(1)).toBe(g[j]);
    expect(u32(S_RUNQ_SIZE)).toBe(969 - 128);
    expect(core.globrunqGet(1, 1)).toBe(g[159]);
    expect(core.runqLen(1)).toBe(0);
    expect(f64(sc(SC_GLOB_GET))).toBe(26 + 5 + 128 + 1);
    expect(f64(sc(SC_GLOB_PUT))).toBe(100 + 900);
    expect(f64(sc(SC_LOCK_ACQ))).toBe(100 + 1 + 4);
  });

  it('size 1 and a size smaller than nprocs take everything; empty gives 0', () => {
    const { core, u32 } = setup({ nprocs: 8 });
    expect(core.globrunqGet(0, 0)).toBe(0);
    const g = gs(core, 3);
    for (const x of g) core.globrunqPut(x);
    expect(core.globrunqGet(0, 0)).toBe(g[0]); // 3 / 8 + 1 = 1
    expect(core.runqLen(0)).toBe(0);
    expect(core.globrunqGet(0, 0)).toBe(g[1]);
    expect(core.globrunqGet(0, 0)).toBe(g[2]);
    expect(u32(S_RUNQ_SIZE)).toBe(0);
    core.globrunqPut(g[0]); // the queue works again after being emptied
    expect(core.globrunqGet(0, 0)).toBe(g[0]);
  });
});

describe('free Gs (Go: gfput / gfget)', () => {
  it('gfGet hands out a zeroed G_DEAD G; gfPut bumps its generation', () => {
    const { core, u32, setU32 } = setup();
    const g = core.gfGet(0);
    expect(g).not.toBe(0);
    const a = core.gAddr(g);
    expect(u32(a + G_STATUS)).toBe(G_DEAD);
    expect(u32(a + G_GEN)).toBe(0);
    for (let off = 4; off < G_SIZE; off += 4) setU32(a + off, 0xdeadbeef);
    setU32(a + G_GEN, 7);
    core.gfPut(0, g);
    expect(u32(a + G_GEN)).toBe(8);
    expect(core.gfGet(0)).toBe(g); // LIFO
    for (let off = 4; off < G_SIZE; off += 4) expect(u32(a + off)).toBe(off === G_GEN ? 8 : 0);
    expect(u32(a + G_STATUS)).toBe(G_DEAD);
  });

  it('a local list of 64 moves 33 to the global stack, leaving 31; an empty one refills 32', () => {
    const { core, u32, f64 } = setup();
    const free0 = u32(S_GFREE_N);
    expect(free0).toBe(G_CHUNK - 1); // id 0 is never handed out
    const g = gs(core, 64);
    expect(u32(S_GFREE_N)).toBe(free0 - 64);
    for (let j = 0; j < 63; j++) core.gfPut(0, g[j]);
    expect(u32(pAt(0, P_GFREE_N))).toBe(63);
    expect(f64(pc(0, PC_GFREE_MOVES))).toBe(0);
    core.gfPut(0, g[63]);
    expect(u32(pAt(0, P_GFREE_N))).toBe(31);
    expect(u32(S_GFREE_N)).toBe(free0 - 64 + 33);
    expect(f64(pc(0, PC_GFREE_MOVES))).toBe(1);
    // The 33 newest went global one by one: the global top is the oldest of them (g[31]).
    expect(core.gfGet(-1)).toBe(g[31]);
    core.gfPut(-1, g[31]);
    for (let j = 30; j >= 0; j--) expect(core.gfGet(0)).toBe(g[j]);
    expect(u32(pAt(0, P_GFREE_N))).toBe(0);
    const before = u32(S_GFREE_N);
    const x = core.gfGet(0); // refill: 32 popped, one handed out
    expect(x).not.toBe(0);
    expect(u32(pAt(0, P_GFREE_N))).toBe(GFREE_LOCAL_KEEP - 1);
    expect(u32(S_GFREE_N)).toBe(before - GFREE_LOCAL_KEEP);
    expect(f64(pc(0, PC_GFREE_MOVES))).toBe(2);
  });

  it('the table grows chunk by chunk up to gmax, every id handed out once', () => {
    const gmax = 4 * G_CHUNK;
    const { core, u32, f64 } = setup({ gcapInit: 1, gmax });
    expect(u32(HEADER + H_GCAP)).toBe(G_CHUNK);
    const seen = new Set<number>();
    for (let i = 0; i < gmax - 1; i++) {
      const g = core.gfGet(i & 1 ? -1 : 2);
      expect(g).toBeGreaterThan(0);
      expect(seen.has(g)).toBe(false);
      seen.add(g);
    }
    expect(core.gfGet(-1)).toBe(0);
    expect(core.gfGet(2)).toBe(0);
    expect(u32(HEADER + H_GCAP)).toBe(gmax);
    expect(f64(sc(SC_GROWS))).toBe(4);
    expect(Math.min(...seen)).toBe(1);
    expect(Math.max(...seen)).toBe(gmax - 1);
    for (const g of seen) expect(core.gAddr(g) % LINE).toBe((g % G_CHUNK) * G_SIZE % LINE);
    // Every G handed back comes out again.
    for (const g of seen) core.gfPut(-1, g);
    expect(u32(S_GFREE_N)).toBe(gmax - 1);
    expect(core.gfGet(-1)).not.toBe(0);
  });

  it('the table grows the memory past its first size and views follow', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4096, shared: true });
    const core = createTsCore(memory, false);
    core.init(2, 2, 1, 64 * G_CHUNK, 0, 1, 1);
    const pages0 = memory.buffer.byteLength / PAGE;
    const gs1: number[] = [];
    for (let i = 0; i < 20 * G_CHUNK; i++) gs1.push(core.gfGet(0));
    expect(memory.buffer.byteLength / PAGE).toBeGreaterThan(pages0);
    const u32 = new Uint32Array(memory.buffer);
    expect(u32[(HEADER + H_MEMBYTES) >> 2]).toBe(memory.buffer.byteLength);
    expect(u32[(HEADER + H_BRK) >> 2]).toBeLessThanOrEqual(memory.buffer.byteLength);
    const last = gs1[gs1.length - 1];
    expect(u32[(core.gAddr(last) + G_STATUS) >> 2]).toBe(G_DEAD);
  });

  it('a core whose views predate another core\'s growth refreshes them on the way', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4096, shared: true });
    const a = createTsCore(memory, false);
    a.init(2, 2, 1, 64 * G_CHUNK, FLAG_DEBUG, 1, 1);
    const b = createTsCore(memory, false); // views as large as the memory is now
    const bytes0 = memory.buffer.byteLength;
    const far: number[] = [];
    for (let i = 0; i < 12 * G_CHUNK; i++) far.push(a.gfGet(-1));
    const block = a.heapAlloc(100000);
    expect(memory.buffer.byteLength).toBeGreaterThan(bytes0);
    const late = far.slice(-300); // Gs in chunks past b's views
    for (const g of late) a.gfPut(-1, g);
    // b pops them from the global stack (refill), links them (spill), frees them (moves).
    const got: number[] = [];
    for (let i = 0; i < 288; i++) got.push(b.gfGet(0)); // 9 refills of 32: all from `late`
    const lateSet = new Set(late);
    expect(new Set(got).size).toBe(288);
    for (const g of got) expect(lateSet.has(g)).toBe(true);
    for (const g of got) b.gSetStatus(g, G_DEAD, G_RUNNABLE);
    for (const g of got) b.runqPut(0, g, 0); // 288 > 256: one spill of 129 through schedlinks
    const order: number[] = [];
    for (let x = b.runqGet(0); x !== 0; x = b.runqGet(0)) order.push(x);
    for (let x = b.globrunqGet(0, 1); x !== 0; x = b.globrunqGet(0, 1)) order.push(x);
    expect(order.length).toBe(288);
    expect(new Set(order)).toEqual(new Set(got));
    for (const g of order) {
      b.gSetStatus(g, G_RUNNABLE, G_DEAD);
      b.gfPut(1, g);
    }
    b.heapFree(block);
    const u32 = new Uint32Array(memory.buffer);
    expect(u32[pAt(1, P_GFREE_N) >> 2]).toBeLessThan(64);
    expect(u32[(S_COUNTERS + SC_HEAP_BYTES) >> 2]).toBe(0);
  });

  it('FLAG_DEBUG rejects freeing a live G and illegal transitions', () => {
    const { core } = setup();
    const g = core.gfGet(0);
    core.gSetStatus(g, G_DEAD, G_RUNNABLE);
    expect(() => core.gfPut(0, g)).toThrow(/gfPut: g=\d+ is not dead/);
    expect(() => core.gSetStatus(g, G_RUNNABLE, G_IDLE)).toThrow(
      `gSetStatus: bad transition g=${g} from=1 to=0 (is 1)`);
    expect(() => core.gSetStatus(g, G_RUNNING, G_DEAD)).toThrow(
      `gSetStatus: bad transition g=${g} from=2 to=6 (is 1)`);
    core.gSetStatus(g, G_RUNNABLE, G_RUNNING);
    core.gSetStatus(g, G_RUNNING, G_DEAD);
    core.gfPut(0, g);
  });
});

describe('value blocks', () => {
  it('size classes, reuse of freed blocks, and the counters', () => {
    const { core, u32, f64 } = setup();
    const sizes = [0, 1, 8, 9, 24, 25, 100, 1000, 4088, 4089, 65536];
    const blocks = [8, 16, 16, 32, 32, 64, 128, 1024, 4096, 8192, 131072];
    const addrs = sizes.map((s) => core.heapAlloc(s));
    let bytes = 0;
    addrs.forEach((a, i) => {
      expect(a % 8).toBe(0);
      expect(u32(a - 8)).toBe(Math.max(0, Math.log2(blocks[i]) - 4));
      expect(u32(a - 4)).toBe(sizes[i]);
      bytes += Math.max(16, blocks[i]);
    });
    expect(f64(sc(SC_HEAP_ALLOCS))).toBe(sizes.length);
    expect(f64(sc(SC_HEAP_BYTES))).toBe(bytes);
    core.heapFree(addrs[6]);
    core.heapFree(addrs[5]);
    core.heapFree(0); // ignored
    expect(f64(sc(SC_HEAP_FREES))).toBe(2);
    expect(f64(sc(SC_HEAP_BYTES))).toBe(bytes - 128 - 64);
    const brk = u32(HEADER + H_BRK);
    expect(core.heapAlloc(50)).toBe(addrs[5]); // same class: reused, LIFO
    expect(core.heapAlloc(120)).toBe(addrs[6]);
    expect(u32(HEADER + H_BRK)).toBe(brk);
    expect(f64(sc(SC_HEAP_BYTES))).toBe(bytes);
    for (const a of addrs) core.heapFree(a);
    expect(f64(sc(SC_HEAP_BYTES))).toBe(0);
    expect(f64(sc(SC_HEAP_ALLOCS))).toBe(f64(sc(SC_HEAP_FREES)));
    expect(core.heapAlloc(2 ** 30)).toBe(0); // larger than the largest class
  });
});

describe('spin, then park (single-threaded walk)', () => {
  it('wakep hands an idle P to an idle M; findRunnable steals; stopM parks both', () => {
    const { core, u32, f64, setU32 } = setup({ nprocs: 2, flags: FLAG_DEBUG });
    // Nothing can be woken before any M is idle.
    core.wakep();
    expect(u32(S_NMSPINNING)).toBe(0);
    expect(u32(S_NEEDSPINNING)).toBe(1);
    expect(u32(S_NPIDLE)).toBe(2);
    core.mPut(1);
    core.mPut(2);
    expect(u32(S_NMIDLE)).toBe(2);
    // M1 starts on P0 (as the runtime does at start-up: wakep).
    core.wakep();
    const m2 = M_BASE(u32) + 2 * M_SIZE; // M2 was on top of midle
    expect(u32(m2 + M_PARK)).toBe(1);
    expect(u32(m2 + M_NEXTP)).toBe(1); // P0 (P0 on top of pidle)
    expect(u32(m2 + M_SPINNING)).toBe(1);
    expect(u32(S_NMSPINNING)).toBe(1);
    expect(f64(pc(0, PC_WAKEUPS))).toBe(1);
    setU32(m2 + M_PARK, 0); // the woken M's sleep loop consumes the park word
    expect(core.acquireP(2)).toBe(0);
    expect(u32(pAt(0, P_STATUS))).toBe(P_RUNNING);
    expect(u32(pAt(0, P_M))).toBe(3);
    expect(u32(S_NPIDLE)).toBe(1);
    // M2 (spinning) finds nothing: stopM parks P0 and M2, spinning ends, recheck finds nothing.
    expect(core.findRunnable(0, 2)).toBe(0);
    expect(f64(pc(0, PC_STEAL_MISSES))).toBe(1);
    expect(core.stopM(0, 2)).toBe(Stop.Sleep);
    expect(u32(S_NMSPINNING)).toBe(0);
    expect(u32(S_NPIDLE)).toBe(2);
    expect(u32(S_NMIDLE)).toBe(2);
    expect(u32(pAt(0, P_STATUS))).toBe(P_IDLE);
    expect(f64(pc(0, PC_PARKS))).toBe(1);
    // The main thread readies a G on the global queue: wakep wakes an M with P0.
    const g = core.gfGet(-1);
    core.ready(-1, g, 0);
    expect(u32(S_RUNQ_SIZE)).toBe(1);
    expect(u32(S_NMSPINNING)).toBe(1);
    const mi = u32(S_MIDLE) - 1; // the M left on midle
    const woken = mi === 1 ? 2 : 1;
    expect(woken).toBe(2); // M2 went back on top of midle in stopM
    const wm = M_BASE(u32) + woken * M_SIZE;
    expect(u32(wm + M_PARK)).toBe(1);
    setU32(wm + M_PARK, 0);
    const p = core.acquireP(woken);
    expect(p).toBe(0);
    expect(core.findRunnable(p, woken)).toBe(g); // global queue; spinning ends, wakep again
    expect(u32((core.gAddr(g)) + G_STATUS)).toBe(G_RUNNING);
    expect(f64(pc(p, PC_GLOBAL_HITS))).toBe(1);
    expect(f64(pc(p, PC_EXECUTED))).toBe(1);
    expect(u32(wm + M_SPINNING)).toBe(0);
    // resetSpinning: g was the only work in sight, so nobody else was woken.
    expect(u32(S_NMSPINNING)).toBe(0);
    expect(u32(S_NPIDLE)).toBe(1);
    expect(u32(S_NMIDLE)).toBe(1);
    // P0 readies a child into runnext: ready's wakep starts the last idle M with P1, which
    // steals it on the last pass.
    const child = core.gfGet(0);
    core.ready(0, child, 1);
    expect(f64(pc(0, PC_SPAWNED))).toBe(1);
    expect(u32(S_NMSPINNING)).toBe(1);
    expect(u32(S_NPIDLE)).toBe(0);
    expect(u32(S_NMIDLE)).toBe(0);
    expect(core.acquireP(mi)).toBe(1);
    expect(core.findRunnable(1, mi)).toBe(child);
    expect(f64(pc(1, PC_STEAL_OPS))).toBe(1);
    expect(f64(pc(1, PC_SPINS))).toBe(0); // it was already spinning (woken by wakep)
    expect(u32(S_NMSPINNING)).toBe(0);
    expect(u32(S_NEEDSPINNING)).toBe(1); // wakep found no idle P
    // P0's M finds nothing and becomes spinning (both Ps busy, nobody spinning: 0 < 2).
    expect(core.findRunnable(0, woken)).toBe(0);
    expect(f64(pc(0, PC_SPINS))).toBe(1);
    expect(u32(S_NEEDSPINNING)).toBe(0);
    // stopM with work visible on P1 (a queued G) makes the spinner retry with an idle P.
    const more = core.gfGet(1);
    core.ready(1, more, 0);
    core.ready(1, core.gfGet(1), 0);
    expect(core.stopM(0, woken)).toBe(Stop.Retry);
    expect(u32(S_NMSPINNING)).toBe(1);
    expect(core.acquireP(woken)).toBe(0);
    expect(u32(pAt(0, P_STATUS))).toBe(P_RUNNING);
    expect(f64(pc(0, PC_WAKEUPS))).toBe(3);
    expect(core.findRunnable(0, woken)).toBe(more); // steals one of the two, runs the last grabbed
    expect(u32(S_NMSPINNING)).toBe(0);
  });

  it('stopM takes global work instead of parking', () => {
    const { core, u32, f64 } = setup({ nprocs: 2 });
    core.mPut(1);
    core.wakep();
    expect(core.acquireP(1)).toBe(0);
    const g = gs(core, 5);
    for (const x of g) core.ready(-1, x, 0);
    expect(core.stopM(0, 1)).toBe(g[0]); // 5 / 2 + 1 = 3: the first runs, two queued locally
    expect(core.runqLen(0)).toBe(2);
    expect(u32(S_RUNQ_SIZE)).toBe(2);
    expect(f64(pc(0, PC_GLOBAL_HITS))).toBe(1);
    expect(u32(pAt(0, P_STATUS))).toBe(P_RUNNING);
    expect(u32(S_NMSPINNING)).toBe(0); // the spinner stopped spinning and there is no idle M
  });

  it('findRunnable: runnext inherits the slice, the ring starts a new one, every 61st tick the global queue', () => {
    const { core, u32, f64 } = setup({ nprocs: 1 });
    core.mPut(1);
    core.wakep();
    core.acquireP(1);
    const [a, b, c] = gs(core, 3);
    core.ready(0, a, 0);
    core.ready(0, b, 1);
    core.globrunqPut(c);
    core.gSetStatus(c, G_DEAD, G_RUNNABLE);
    // schedtick is 0: the fairness check takes the global G first.
    expect(core.findRunnable(0, 1)).toBe(c);
    expect(core.findRunnable(0, 1)).toBe(b);
    expect(core.findRunnable(0, 1)).toBe(a);
    expect(f64(pc(0, PC_GLOBAL_HITS))).toBe(1);
    expect(f64(pc(0, PC_RUNNEXT_HITS))).toBe(1);
    expect(f64(pc(0, PC_LOCAL_HITS))).toBe(1);
    expect(u32(pAt(0, P_SCHEDTICK))).toBe(2); // the runnext G inherited the slice
  });

  it('FLAG_GLOBAL_ONLY sends every ready to the global queue', () => {
    const { core, u32 } = setup({ flags: FLAG_GLOBAL_ONLY });
    const g = core.gfGet(0);
    core.ready(0, g, 1);
    expect(core.runqEmpty(0)).toBe(1);
    expect(u32(S_RUNQ_SIZE)).toBe(1);
    expect(u32(S_PIDLE)).toBe(1); // no idle M: nobody woken
  });
});

describe('victim order (Go: TestStealOrder)', () => {
  it('stealOrderAt visits every P exactly once for 1..64 procs, both orders', () => {
    const memory = new WebAssembly.Memory({ initial: 2, maximum: 2048, shared: true });
    const core = createTsCore(memory, false);
    for (const order of [ORDER_RANDOM, ORDER_ROUND_ROBIN]) {
      for (let n = 1; n <= 64; n++) {
        core.init(n, 1, 1, G_CHUNK, order, 1, 7);
        const seeds = [0, 1, 2, n, 2 * n + 1, 12345, 0x7fffffff, 0xfffffffe, 0xffffffff];
        for (const r of seeds) {
          for (const p of [0, n - 1, n >> 1]) {
            const seen = new Set<number>();
            for (let i = 0; i < n; i++) {
              const v = core.stealOrderAt(p, r, i);
              expect(v).toBeGreaterThanOrEqual(0);
              expect(v).toBeLessThan(n);
              seen.add(v);
            }
            expect(seen.size).toBe(n);
            if (order === ORDER_ROUND_ROBIN) expect(core.stealOrderAt(p, r, 0)).toBe((p + 1) % n);
            else expect(core.stealOrderAt(p, r, 0)).toBe((r >>> 0) % n);
          }
        }
      }
    }
  });

  it('random order: Go example, 4 procs, start(6) = P2, P1, P0, P3', () => {
    const { core } = setup({ nprocs: 4, flags: ORDER_RANDOM });
    expect([0, 1, 2, 3].map((i) => core.stealOrderAt(0, 6, i))).toEqual([2, 1, 0, 3]);
  });

  it('the load-derived threshold: a quarter of the busy average, halved when many idle or spin, within [floor, 32]', () => {
    const { core, setU32 } = setup({ nprocs: 2, flags: FLAG_THRESHOLD_LOAD, threshold: 2 });
    expect(core.stealThreshold()).toBe(2); // nothing queued: the floor
    setU32(pAt(0, P_STATUS), P_RUNNING);
    setU32(pAt(1, P_STATUS), P_RUNNING);
    setU32(S_NPIDLE, 0);
    const g = gs(core, 512);
    for (let j = 0; j < 200; j++) core.runqPut(0, g[j], 0);
    expect(core.stealThreshold()).toBe(25); // (200 / 2) >> 2
    setU32(S_NMSPINNING, 1);
    expect(core.stealThreshold()).toBe(12); // 2 * (0 + 1) >= 2: halved
    setU32(S_NMSPINNING, 0);
    for (let j = 200; j < 512; j++) core.runqPut(j < 256 ? 0 : 1, g[j], 0);
    expect(core.stealThreshold()).toBe(32); // (512 / 2) >> 2 = 64, clamped
  });
});

/** M0's block address, from the header. */
function M_BASE(u32: (addr: number) => number): number {
  return u32(HEADER + H_MBASE);
}
