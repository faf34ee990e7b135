// The scheduling protocol, single-threaded, for both backends (DESIGN.md "findRunnable",
// "Victim order and steal threshold", "Spin, then park"). The test thread plays every M in
// turn, through the same calls a worker makes: mPut at start-up, wakep, the park word's
// consumption, acquireP, findRunnable, stopM. States are read back from the bytes.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { Stop } from '../bindings/core/index.js';
import {
  BACKENDS, freshCore, makeRunnable, startMs, startPs, takeGs, wakeAndAcquire, wokenMs, type Harness,
} from './helpers/core.js';
import { coprimesOf } from './helpers/mem.js';

/** The running G g on M m holding P p finishes: G_RUNNING -> G_DEAD, back to p's cache. */
function finish(h: Harness, p: number, g: number): void {
  h.core.gSetStatus(g, L.G_RUNNING, L.G_DEAD);
  h.core.gfPut(p, g);
}

/** Queues gs on p's ring directly (owner op, no wakep). */
function queueLocal(h: Harness, p: number, gs: number[]): void {
  for (const g of makeRunnable(h, gs)) h.core.runqPut(p, g, 0);
}

describe.each(BACKENDS)('start-up, wakep, acquireP (%s)', (backend) => {
  it('init: every P on the idle list once, nothing spinning, no idle M', async () => {
    const { mem } = await freshCore(backend, { nprocs: 7 });
    expect([...mem.pidle()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(mem.npidle).toBe(7);
    expect(mem.nmspinning).toBe(0);
    expect(mem.needspinning).toBe(0);
    expect(mem.midle()).toEqual([]);
    expect(mem.nmidle).toBe(0);
    expect(mem.runqSize).toBe(0);
    expect(mem.highQueue()).toEqual([]);
    expect(mem.lowQueue()).toEqual([]);
    expect(mem.lockWord).toBe(0);
  });

  it('mPut puts each M on the idle list', async () => {
    const h = await freshCore(backend, { maxMs: 6 });
    startMs(h);
    expect([...h.mem.midle()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(h.mem.nmidle).toBe(5);
  });

  it('wakep hands one idle P to one idle M: park, nextp, spinning', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    startMs(h);
    core.wakep();
    const woken = wokenMs(h);
    expect(woken.length).toBe(1);
    const m = woken[0];
    const p = mem.m(m, L.M_NEXTP) - 1;
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThan(3);
    expect(mem.pidle()).not.toContain(p);
    expect(mem.npidle).toBe(2);
    expect(mem.midle()).not.toContain(m);
    expect(mem.nmidle).toBe(2);
    expect(mem.m(m, L.M_PARK) & L.PARK_P).toBe(L.PARK_P);
    expect(mem.m(m, L.M_SPINNING)).toBe(1);
    expect(mem.nmspinning).toBe(1);
    expect(mem.p(p, L.P_M)).toBe(m + 1);
    expect(mem.pc(p, L.PC_WAKEUPS)).toBe(1);
    // One wake-up in flight at a time: a second wakep changes nothing.
    const before = mem.bytes(L.SCHED, L.SCHED + 2 * L.LINE);
    core.wakep();
    expect(wokenMs(h)).toEqual([m]);
    expect(mem.bytes(L.SCHED, L.SCHED + 2 * L.LINE)).toEqual(before);
    // The woken M takes its P.
    expect(wakeAndAcquire(h, m)).toBe(p);
    expect(mem.m(m, L.M_NEXTP)).toBe(0);
    expect(mem.p(p, L.P_STATUS)).toBe(L.P_RUNNING);
    expect(mem.p(p, L.P_M)).toBe(m + 1);
    expect(mem.lockWord).toBe(0);
  });

  it('wakep with no idle P leaves needspinning set and nmspinning 0', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 3 });
    const { core, mem } = h;
    startPs(h, 1); // its resetSpinning saw no more work: no wakep
    expect(mem.needspinning).toBe(0);
    expect(mem.nmspinning).toBe(0);
    expect(wokenMs(h)).toEqual([]);
    core.wakep();
    expect(mem.needspinning).toBe(1);
    expect(mem.nmspinning).toBe(0);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.lockWord).toBe(0);
  });

  it('a spinning M that finds work wakes the next one (the last spinner hands on)', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { mem } = h;
    const run = startPs(h, 2);
    expect(new Set(run.map((r) => r.p)).size).toBe(2);
    expect(new Set(run.map((r) => r.m)).size).toBe(2);
    for (const r of run) {
      expect(mem.p(r.p, L.P_STATUS)).toBe(L.P_RUNNING);
      expect(mem.m(r.m, L.M_SPINNING)).toBe(0);
      expect(mem.g(r.g, L.G_STATUS)).toBe(L.G_RUNNING);
      expect(mem.pc(r.p, L.PC_WAKEUPS)).toBe(1);
    }
    expect(mem.npidle).toBe(1);
    expect(mem.nmspinning).toBe(0);
  });
});

