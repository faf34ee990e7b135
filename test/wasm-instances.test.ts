// Many instances of the Wasm core on one shared memory: what each thread's own instance may and
// may not do to the shared state (docs/DESIGN.md, "Memory layout", rule 1).
//
// - Instantiating late (in 4 worker_threads and again on the main thread) rewrites only the
//   module's static data below LAYOUT_BASE: the header, the queues and the free lists are
//   byte-for-byte untouched, and the queued Gs still come out.
// - Instances working at once on shared state (free Gs, value blocks, run queues, the idle
//   lists) see one consistent state: nothing lost, nothing handed out twice.

import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { compileCoreModule, createMemory, instantiateWasmCore } from '../bindings/core/wasm.js';
import type { Core } from '../bindings/core/core.js';
import * as L from '../assembly/shared/layout.js';

const WORKER_URL = new URL('./fixtures/wasm-instance-worker.mjs', import.meta.url);
const LAYOUT = { ...L };

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

interface Reply { ok: boolean; error?: string; errors?: number; ran?: number }

/** Starts a worker on `job` and resolves with its one reply (rejects on a core error). */
function runWorker(job: Record<string, unknown>): Promise<Reply> {
  const w = new Worker(WORKER_URL);
  workers.push(w);
  return new Promise((resolve, reject) => {
    w.once('message', (reply: Reply) => (reply.ok ? resolve(reply) : reject(new Error(reply.error))));
    w.once('error', reject);
    w.postMessage({ L: LAYOUT, ...job });
  });
}

const u32 = (memory: WebAssembly.Memory, addr: number): number => new Uint32Array(memory.buffer)[addr >>> 2];
const f64 = (memory: WebAssembly.Memory, addr: number): number => new Float64Array(memory.buffer)[addr >>> 3];
const hdr = (memory: WebAssembly.Memory, off: number): number => u32(memory, L.HEADER + off);
const pAddr = (p: number): number => L.PS + p * L.P_SIZE;
const mAddr = (memory: WebAssembly.Memory, m: number): number => hdr(memory, L.H_MBASE) + m * L.M_SIZE;
const link = (core: Core, memory: WebAssembly.Memory, g: number): number => u32(memory, core.gAddr(g) + L.G_SCHEDLINK);

/** Every G id on the global free stack and the Ps' local lists; throws on a cycle. */
function freeGs(core: Core, memory: WebAssembly.Memory): { global: number[]; local: number[][] } {
  const walk = (first: number): number[] => {
    const out: number[] = [];
    for (let g = first; g !== 0; g = link(core, memory, g)) {
      out.push(g);
      if (out.length > hdr(memory, L.H_GCAP)) throw new Error('free list has a cycle');
    }
    return out;
  };
  const global = walk(u32(memory, L.S_GFREE_HEAD));
  const local = [];
  for (let p = 0; p < hdr(memory, L.H_NPROCS); p++) local.push(walk(u32(memory, pAddr(p) + L.P_GFREE)));
  return { global, local };
}

