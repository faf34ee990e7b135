// The local and global run queues, single-threaded, for both backends (DESIGN.md "Local run
// queue", "Global run queue"). Go's own run-queue tests (TestSchedLocalQueue,
// TestSchedLocalQueueSteal) swept every fill level; so do these, and they also pin runnext,
// overflow into the global queue, and globrunqget's batch rule. The concurrent emptiness check
// (TestSchedLocalQueueEmpty) needs threads and lives in core-threads.test.ts.
//
// Every P is idle after init, so runqGrab never backs off here; the test thread acts as the
// owner of whichever P it touches.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { BACKENDS, freshCore, linkChain, makeRunnable, takeGs, type Harness } from './helpers/core.js';
import { globBatch } from './helpers/mem.js';

/** Takes every G off p's runnext and ring, in runqGet order. */
function drain(h: Harness, p: number): number[] {
  const out: number[] = [];
  for (let g = h.core.runqGet(p); g !== 0; g = h.core.runqGet(p)) {
    out.push(g);
    if (out.length > L.RUNQ_SIZE + 1) throw new Error(`drain: p=${p} gave more than ${L.RUNQ_SIZE + 1}`);
  }
  return out;
}

/** Takes every G off the global queue through p (globrunqGet with no max, then p's ring). */
function drainGlobal(h: Harness, p: number): number[] {
  const out: number[] = [];
  for (let g = h.core.globrunqGet(p, 0); g !== 0; g = h.core.globrunqGet(p, 0)) {
    out.push(g, ...drain(h, p));
  }
  return out;
}