describe.each(BACKENDS)('ready (%s)', (backend) => {
  it('ready(-1) queues globally and wakes an idle P; ready(p) queues locally and counts a spawn', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    startMs(h);
    const [a, b, c] = takeGs(h, 3);
    core.ready(-1, a, 0);
    expect(mem.g(a, L.G_STATUS)).toBe(L.G_RUNNABLE);
    expect(mem.globalQueue()).toEqual([a]);
    expect(wokenMs(h).length).toBe(1);
    expect(mem.nmspinning).toBe(1);
    const m = wokenMs(h)[0];
    const p = wakeAndAcquire(h, m);
    core.ready(p, b, 0); // nmspinning != 0: no second wake-up
    core.ready(p, c, 1);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.ring(p)).toEqual([b]);
    expect(mem.runnext(p)).toBe(c);
    expect(mem.pc(p, L.PC_SPAWNED)).toBe(2);
  });

  it('FLAG_GLOBAL_ONLY: every ready goes to the global queue, even next', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2, flags: L.FLAG_GLOBAL_ONLY });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const gs = takeGs(h, 3);
    core.ready(r.p, gs[0], 0);
    core.ready(r.p, gs[1], 1);
    core.ready(-1, gs[2], 0);
    expect(mem.globalQueue()).toEqual(gs);
    expect(mem.ring(r.p)).toEqual([]);
    expect(mem.runnext(r.p)).toBe(0);
    expect(mem.pc(r.p, L.PC_SPAWNED)).toBe(2);
  });

  it('ready takes a waiting G back (a join continuation)', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2, flags: L.FLAG_DEBUG });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    core.gSetStatus(r.g, L.G_RUNNING, L.G_WAITING);
    core.ready(r.p, r.g, 1);
    expect(mem.g(r.g, L.G_STATUS)).toBe(L.G_RUNNABLE);
    expect(core.findRunnable(r.p, r.m)).toBe(r.g);
  });

  it('FLAG_DEBUG: an illegal transition aborts and names the states', async () => {
    for (const [from, to] of [[L.G_DEAD, L.G_RUNNING], [L.G_RUNNABLE, L.G_WAITING], [L.G_RUNNING, L.G_RUNNABLE]]) {
      const h = await freshCore(backend, { flags: L.FLAG_DEBUG });
      const [g] = takeGs(h, 1);
      if (from === L.G_RUNNABLE) h.core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE);
      if (from === L.G_RUNNING) {
        h.core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE);
        h.core.gSetStatus(g, L.G_RUNNABLE, L.G_RUNNING);
      }
      expect(() => h.core.gSetStatus(g, from, to)).toThrow(/gSetStatus: bad transition/);
    }
    // A legal transition named with the wrong current state aborts too.
    const h = await freshCore(backend, { flags: L.FLAG_DEBUG });
    const [g] = takeGs(h, 1);
    expect(() => h.core.gSetStatus(g, L.G_RUNNABLE, L.G_RUNNING)).toThrow(/gSetStatus: bad transition/);
  });

  it('every legal transition of the table passes with FLAG_DEBUG', async () => {
    const h = await freshCore(backend, { flags: L.FLAG_DEBUG });
    const { core, mem } = h;
    const [g] = takeGs(h, 1);
    const path = [
      [L.G_DEAD, L.G_RUNNABLE], [L.G_RUNNABLE, L.G_RUNNING], [L.G_RUNNING, L.G_WAITING],
      [L.G_WAITING, L.G_RUNNABLE], [L.G_RUNNABLE, L.G_DEAD], [L.G_DEAD, L.G_RUNNABLE],
      [L.G_RUNNABLE, L.G_RUNNING], [L.G_RUNNING, L.G_DEAD], [L.G_DEAD, L.G_RUNNABLE],
      [L.G_RUNNABLE, L.G_RUNNING], [L.G_RUNNING, L.G_WAITING], [L.G_WAITING, L.G_DEAD],
    ];
    for (const [from, to] of path) {
      core.gSetStatus(g, from, to);
      expect(mem.g(g, L.G_STATUS)).toBe(to);
    }
  });
});