/** Polls `done` every millisecond until it holds or `ms` pass. */
async function until(done: () => boolean, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe('wasm core: many instances on one memory', () => {
  it('late instances leave the layout state untouched', async () => {
    const module = await compileCoreModule(false);
    const memory = createMemory(4, 1024);
    const core = instantiateWasmCore(module, memory, false);
    core.init(4, 8, 2 * L.G_CHUNK, 1 << 16, 0, 1, 0xc0ffee);

    // Queue work everywhere: P0's ring, P1's runnext, the global queue, P2's free cache, a block.
    const gs: number[] = [];
    for (let i = 0; i < 40; i++) gs.push(core.gfGet(0));
    for (const g of gs) core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE);
    for (let i = 0; i < 10; i++) core.runqPut(0, gs[i], 0);
    core.runqPut(1, gs[10], 1);
    for (let i = 11; i < 20; i++) core.globrunqPut(gs[i]);
    for (let i = 20; i < 40; i++) {
      core.gSetStatus(gs[i], L.G_RUNNABLE, L.G_DEAD);
      core.gfPut(2, gs[i]);
    }
    const block = core.heapAlloc(100);
    new Uint8Array(memory.buffer, block, 100).fill(0xab);

    const brk = hdr(memory, L.H_BRK);
    const before = new Uint8Array(memory.buffer, L.LAYOUT_BASE, brk - L.LAYOUT_BASE).slice();

    await Promise.all([0, 1, 2, 3].map(() => runWorker({ kind: 'attach', module, memory })));
    const again = instantiateWasmCore(module, memory, false);

    const after = new Uint8Array(memory.buffer, L.LAYOUT_BASE, brk - L.LAYOUT_BASE).slice();
    expect(hdr(memory, L.H_MAGIC)).toBe(L.MAGIC);
    expect(after.length).toBe(before.length);
    expect(Buffer.compare(Buffer.from(after), Buffer.from(before))).toBe(0);

    // The queued Gs come out of the new instance, in order.
    const ring: number[] = [];
    for (let g = again.runqGet(0); g !== 0; g = again.runqGet(0)) ring.push(g);
    expect(ring).toEqual(gs.slice(0, 10));
    expect(again.runqGet(1)).toBe(gs[10]);
    const global: number[] = [];
    for (let g = again.globrunqGet(3, 1); g !== 0; g = again.globrunqGet(3, 1)) global.push(g);
    expect(global).toEqual(gs.slice(11, 20));
    expect(freeGs(again, memory).local[2].length).toBe(20);
    expect(new Uint8Array(memory.buffer, block, 100).every((b) => b === 0xab)).toBe(true);
  });

  it('an instance that survives many aborts keeps their messages off the shared state', async () => {
    const module = await compileCoreModule(false);
    const memory = createMemory(4, 1024);
    const core = instantiateWasmCore(module, memory, false);
    core.init(4, 8, L.G_CHUNK, 1 << 16, L.FLAG_DEBUG, 1, 5);
    const g = core.gfGet(-1);
    const brk = hdr(memory, L.H_BRK);
    const before = new Uint8Array(memory.buffer, L.LAYOUT_BASE, brk - L.LAYOUT_BASE).slice();
    // Each message is built by the stub allocator below LAYOUT_BASE; without the rewind before
    // each abort, a few hundred of them would run into the header.
    for (let i = 0; i < 2000; i++) {
      expect(() => core.gSetStatus(g, L.G_RUNNING, L.G_WAITING)).toThrow(
        new RegExp(`^stealwork core abort: gSetStatus: bad transition g=${g} from=${L.G_RUNNING} ` +
          `to=${L.G_WAITING} \\(is ${L.G_DEAD}\\) at assembly/gtable\\.ts:\\d+:\\d+$`));
    }
    const after = new Uint8Array(memory.buffer, L.LAYOUT_BASE, brk - L.LAYOUT_BASE).slice();
    expect(Buffer.compare(Buffer.from(after), Buffer.from(before))).toBe(0);
  });

  it('concurrent gfGet/gfPut and heapAlloc/heapFree hand nothing out twice and lose nothing', async () => {
    const module = await compileCoreModule(false);
    const memory = createMemory(4, 4096);
    const core = instantiateWasmCore(module, memory, false);
    const gmax = 1 << 15;
    core.init(4, 8, L.G_CHUNK, gmax, L.FLAG_DEBUG, 1, 7);
    const owners = new SharedArrayBuffer(4 * gmax + 4 * L.G_CHUNK);

    const replies = Promise.all([0, 1, 2, 3].map((id) =>
      runWorker({ kind: 'churn', module, memory, id, p: id, iterations: 20000, owners })));
    // The main thread churns the global list meanwhile (it spins on the locks: canBlock false).
    const mine: number[] = [];
    for (let i = 0; i < 20000; i++) {
      if (mine.length < 40 && (i % 3 !== 2 || mine.length === 0)) mine.push(core.gfGet(-1));
      else core.gfPut(-1, mine.splice((i * 5) % mine.length, 1)[0]);
      if ((i & 7) === 0) core.heapFree(core.heapAlloc(i % 300));
    }
    for (const g of mine) core.gfPut(-1, g);
    for (const r of await replies) expect(r.errors).toBe(0);

    // Every G of the table (but id 0) is free exactly once.
    const gcap = hdr(memory, L.H_GCAP);
    const { global, local } = freeGs(core, memory);
    const all = [...global, ...local.flat()];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(gcap - 1);
    expect(u32(memory, L.S_GFREE_N)).toBe(global.length);
    local.forEach((list, p) => expect(u32(memory, pAddr(p) + L.P_GFREE_N)).toBe(list.length));
    // Every block came back; both locks are free.
    const sc = (off: number): number => f64(memory, L.S_COUNTERS + off);
    expect(sc(L.SC_HEAP_ALLOCS)).toBe(sc(L.SC_HEAP_FREES));
    expect(sc(L.SC_HEAP_ALLOCS)).toBeGreaterThan(20000);
    expect(sc(L.SC_HEAP_BYTES)).toBe(0);
    expect(u32(memory, L.S_LOCK)).toBe(0);
    expect(u32(memory, L.S_HEAP_LOCK)).toBe(0);
  });

  const configs = [
    { name: 'release core, random order, fixed threshold', debug: false, flags: L.FLAG_DEBUG },
    { name: 'debug core, round-robin, victim hint, load threshold', debug: true,
      flags: L.FLAG_DEBUG | L.ORDER_ROUND_ROBIN | L.FLAG_VICTIM_HINT | L.FLAG_THRESHOLD_LOAD },
  ];
  for (const { name, debug, flags } of configs) {
    it(`4 Ms spawning, stealing and parking run every task exactly once (${name})`, async () => {
      const module = await compileCoreModule(debug);
      const memory = createMemory(4, 4096);
      const core = instantiateWasmCore(module, memory, false);
      const nprocs = 4;
      core.init(nprocs, nprocs + 1, L.G_CHUNK, 1 << 16, flags, 1, 99);

      const trees = 8;
      const depth = 10;
      const treeSize = (1 << (depth + 1)) - 1;
      const total = trees * treeSize;
      const seen = new SharedArrayBuffer(4 * total);
      const control = new SharedArrayBuffer(8);
      const ctl = new Int32Array(control);

      const replies = Promise.all([1, 2, 3, 4].map((m) =>
        runWorker({ kind: 'm', module, memory, m, seen, control, treeSize })));
      const npidle = (): number => u32(memory, L.S_NPIDLE);
      const nmidle = (): number => u32(memory, L.S_NMIDLE);
      const nmspinning = (): number => u32(memory, L.S_NMSPINNING);
      await until(() => nmidle() === nprocs, 30_000, () => `nmidle=${nmidle()}`);

      // M0 (this thread, no P) submits roots to the global queue in waves; each wave starts
      // from every M parked and every P idle, so ready's wakep has to bring the Ms back.
      const waves = 4;
      for (let wave = 0; wave < waves; wave++) {
        for (let t = wave * (trees / waves); t < (wave + 1) * (trees / waves); t++) {
          const g = core.gfGet(-1);
          const a = core.gAddr(g);
          const v = new Uint32Array(memory.buffer);
          v[(a + L.G_FN) >> 2] = t;
          v[(a + L.G_INDEX) >> 2] = 0;
          v[(a + L.G_ARGC) >> 2] = depth;
          core.ready(-1, g, 0);
        }
        const want = ((wave + 1) * total) / waves;
        await until(
          () => Atomics.load(ctl, 1) === want && nmidle() === nprocs && npidle() === nprocs && nmspinning() === 0,
          30_000,
          () => `wave ${wave}: executed=${Atomics.load(ctl, 1)}/${want} nmidle=${nmidle()} npidle=${npidle()} nmspinning=${nmspinning()}`,
        );
      }
      Atomics.store(ctl, 0, 1);
      const i32 = new Int32Array(memory.buffer);
      for (let m = 1; m <= nprocs; m++) {
        Atomics.store(i32, (mAddr(memory, m) + L.M_PARK) >> 2, 1);
        Atomics.notify(i32, (mAddr(memory, m) + L.M_PARK) >> 2);
      }
      const ran = (await replies).reduce((s, r) => s + (r.ran ?? 0), 0);

      expect(ran).toBe(total);
      const counts = new Int32Array(seen);
      expect(counts.every((c) => c === 1)).toBe(true);
      expect(u32(memory, L.S_RUNQ_SIZE)).toBe(0);
      for (let p = 0; p < nprocs; p++) expect(core.runqEmpty(p)).toBe(1);
      const pc = (p: number, off: number): number => f64(memory, pAddr(p) + L.P_COUNTERS + off);
      let executed = 0;
      let stolen = 0;
      let stolenFrom = 0;
      for (let p = 0; p < nprocs; p++) {
        executed += pc(p, L.PC_EXECUTED);
        stolen += pc(p, L.PC_STOLEN);
        stolenFrom += u32(memory, pAddr(p) + L.P_STOLEN_FROM);
      }
      expect(executed).toBe(total);
      expect(stolen).toBe(stolenFrom);
      expect(stolen).toBeGreaterThan(0); // certain: tree 0's root waits for a steal from its P
      const sc = (off: number): number => f64(memory, L.S_COUNTERS + off);
      expect(sc(L.SC_GLOB_PUT)).toBe(sc(L.SC_GLOB_GET));
      const { global, local } = freeGs(core, memory);
      expect(global.length + local.flat().length).toBe(hdr(memory, L.H_GCAP) - 1);
      expect(u32(memory, L.S_LOCK)).toBe(0);
    });
  }
});