describe.each(BACKENDS)('local run queue (%s)', (backend) => {
  it('put/get at every fill level 0..256: FIFO, no spill, empty after', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, L.RUNQ_SIZE));
    for (let i = 0; i <= L.RUNQ_SIZE; i++) {
      expect(core.runqEmpty(0), `fill ${i}: empty before`).toBe(1);
      expect(core.runqGet(0)).toBe(0);
      for (let j = 0; j < i; j++) core.runqPut(0, gs[j], 0);
      expect(core.runqLen(0)).toBe(i);
      expect(core.runqEmpty(0)).toBe(i === 0 ? 1 : 0);
      expect(mem.ring(0)).toEqual(gs.slice(0, i));
      expect(mem.runqSize, `fill ${i}: nothing spilled`).toBe(0);
      for (let j = 0; j < i; j++) expect(core.runqGet(0), `fill ${i}, get ${j}`).toBe(gs[j]);
      expect(core.runqGet(0), `fill ${i}: empty after`).toBe(0);
      expect(core.runqEmpty(0)).toBe(1);
      expect(core.runqLen(0)).toBe(0);
    }
    expect(mem.pc(0, L.PC_OVERFLOWS)).toBe(0);
    // head and tail are free-running: 256 * 257 / 2 puts went round the ring many times.
    expect(mem.p(0, L.P_TAIL)).toBe((L.RUNQ_SIZE * (L.RUNQ_SIZE + 1)) / 2);
    expect(mem.p(0, L.P_HEAD)).toBe(mem.p(0, L.P_TAIL));
  });

  it('steal at every fill level 0..256: ceil(half), oldest first, thief runs the last grabbed', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, L.RUNQ_SIZE));
    let stealOps = 0;
    let stolen = 0;
    for (let i = 0; i <= L.RUNQ_SIZE; i++) {
      for (let j = 0; j < i; j++) core.runqPut(0, gs[j], 0);
      const got = core.runqSteal(1, 0, 1);
      const n = i - (i >> 1);
      if (n === 0) {
        expect(got, `fill ${i}`).toBe(0);
      } else {
        stealOps += 1;
        stolen += n;
        expect(got, `fill ${i}: runs the newest of the batch`).toBe(gs[n - 1]);
        expect(mem.ring(1), `fill ${i}: thief queue`).toEqual(gs.slice(0, n - 1));
        expect(mem.ring(0), `fill ${i}: victim keeps the newer half`).toEqual(gs.slice(n, i));
      }
      expect(core.runqLen(1)).toBe(Math.max(0, n - 1));
      // Every G exactly once across the returned one, the thief and the victim.
      const seen = [...(got === 0 ? [] : [got]), ...drain(h, 1), ...drain(h, 0)];
      expect(seen.length, `fill ${i}: count`).toBe(i);
      expect(new Set(seen).size, `fill ${i}: no duplicates`).toBe(i);
      expect([...seen].sort((a, b) => a - b)).toEqual(gs.slice(0, i).sort((a, b) => a - b));
      expect(mem.pc(1, L.PC_STEAL_OPS)).toBe(stealOps);
      expect(mem.pc(1, L.PC_STOLEN)).toBe(stolen);
      expect(mem.p(0, L.P_STOLEN_FROM)).toBe(stolen);
      expect(mem.p(0, L.P_STEAL_FROM_OPS)).toBe(stealOps);
    }
    expect(mem.runqSize).toBe(0);
  });

  it("Go's demo: victim g0..g9, thief runs g4 and queues g0..g3, victim keeps g5..g9", async () => {
    const h = await freshCore(backend, { nprocs: 3 });
    const { core, mem } = h;
    const g = makeRunnable(h, takeGs(h, 10));
    for (const x of g) core.runqPut(2, x, 0);
    expect(core.runqSteal(0, 2, 1)).toBe(g[4]);
    expect(mem.ring(0)).toEqual(g.slice(0, 4));
    expect(mem.ring(2)).toEqual(g.slice(5));
  });

  it('runnext: next=1 takes the slot, a second next kicks the old one to the tail', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const [a, b, c, d] = makeRunnable(h, takeGs(h, 4));
    core.runqPut(0, a, 1);
    expect(mem.runnext(0)).toBe(a);
    expect(mem.ring(0)).toEqual([]);
    expect(core.runqLen(0)).toBe(0); // runnext is not counted
    expect(core.runqEmpty(0)).toBe(0); // but it is queued
    core.runqPut(0, b, 1);
    expect(mem.runnext(0)).toBe(b);
    expect(mem.ring(0)).toEqual([a]);
    core.runqPut(0, c, 0);
    core.runqPut(0, d, 1);
    expect(mem.runnext(0)).toBe(d);
    expect(mem.ring(0)).toEqual([a, c, b]);
    expect(drain(h, 0)).toEqual([d, a, c, b]);
    expect(core.runqEmpty(0)).toBe(1);
  });

  it('runqGet returns runnext before the ring', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core } = h;
    const [a, b, c] = makeRunnable(h, takeGs(h, 3));
    core.runqPut(0, a, 0);
    core.runqPut(0, b, 0);
    core.runqPut(0, c, 1);
    expect(core.runqGet(0)).toBe(c);
    expect(core.runqGet(0)).toBe(a);
    expect(core.runqGet(0)).toBe(b);
    expect(core.runqGet(0)).toBe(0);
  });

  it('runnext is stolen only with stealRunNext and only when the ring is empty', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const [a, b, c, d] = makeRunnable(h, takeGs(h, 4));
    core.runqPut(0, a, 1);
    expect(core.runqSteal(1, 0, 0)).toBe(0);
    expect(mem.runnext(0)).toBe(a);
    expect(core.runqSteal(1, 0, 1)).toBe(a);
    expect(mem.runnext(0)).toBe(0);
    expect(mem.ring(1)).toEqual([]);
    expect(mem.pc(1, L.PC_STOLEN)).toBe(1);
    expect(mem.p(0, L.P_STOLEN_FROM)).toBe(1);
    // Three in the ring plus a runnext: the steal takes ceil(3/2) from the ring, not runnext.
    core.runqPut(0, b, 0);
    core.runqPut(0, c, 0);
    core.runqPut(0, d, 0);
    const [e] = makeRunnable(h, takeGs(h, 1));
    core.runqPut(0, e, 1);
    expect(core.runqSteal(1, 0, 1)).toBe(c);
    expect(mem.ring(1)).toEqual([b]);
    expect(mem.ring(0)).toEqual([d]);
    expect(mem.runnext(0)).toBe(e);
  });

  it('overflow: the 257th put moves the oldest 128 and the new G to the global tail', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const [pre] = makeRunnable(h, takeGs(h, 1));
    core.globrunqPut(pre); // the batch goes behind what is already there
    const gs = makeRunnable(h, takeGs(h, L.RUNQ_SIZE + 1));
    for (let i = 0; i < L.RUNQ_SIZE; i++) core.runqPut(0, gs[i], 0);
    expect(mem.runqSize).toBe(1);
    core.runqPut(0, gs[L.RUNQ_SIZE], 0);
    expect(core.runqLen(0)).toBe(L.RUNQ_HALF);
    expect(mem.ring(0)).toEqual(gs.slice(L.RUNQ_HALF, L.RUNQ_SIZE));
    expect(mem.runqSize).toBe(1 + L.RUNQ_HALF + 1);
    expect(mem.globalQueue()).toEqual([pre, ...gs.slice(0, L.RUNQ_HALF), gs[L.RUNQ_SIZE]]);
    expect(mem.pc(0, L.PC_OVERFLOWS)).toBe(1);
    expect(mem.sc(L.SC_GLOB_PUT)).toBe(1 + L.RUNQ_HALF + 1);
  });

  it('overflow through runnext: the kicked G is the 129th of the batch', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, L.RUNQ_SIZE + 2));
    for (let i = 0; i < L.RUNQ_SIZE; i++) core.runqPut(0, gs[i], 0);
    const x = gs[L.RUNQ_SIZE];
    const y = gs[L.RUNQ_SIZE + 1];
    core.runqPut(0, x, 1); // the slot was empty: no spill
    expect(mem.runqSize).toBe(0);
    core.runqPut(0, y, 1); // kicks x into a full ring
    expect(mem.runnext(0)).toBe(y);
    expect(mem.globalQueue()).toEqual([...gs.slice(0, L.RUNQ_HALF), x]);
    expect(mem.ring(0)).toEqual(gs.slice(L.RUNQ_HALF, L.RUNQ_SIZE));
  });

  it('overflow repeatedly: nothing lost, the global queue keeps Go order', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, 1000));
    for (const g of gs) core.runqPut(0, g, 0);
    // 256 fit, each 129 puts after that spill one batch: 129 + 128*k ... ; 1000 puts spill 6.
    const spills = mem.pc(0, L.PC_OVERFLOWS);
    expect(spills).toBe(Math.floor((1000 - L.RUNQ_SIZE - 1) / (L.RUNQ_HALF + 1)) + 1);
    expect(mem.runqSize).toBe(spills * (L.RUNQ_HALF + 1));
    expect(mem.runqSize + core.runqLen(0)).toBe(1000);
    const all = [...mem.globalQueue(), ...mem.ring(0)];
    expect(new Set(all).size).toBe(1000);
  });
});