describe.each(BACKENDS)('findRunnable order (%s)', (backend) => {
  it('tick 61 checks the global queue first (one G), else runnext, local ring, global batch', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2, gcapInit: 2 * L.G_CHUNK });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(1); // r.g started a slice
    let executed = mem.pc(p, L.PC_EXECUTED);
    const run = (): number => {
      const g = core.findRunnable(p, m);
      if (g !== 0) {
        executed += 1;
        expect(mem.g(g, L.G_STATUS)).toBe(L.G_RUNNING);
        finish(h, p, g);
      }
      expect(mem.pc(p, L.PC_EXECUTED)).toBe(executed);
      return g;
    };

    // Local ring before the global queue when the tick is not a multiple of 61.
    const [x, y] = takeGs(h, 2);
    core.ready(p, x, 0);
    core.ready(-1, y, 0);
    expect(run()).toBe(x);
    expect(mem.pc(p, L.PC_LOCAL_HITS)).toBe(1);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(2);
    expect(run()).toBe(y);
    expect(mem.pc(p, L.PC_GLOBAL_HITS)).toBe(2);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(3);

    // runnext before the ring; a runnext G inherits the slice (no tick).
    const [x1, x2] = takeGs(h, 2);
    core.ready(p, x1, 0);
    core.ready(p, x2, 1);
    expect(run()).toBe(x2);
    expect(mem.pc(p, L.PC_RUNNEXT_HITS)).toBe(1);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(3);
    expect(run()).toBe(x1);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(4);

    // Local empty: the global queue gives a batch (nprocs 1: all 5, up to 128).
    const batch = takeGs(h, 5);
    for (const g of batch) core.ready(-1, g, 0);
    expect(run()).toBe(batch[0]);
    expect(mem.ring(p)).toEqual(batch.slice(1));
    for (const g of batch.slice(1)) expect(run()).toBe(g);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(9);

    // Pump the tick to 61 with local work, then the global queue goes first, one G only.
    while (mem.p(p, L.P_SCHEDTICK) % L.GLOBAL_CHECK_TICKS !== 0) {
      const [g] = takeGs(h, 1, p);
      core.ready(p, g, 0);
      expect(run()).toBe(g);
    }
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(61);
    const [loc] = takeGs(h, 1, p);
    const glob = takeGs(h, 3, p);
    core.ready(p, loc, 0);
    for (const g of glob) core.ready(-1, g, 0);
    const hits = mem.pc(p, L.PC_GLOBAL_HITS);
    expect(run()).toBe(glob[0]);
    expect(mem.pc(p, L.PC_GLOBAL_HITS)).toBe(hits + 1);
    expect(mem.ring(p)).toEqual([loc]); // globrunqGet(p, 1): nothing else moved
    expect(mem.runqSize).toBe(2);
    expect(run()).toBe(loc);
    expect(run()).toBe(glob[1]);
    expect(run()).toBe(glob[2]);
  });

  it('nothing local or global: a spinning M steals (ceil half, the newest of the batch)', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    const gs = takeGs(h, 9);
    queueLocal(h, a.p, gs);
    const spins = mem.pc(b.p, L.PC_SPINS);
    const g = core.findRunnable(b.p, b.m);
    expect(g).toBe(gs[4]);
    expect(mem.g(g, L.G_STATUS)).toBe(L.G_RUNNING);
    expect(mem.ring(b.p)).toEqual(gs.slice(0, 4));
    expect(mem.ring(a.p)).toEqual(gs.slice(5));
    expect(mem.pc(b.p, L.PC_SPINS)).toBe(spins + 1);
    expect(mem.pc(b.p, L.PC_STEAL_OPS)).toBe(1);
    expect(mem.pc(b.p, L.PC_STOLEN)).toBe(5);
    expect(mem.m(b.m, L.M_SPINNING)).toBe(0); // resetSpinning
    expect(mem.nmspinning).toBe(0); // its wakep found no idle P
    expect(mem.p(b.p, L.P_HINT)).toBe(a.p + 1);
  });

  it('nothing anywhere: spins, misses, stays spinning, returns 0', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    const spins = mem.pc(a.p, L.PC_SPINS);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(1);
    expect(mem.nmspinning).toBe(1);
    expect(mem.pc(a.p, L.PC_SPINS)).toBe(spins + 1);
    expect(mem.pc(a.p, L.PC_STEAL_MISSES)).toBe(1);
    // Already spinning: no second count.
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    expect(mem.nmspinning).toBe(1);
    expect(mem.pc(a.p, L.PC_SPINS)).toBe(spins + 1);
    expect(mem.pc(a.p, L.PC_STEAL_MISSES)).toBe(2);
  });

  it('spin cap: with 2*nmspinning >= busy Ps the M does not spin or steal', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    core.wakep(); // another M spins on another P: nmspinning 1, busy 2
    expect(mem.nmspinning).toBe(1);
    const spins = mem.pc(a.p, L.PC_SPINS);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(0);
    expect(mem.nmspinning).toBe(1);
    expect(mem.pc(a.p, L.PC_SPINS)).toBe(spins);
    expect(mem.pc(a.p, L.PC_STEAL_MISSES)).toBe(0);
  });
});

describe.each(BACKENDS)('stopM (%s)', (backend) => {
  it('Sleep: a spinning M with nothing to do parks its P and itself', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    const parks = mem.pc(a.p, L.PC_PARKS);
    expect(core.stopM(a.p, a.m)).toBe(Stop.Sleep);
    expect(mem.p(a.p, L.P_STATUS)).toBe(L.P_IDLE);
    expect(mem.p(a.p, L.P_M)).toBe(0);
    expect(mem.pidle()).toContain(a.p);
    expect(mem.npidle).toBe(2);
    expect(mem.pc(a.p, L.PC_PARKS)).toBe(parks + 1);
    expect(mem.midle()).toContain(a.m);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(0);
    expect(mem.nmspinning).toBe(0);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.lockWord).toBe(0);
  });

  it('Sleep without recheck: a non-spinning M parks even if another P has work', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    queueLocal(h, b.p, takeGs(h, 3));
    expect(core.stopM(a.p, a.m)).toBe(Stop.Sleep);
    expect(mem.nmspinning).toBe(0);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.midle()).toContain(a.m);
  });

  it('Retry: work appears between a spinner\'s last look and its decrement (the delicate dance)', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    expect(core.findRunnable(a.p, a.m)).toBe(0); // spinning, saw nothing
    queueLocal(h, b.p, takeGs(h, 1)); // b's owner enqueues now
    const parks = mem.pc(a.p, L.PC_PARKS);
    expect(core.stopM(a.p, a.m)).toBe(Stop.Retry);
    const p2 = mem.m(a.m, L.M_NEXTP) - 1;
    expect(p2).toBeGreaterThanOrEqual(0);
    expect(mem.pidle()).not.toContain(p2);
    expect(mem.midle()).not.toContain(a.m);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(1);
    expect(mem.nmspinning).toBe(1);
    expect(mem.pc(a.p, L.PC_PARKS)).toBe(parks + 1);
    // The M goes back to the top with its new P and steals the G.
    expect(core.acquireP(a.m)).toBe(p2);
    const g = core.findRunnable(p2, a.m);
    expect(g).not.toBe(0);
    // resetSpinning: that was the only G in sight, so nobody else is woken (a later G wakes one).
    expect(mem.nmspinning).toBe(0);
    expect(wokenMs(h)).toEqual([]);
  });

  it('Sleep, not Retry: a busy P holds fewer Gs than the steal threshold (its owner runs them)', async () => {
    // Found by the model checker (test/model, park): Retry here took an idle P back, findRunnable
    // could not steal below the threshold, stopM retried again: an M looping for as long as the
    // owner ran its current G.
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4, stealThreshold: 2 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    queueLocal(h, b.p, takeGs(h, 1));
    expect(core.findRunnable(a.p, a.m)).toBe(0); // spinning; one G on b is too little to steal
    expect(mem.m(a.m, L.M_SPINNING)).toBe(1);
    expect(core.stopM(a.p, a.m)).toBe(Stop.Sleep);
    expect(mem.nmspinning).toBe(0);
    expect(mem.midle()).toContain(a.m);
    // Two Gs reach the threshold: the same M comes back for them.
    const h2 = await freshCore(backend, { nprocs: 3, maxMs: 4, stealThreshold: 2 });
    const [a2, b2] = startPs(h2, 2);
    expect(h2.core.findRunnable(a2.p, a2.m)).toBe(0);
    queueLocal(h2, b2.p, takeGs(h2, 2));
    expect(h2.core.stopM(a2.p, a2.m)).toBe(Stop.Retry);
  });

  it('global work at stopM step 1: a G comes back, the P is kept, the next spinner woken for the rest', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const [a] = startPs(h, 2);
    expect(core.findRunnable(a.p, a.m)).toBe(0); // spinning
    const [y, z] = takeGs(h, 2);
    core.ready(-1, y, 0); // nmspinning 1: no wakep
    core.ready(-1, z, 0);
    expect(wokenMs(h)).toEqual([]);
    const executed = mem.pc(a.p, L.PC_EXECUTED);
    expect(core.stopM(a.p, a.m)).toBe(y);
    expect(mem.g(y, L.G_STATUS)).toBe(L.G_RUNNING);
    expect(mem.p(a.p, L.P_STATUS)).toBe(L.P_RUNNING);
    expect(mem.p(a.p, L.P_M)).toBe(a.m + 1);
    expect(mem.pc(a.p, L.PC_EXECUTED)).toBe(executed + 1);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(0);
    expect(wokenMs(h).length).toBe(1); // resetSpinning's wakep: z is in sight
    expect(mem.nmspinning).toBe(1);
  });

  it('global work at stopM step 1, the only G in sight: the P is kept and nobody is woken', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const [a] = startPs(h, 2);
    expect(core.findRunnable(a.p, a.m)).toBe(0); // spinning
    const [y] = takeGs(h, 1);
    core.ready(-1, y, 0); // nmspinning 1: no wakep
    expect(core.stopM(a.p, a.m)).toBe(y);
    expect(mem.p(a.p, L.P_M)).toBe(a.m + 1);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.nmspinning).toBe(0);
    // The delicate dance from the other side: a G readied now sees nmspinning 0 and wakes one.
    const [w] = takeGs(h, 1);
    core.ready(-1, w, 0);
    expect(wokenMs(h).length).toBe(1);
    expect(mem.nmspinning).toBe(1);
  });

  it('global work at stopM step 1 for a non-spinning M: the G, no wake-up', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    const [y] = takeGs(h, 1);
    core.ready(-1, y, 0); // npidle 0: no wakep
    expect(core.stopM(b.p, b.m)).toBe(y);
    expect(mem.p(b.p, L.P_STATUS)).toBe(L.P_RUNNING);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.nmspinning).toBe(0);
    expect(a.p).not.toBe(b.p);
  });

  it('a parked M is woken by the next wakep, its park word set first', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    finish(h, a.p, a.g);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    expect(core.stopM(a.p, a.m)).toBe(Stop.Sleep);
    expect(mem.m(a.m, L.M_PARK)).toBe(0);
    const [g] = takeGs(h, 1);
    core.ready(-1, g, 0);
    expect(mem.m(a.m, L.M_PARK) & L.PARK_P).toBe(L.PARK_P);
    expect(wakeAndAcquire(h, a.m)).toBe(a.p);
    expect(core.findRunnable(a.p, a.m)).toBe(g);
  });
});