describe.each(BACKENDS)('global run queue (%s)', (backend) => {
  it('globrunqPut is FIFO; the 1-G get takes the head', async () => {
    const h = await freshCore(backend, { nprocs: 1 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, 5));
    for (const g of gs) core.globrunqPut(g);
    expect(mem.globalQueue()).toEqual(gs);
    expect(mem.sc(L.SC_GLOB_PUT)).toBe(5);
    for (const g of gs) expect(core.globrunqGet(0, 1)).toBe(g);
    expect(core.globrunqGet(0, 1)).toBe(0);
    expect(mem.runqSize).toBe(0);
    expect(mem.sc(L.SC_GLOB_GET)).toBe(5);
    expect(core.runqLen(0)).toBe(0);
  });

  it('globrunqPutBatch appends a linked chain behind what is queued', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, 7));
    core.globrunqPut(gs[0]);
    linkChain(h, gs.slice(1, 6));
    core.globrunqPutBatch(gs[1], gs[5], 5);
    core.globrunqPut(gs[6]);
    expect(mem.globalQueue()).toEqual(gs);
    expect(mem.sc(L.SC_GLOB_PUT)).toBe(7);
    expect(drainGlobal(h, 0)).toEqual(gs);
  });

  it('globrunqGet batch rule min(size/nprocs+1, size, max, 128), rest queued on p in order', async () => {
    for (const nprocs of [1, 2, 3, 4, 7]) {
      const h = await freshCore(backend, { nprocs, gcapInit: L.G_CHUNK });
      const { core, mem } = h;
      const pool = makeRunnable(h, takeGs(h, 700));
      let taken = 0;
      for (const size of [0, 1, 2, 3, 5, 8, 63, 64, 127, 128, 129, 130, 200, 256, 257, 300, 513, 700]) {
        for (const max of [0, 1, 2, 5, 64, 127, 128, 129, 1000]) {
          const batch = pool.slice(0, size);
          for (const g of batch) core.globrunqPut(g);
          const p = size % nprocs;
          const n = globBatch(size, nprocs, max);
          const first = core.globrunqGet(p, max);
          const where = `nprocs=${nprocs} size=${size} max=${max}`;
          expect(first, where).toBe(size === 0 ? 0 : batch[0]);
          expect(mem.ring(p), where).toEqual(batch.slice(1, n));
          expect(mem.runnext(p), where).toBe(0);
          expect(mem.runqSize, where).toBe(size - n);
          expect(mem.globalQueue(), where).toEqual(batch.slice(n));
          taken += n;
          expect(mem.sc(L.SC_GLOB_GET), where).toBe(taken);
          // Put the world back: drain p, then the global queue.
          const rest = [...drain(h, p), ...drainGlobal(h, p)];
          expect(rest, where).toEqual(batch.slice(1));
          taken = mem.sc(L.SC_GLOB_GET);
        }
      }
    }
  });

  it('sched.lock is free after every operation and counts acquisitions', async () => {
    const h = await freshCore(backend, { nprocs: 2 });
    const { core, mem } = h;
    const gs = makeRunnable(h, takeGs(h, 300));
    const before = mem.sc(L.SC_LOCK_ACQ);
    core.globrunqPut(gs[0]);
    expect(mem.lockWord).toBe(0);
    expect(mem.sc(L.SC_LOCK_ACQ)).toBe(before + 1);
    core.globrunqGet(0, 0);
    expect(mem.lockWord).toBe(0);
    expect(mem.sc(L.SC_LOCK_ACQ)).toBe(before + 2);
    for (const g of gs.slice(1)) core.runqPut(1, g, 0); // one spill
    expect(mem.lockWord).toBe(0);
    expect(mem.sc(L.SC_LOCK_ACQ)).toBe(before + 3);
  });
});