describe.each(BACKENDS)('victim order (%s)', (backend) => {
  it('stealOrderAt visits every P exactly once, 1..64 procs, random and round-robin', async () => {
    for (const order of [L.ORDER_RANDOM, L.ORDER_ROUND_ROBIN]) {
      for (let n = 1; n <= 64; n++) {
        const { core, mem } = await freshCore(backend, { nprocs: n, maxMs: 2, flags: order, maximumPages: 32 });
        const cop = coprimesOf(n);
        if (n >= 3) expect(cop.length).toBeGreaterThanOrEqual(2);
        expect(mem.hdr(L.H_NCOPRIMES)).toBe(cop.length);
        const seeds = [0, 1, 2, n, n * cop.length - 1, 0x7fffffff, 0x80000000, 0xffffffff];
        for (let k = 0; k < 24; k++) seeds.push((Math.imul(k + 1, 0x9e3779b9) ^ n) >>> 0);
        const ps = n <= 8 ? Array.from({ length: n }, (_, i) => i) : [0, 1, n >> 1, n - 1];
        for (const p of ps) {
          for (const r of seeds) {
            const seq = Array.from({ length: n }, (_, i) => core.stealOrderAt(p, r, i));
            const where = `order=${order} n=${n} p=${p} r=${r}`;
            expect([...seq].sort((a, b) => a - b), where).toEqual(Array.from({ length: n }, (_, i) => i));
            if (order === L.ORDER_RANDOM) {
              const pos = r % n;
              const inc = cop[Math.floor(r / n) % cop.length];
              expect(seq, where).toEqual(seq.map((_, i) => (pos + i * inc) % n));
            } else {
              expect(seq, where).toEqual(seq.map((_, i) => (p + 1 + i) % n));
            }
          }
        }
      }
    }
  });

  it('random order: the first n * ncoprimes seeds give distinct (start, stride) pairs', async () => {
    for (let n = 2; n <= 64; n++) {
      const { core } = await freshCore(backend, { nprocs: n, maxMs: 2, maximumPages: 32 });
      const ncop = coprimesOf(n).length;
      const pairs = new Set<string>();
      for (let r = 0; r < n * ncop; r++) {
        const a = core.stealOrderAt(0, r, 0);
        const b = core.stealOrderAt(0, r, 1);
        pairs.add(`${a},${(b - a + n) % n}`);
      }
      expect(pairs.size, `n=${n}`).toBe(n * ncop);
    }
  });

  it('stealOrderAt has no side effects', async () => {
    const { core, mem } = await freshCore(backend, { nprocs: 12 });
    const before = mem.bytes(L.LAYOUT_BASE);
    for (let i = 0; i < 1000; i++) core.stealOrderAt(i % 12, i * 7919, i % 12);
    expect(mem.bytes(L.LAYOUT_BASE)).toEqual(before);
  });

  it('stealWork advances P_RAND by xorshift32 and visits victims in stealOrderAt order', async () => {
    const h = await freshCore(backend, { nprocs: 5, maxMs: 6, seed: 77 });
    const { core, mem } = h;
    const run = startPs(h, 5);
    const thief = run[0].p;
    const xorshift = (x: number): number => {
      x ^= x << 13; x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    for (let round = 0; round < 20; round++) {
      // One G on every other P: the first non-idle victim in the order is robbed.
      const victims = run.filter((r) => r.p !== thief);
      for (const v of victims) queueLocal(h, v.p, takeGs(h, 1, v.p));
      const r = xorshift(mem.p(thief, L.P_RAND));
      let expected = -1;
      for (let i = 0; i < 5 && expected < 0; i++) {
        const v = core.stealOrderAt(thief, r, i);
        if (v !== thief) expected = v;
      }
      const g = core.stealWork(thief);
      expect(g).not.toBe(0);
      expect(mem.p(thief, L.P_RAND)).toBe(r);
      expect(mem.ring(expected), `round ${round}: robbed P${expected}`).toEqual([]);
      // Put the world back: the stolen G is dropped, the others drained by their owners.
      core.gSetStatus(g, L.G_RUNNABLE, L.G_DEAD);
      core.gfPut(thief, g);
      for (const v of victims) {
        for (let x = core.runqGet(v.p); x !== 0; x = core.runqGet(v.p)) {
          core.gSetStatus(x, L.G_RUNNABLE, L.G_DEAD);
          core.gfPut(v.p, x);
        }
      }
    }
  });

  it('round-robin order robs p+1 first', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5, flags: L.ORDER_ROUND_ROBIN });
    const { core, mem } = h;
    const run = startPs(h, 4);
    for (const t of run) {
      for (const v of run) if (v.p !== t.p) queueLocal(h, v.p, takeGs(h, 2));
      core.stealWork(t.p);
      const next = (t.p + 1) % 4;
      expect(mem.ring(next).length).toBe(1);
      for (const v of run) if (v.p !== t.p && v.p !== next) expect(mem.ring(v.p).length).toBe(2);
      for (const v of run) while (core.runqGet(v.p) !== 0);
    }
  });
});

describe.each(BACKENDS)('steal threshold (%s)', (backend) => {
  it('fixed: a victim below the threshold is left alone; runnext counts on the last pass', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3, stealThreshold: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    expect(core.stealThreshold()).toBe(3);
    const gs = takeGs(h, 4);
    queueLocal(h, a.p, gs.slice(0, 2));
    expect(core.stealWork(b.p)).toBe(0);
    expect(mem.ring(a.p)).toEqual(gs.slice(0, 2));
    expect(mem.p(b.p, L.P_HINT)).toBe(0);
    // Ring 2 + runnext: load 3 on the last pass; the ring's head half goes, runnext stays.
    core.gSetStatus(gs[2], L.G_DEAD, L.G_RUNNABLE);
    core.runqPut(a.p, gs[2], 1);
    expect(core.stealWork(b.p)).toBe(gs[0]);
    expect(mem.runnext(a.p)).toBe(gs[2]);
    expect(mem.ring(a.p)).toEqual([gs[1]]);
    expect(mem.p(b.p, L.P_HINT)).toBe(a.p + 1);
    expect(core.stealThreshold()).toBe(3); // fixed, whatever the load
  });

  it('fixed threshold 1 (Go): runnext alone is stolen on the last pass', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    const [g] = makeRunnable(h, takeGs(h, 1));
    core.runqPut(a.p, g, 1);
    expect(core.stealWork(b.p)).toBe(g); // a is running: the 3 us back-off, then the CAS
    expect(mem.runnext(a.p)).toBe(0);
  });

  it('load-derived: clamp((avg >> 2) halved when many Ps idle, floor, 32)', async () => {
    const cases: Array<{ running: number; loads: number[]; floor: number }> = [
      { running: 2, loads: [0, 0], floor: 1 },
      { running: 2, loads: [100, 20], floor: 1 },
      { running: 2, loads: [100, 20], floor: 9 },
      { running: 4, loads: [40, 40, 40, 40], floor: 1 },
      { running: 4, loads: [200, 200, 200, 200], floor: 1 },
      { running: 4, loads: [0, 0, 0, 3], floor: 2 },
      { running: 3, loads: [255, 7, 1], floor: 1 },
      { running: 1, loads: [77], floor: 1 },
    ];
    for (const c of cases) {
      const nprocs = 4;
      const h = await freshCore(backend, {
        nprocs, maxMs: 6, flags: L.FLAG_THRESHOLD_LOAD, stealThreshold: c.floor, gcapInit: 2 * L.G_CHUNK,
      });
      const { core, mem } = h;
      const run = startPs(h, c.running);
      run.forEach((r, i) => queueLocal(h, r.p, takeGs(h, c.loads[i])));
      const npidle = nprocs - c.running;
      const busy = nprocs - npidle;
      const total = c.loads.reduce((x, y) => x + y, 0);
      let t = Math.floor(total / Math.max(busy, 1)) >>> 2;
      if (2 * (npidle + mem.nmspinning) >= nprocs) t >>>= 1;
      const want = Math.min(Math.max(t, c.floor), 32);
      expect(mem.npidle).toBe(npidle);
      expect(core.stealThreshold(), JSON.stringify(c)).toBe(want);
    }
  });

  it('load-derived: stealWork skips a lightly loaded victim for a heavy one', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const h = await freshCore(backend, { nprocs: 4, maxMs: 5, flags: L.FLAG_THRESHOLD_LOAD, seed });
      const { core, mem } = h;
      const [heavy, light, thief] = startPs(h, 3);
      queueLocal(h, heavy.p, takeGs(h, 100));
      queueLocal(h, light.p, takeGs(h, 4));
      expect(core.stealThreshold()).toBe(8); // avg 34 >> 2; 1 idle P of 4: not halved
      expect(core.stealWork(thief.p)).not.toBe(0);
      expect(mem.ring(light.p).length).toBe(4);
      expect(mem.ring(heavy.p).length).toBe(50);
    }
  });
});

describe.each(BACKENDS)('victim hint (%s)', (backend) => {
  it('FLAG_VICTIM_HINT: the last victim that had work is tried first; a miss clears it', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5, flags: L.FLAG_VICTIM_HINT, seed: 3 });
    const { core, mem } = h;
    const [t, v1, v2, v3] = startPs(h, 4);
    const victims = [v1, v2, v3];
    const refill = (): void => {
      for (const v of victims) {
        while (core.runqGet(v.p) !== 0);
        queueLocal(h, v.p, takeGs(h, 4, v.p));
      }
      while (core.runqGet(t.p) !== 0);
    };
    refill();
    expect(core.stealWork(t.p)).not.toBe(0);
    const hint = mem.p(t.p, L.P_HINT);
    expect(hint).not.toBe(0);
    const hv = hint - 1;
    for (let round = 0; round < 20; round++) {
      refill();
      expect(core.stealWork(t.p)).not.toBe(0);
      expect(mem.ring(hv).length, `round ${round}`).toBe(2);
      for (const v of victims) if (v.p !== hv) expect(mem.ring(v.p).length).toBe(4);
      expect(mem.p(t.p, L.P_HINT)).toBe(hint);
    }
    // The hinted victim runs dry: the hint moves to whoever had work.
    refill();
    while (core.runqGet(hv) !== 0);
    expect(core.stealWork(t.p)).not.toBe(0);
    const hint2 = mem.p(t.p, L.P_HINT);
    expect(hint2).not.toBe(hint);
    expect(hint2).not.toBe(0);
    // Nobody has work: the miss clears the hint.
    for (const v of victims) while (core.runqGet(v.p) !== 0);
    while (core.runqGet(t.p) !== 0);
    expect(core.stealWork(t.p)).toBe(0);
    expect(mem.p(t.p, L.P_HINT)).toBe(0);
  });

  it('without the hint the random order spreads the steals', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5, seed: 3 });
    const { core, mem } = h;
    const [t, ...victims] = startPs(h, 4);
    const robbed = new Set<number>();
    for (let round = 0; round < 30; round++) {
      for (const v of victims) {
        while (core.runqGet(v.p) !== 0);
        queueLocal(h, v.p, takeGs(h, 4, v.p));
      }
      while (core.runqGet(t.p) !== 0);
      expect(core.stealWork(t.p)).not.toBe(0);
      for (const v of victims) if (mem.ring(v.p).length === 2) robbed.add(v.p);
    }
    expect(robbed.size).toBeGreaterThan(1);
  });
});
