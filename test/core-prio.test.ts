// Priority classes in the scheduler core, single-threaded, for both backends (DESIGN.md
// "Priority classes"): where ready puts a G of each class, the order findRunnable serves
// them in, the low queue's 1-in-LOW_CHECK_TICKS turn, high work's budget (on a virtual clock),
// stealing by class, stopM taking class work instead of parking, and mTake. The test thread plays every M, as in core-sched.test.ts;
// states are read back from the bytes.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { Stop } from '../bindings/core/index.js';
import {
  BACKENDS, freshCore, makeRunnable, startMs, startPs, takeGs, wakeAndAcquire, wokenMs, type Harness,
} from './helpers/core.js';

/** The running G g on P p finishes: G_RUNNING -> G_DEAD, back to p's cache. */
function finish(h: Harness, p: number, g: number): void {
  h.core.gSetStatus(g, L.G_RUNNING, L.G_DEAD);
  h.core.gfPut(p, g);
}

/** n dead Gs of class cls (from P p's cache, or the global list when p < 0). */
function classGs(h: Harness, n: number, cls: number, p = -1): number[] {
  const gs = takeGs(h, n, p);
  for (const g of gs) h.mem.setGClass(g, cls);
  return gs;
}

/** Queues normal gs on p's ring directly (owner op, no wakep). */
function queueLocal(h: Harness, p: number, gs: number[]): void {
  for (const g of makeRunnable(h, gs)) h.core.runqPut(p, g, 0);
}

/** Every ring and runnext slot holds normal Gs only; each class queue only its own class. */
function expectClassesInPlace(h: Harness): void {
  const { mem } = h;
  for (let p = 0; p < mem.nprocs; p++) {
    for (const g of mem.ring(p)) expect(mem.gClass(g), `P${p} ring G${g}`).toBe(L.PRIO_NORMAL);
    const n = mem.runnext(p);
    if (n !== 0) expect(mem.gClass(n), `P${p} runnext G${n}`).toBe(L.PRIO_NORMAL);
  }
  for (const g of mem.globalQueue()) expect(mem.gClass(g), `global G${g}`).toBe(L.PRIO_NORMAL);
  for (const g of mem.highQueue()) expect(mem.gClass(g), `high G${g}`).toBe(L.PRIO_HIGH);
  for (const g of mem.lowQueue()) expect(mem.gClass(g), `low G${g}`).not.toBe(L.PRIO_NORMAL);
  for (const g of mem.lowQueue()) expect(mem.gClass(g), `low G${g}`).not.toBe(L.PRIO_HIGH);
}

/**
 * One M's view of its P: `run()` calls findRunnable, checks the G is running and the executed
 * count, finishes it, and returns it with the schedtick it was picked at.
 */
function runner(h: Harness, p: number, m: number): () => { g: number; tick: number } {
  const { core, mem } = h;
  let executed = mem.pc(p, L.PC_EXECUTED);
  return () => {
    const tick = mem.p(p, L.P_SCHEDTICK);
    const g = core.findRunnable(p, m);
    if (g !== 0) {
      executed += 1;
      expect(mem.g(g, L.G_STATUS)).toBe(L.G_RUNNING);
      finish(h, p, g);
    }
    expect(mem.pc(p, L.PC_EXECUTED)).toBe(executed);
    expectClassesInPlace(h);
    return { g, tick };
  };
}

describe.each(BACKENDS)('ready by class (%s)', (backend) => {
  it('a high or low G goes on its class queue whatever p and next; normal Gs as before; the rest of G_PRIO kept', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1); // npidle 0: no ready below wakes anyone
    const { p } = r;
    const [n1, n2] = takeGs(h, 2, p);
    const [hi1, hi2] = classGs(h, 2, L.PRIO_HIGH, p);
    const [lo1, lo2] = classGs(h, 2, L.PRIO_LOW, p);
    const odd = takeGs(h, 1, p)[0];
    // A token and the continuation flag ride in the same word; a class byte above PRIO_LOW reads as low.
    const word = ((7 << L.G_TOKEN_SHIFT) | L.GF_CONT | L.PRIO_HIGH) >>> 0;
    mem.setG(hi1, L.G_PRIO, word);
    mem.setG(odd, L.G_PRIO, ((9 << L.G_TOKEN_SHIFT) | 0x7f) >>> 0);
    const spawned = mem.pc(p, L.PC_SPAWNED);
    const globPut = mem.sc(L.SC_GLOB_PUT);
    core.ready(p, n1, 0);
    core.ready(p, hi1, 1);
    core.ready(-1, hi2, 0);
    core.ready(p, lo1, 1);
    core.ready(-1, lo2, 0);
    core.ready(p, n2, 1);
    core.ready(p, odd, 0);
    expect(mem.ring(p)).toEqual([n1]);
    expect(mem.runnext(p)).toBe(n2);
    expect(mem.globalQueue()).toEqual([]);
    expect(mem.highQueue()).toEqual([hi1, hi2]);
    expect(mem.lowQueue()).toEqual([lo1, lo2, odd]);
    expect(mem.runqhSize).toBe(2);
    expect(mem.runqlSize).toBe(3);
    expect(mem.sc(L.SC_HIGH_PUT)).toBe(2);
    expect(mem.sc(L.SC_LOW_PUT)).toBe(3);
    expect(mem.sc(L.SC_GLOB_PUT)).toBe(globPut);
    expect(mem.pc(p, L.PC_SPAWNED)).toBe(spawned + 5); // the five readies with p >= 0
    expect(mem.g(hi1, L.G_PRIO)).toBe(word);
    for (const g of [n1, n2, hi1, hi2, lo1, lo2, odd]) expect(mem.g(g, L.G_STATUS)).toBe(L.G_RUNNABLE);
    expect(mem.lockWord).toBe(0);
  });

  it('FLAG_GLOBAL_ONLY sends normal Gs to the global queue and class Gs still to their own', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2, flags: L.FLAG_GLOBAL_ONLY });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const [n] = takeGs(h, 1);
    const [hi] = classGs(h, 1, L.PRIO_HIGH);
    const [lo] = classGs(h, 1, L.PRIO_LOW);
    core.ready(r.p, lo, 0);
    core.ready(r.p, n, 1);
    core.ready(r.p, hi, 0);
    expect(mem.globalQueue()).toEqual([n]);
    expect(mem.highQueue()).toEqual([hi]);
    expect(mem.lowQueue()).toEqual([lo]);
    expect(mem.ring(r.p)).toEqual([]);
  });

  it('a class G wakes an idle P like any ready, and the woken M runs it', async () => {
    for (const cls of [L.PRIO_HIGH, L.PRIO_LOW]) {
      const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
      const { core, mem } = h;
      startMs(h);
      const [g] = classGs(h, 1, cls);
      core.ready(-1, g, 0);
      const woken = wokenMs(h);
      expect(woken.length, `class ${cls}`).toBe(1);
      expect(mem.nmspinning).toBe(1);
      const p = wakeAndAcquire(h, woken[0]);
      expect(core.findRunnable(p, woken[0])).toBe(g);
      expect(mem.pc(p, cls === L.PRIO_HIGH ? L.PC_HIGH_HITS : L.PC_LOW_HITS)).toBe(1);
      expect(mem.runqhSize + mem.runqlSize).toBe(0);
    }
  });

  it('a high join continuation (ready with next) goes to the high queue, not runnext', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2, flags: L.FLAG_DEBUG });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    mem.setGClass(r.g, L.PRIO_HIGH);
    core.gSetStatus(r.g, L.G_RUNNING, L.G_WAITING);
    core.ready(r.p, r.g, 1);
    expect(mem.runnext(r.p)).toBe(0);
    expect(mem.highQueue()).toEqual([r.g]);
    expect(core.findRunnable(r.p, r.m)).toBe(r.g);
    expect(mem.pc(r.p, L.PC_HIGH_HITS)).toBe(1);
  });
});

describe.each(BACKENDS)('findRunnable order by class (%s)', (backend) => {
  it('high first (one at a time, before runnext, the ring and the global queue), then runnext, ring, global, low last', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(1);
    const run = runner(h, p, m);
    const [a1, a2, nx, gl] = takeGs(h, 4, p);
    const [h1, h2] = classGs(h, 2, L.PRIO_HIGH, p);
    const [l1, l2] = classGs(h, 2, L.PRIO_LOW, p);
    core.ready(p, l1, 0);
    core.ready(p, a1, 0);
    core.ready(p, h1, 0);
    core.ready(p, a2, 0);
    core.ready(p, nx, 1);
    core.ready(-1, gl, 0);
    core.ready(p, l2, 0);
    core.ready(p, h2, 1);
    expect(run()).toEqual({ g: h1, tick: 1 });
    // One high G only: the second stays queued, nothing moved to the ring.
    expect(mem.highQueue()).toEqual([h2]);
    expect(mem.ring(p)).toEqual([a1, a2]);
    expect(mem.runnext(p)).toBe(nx);
    expect(run()).toEqual({ g: h2, tick: 2 });
    expect(mem.pc(p, L.PC_HIGH_HITS)).toBe(2);
    expect(run()).toEqual({ g: nx, tick: 3 }); // runnext inherits the slice
    expect(run()).toEqual({ g: a1, tick: 3 });
    expect(run()).toEqual({ g: a2, tick: 4 });
    expect(run()).toEqual({ g: gl, tick: 5 });
    expect(mem.pc(p, L.PC_LOW_HITS)).toBe(0);
    expect(run()).toEqual({ g: l1, tick: 6 });
    expect(run()).toEqual({ g: l2, tick: 7 });
    expect(mem.pc(p, L.PC_LOW_HITS)).toBe(2);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(8); // every class G started a new slice
    expect(run().g).toBe(0);
    expect(mem.pc(p, L.PC_HIGH_HITS)).toBe(2);
    expect(mem.pc(p, L.PC_GLOBAL_HITS)).toBe(2); // startPs's G and gl
  });

  it('low work waits behind local work until tick % LOW_CHECK_TICKS == 0, then exactly one low G goes first', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    const run = runner(h, p, m);
    const lows = classGs(h, 2, L.PRIO_LOW);
    for (const g of lows) core.ready(p, g, 0);
    // One normal G per slice: the low Gs wait until the turn.
    let got = { g: 0, tick: 0 };
    for (let i = 0; got.g !== lows[0] && i < 2 * L.LOW_CHECK_TICKS; i++) {
      const [g] = takeGs(h, 1, p);
      core.ready(p, g, 0);
      got = run();
      if (got.g !== lows[0]) expect(got.g).toBe(g);
    }
    expect(got.g).toBe(lows[0]);
    expect(got.tick).toBe(L.LOW_CHECK_TICKS);
    expect(mem.pc(p, L.PC_LOW_HITS)).toBe(1);
    // The turn took one low G, ahead of the ring (the normal G readied for that slice still
    // waits there); the next slice is no turn: high, then the ring, and the other low G last.
    expect(mem.lowQueue()).toEqual([lows[1]]);
    const waiting = mem.ring(p);
    expect(waiting.length).toBe(1);
    const [hi] = classGs(h, 1, L.PRIO_HIGH, p);
    core.ready(p, hi, 0);
    expect(run()).toEqual({ g: hi, tick: L.LOW_CHECK_TICKS + 1 });
    expect(run().g).toBe(waiting[0]);
    expect(run().g).toBe(lows[1]);
    expect(mem.pc(p, L.PC_LOW_HITS)).toBe(2);
  });

  it('tick 0 is both turns: the global queue\'s one G wins, and the low turn waits for the next multiple', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    startMs(h);
    const [lo] = classGs(h, 1, L.PRIO_LOW);
    const [gn] = takeGs(h, 1);
    core.ready(-1, lo, 0); // wakes M1 with P0
    core.ready(-1, gn, 0);
    const [m] = wokenMs(h);
    const p = wakeAndAcquire(h, m);
    expect(mem.p(p, L.P_SCHEDTICK)).toBe(0);
    const run = runner(h, p, m);
    expect(run()).toEqual({ g: gn, tick: 0 });
    expect(run()).toEqual({ g: lo, tick: 1 }); // nothing else queued: low work
  });

  it('high work goes before both turns: at tick 0 the high G first, then the global queue, low last', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    startMs(h);
    const [lo] = classGs(h, 1, L.PRIO_LOW);
    const [hi] = classGs(h, 1, L.PRIO_HIGH);
    const [gn] = takeGs(h, 1);
    core.ready(-1, lo, 0); // wakes M1 with P0
    core.ready(-1, gn, 0);
    core.ready(-1, hi, 0);
    const [m] = wokenMs(h);
    const p = wakeAndAcquire(h, m);
    const run = runner(h, p, m);
    expect(run()).toEqual({ g: hi, tick: 0 });
    expect(run()).toEqual({ g: gn, tick: 1 });
    expect(run()).toEqual({ g: lo, tick: 2 });
    expect(mem.pc(p, L.PC_LOW_HITS)).toBe(1);
    expect(mem.pc(p, L.PC_HIGH_HITS)).toBe(1);
    expect(mem.pc(p, L.PC_HIGH_THROTTLES)).toBe(0);
  });

  it('a low G is taken after stealing found nothing, and also when the spin limit forbids stealing', async () => {
    // Stealing allowed: the normal G on the other P is stolen first, the low G only after a miss.
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    const [n] = takeGs(h, 1);
    queueLocal(h, a.p, [n]);
    const [lo] = classGs(h, 1, L.PRIO_LOW);
    core.ready(-1, lo, 0); // npidle 0: no wake-up
    expect(core.findRunnable(b.p, b.m)).toBe(n);
    expect(mem.pc(b.p, L.PC_STEAL_OPS)).toBe(1);
    finish(h, b.p, n);
    const misses = mem.pc(b.p, L.PC_STEAL_MISSES);
    expect(core.findRunnable(b.p, b.m)).toBe(lo);
    expect(mem.pc(b.p, L.PC_STEAL_MISSES)).toBe(misses + 1);
    expect(mem.pc(b.p, L.PC_LOW_HITS)).toBe(1);
    expect(mem.m(b.m, L.M_SPINNING)).toBe(0); // resetSpinning
    expect(mem.nmspinning).toBe(0);

    // Spin limit: another M spins (nmspinning 1, busy 2), so this one may not steal, yet runs low work.
    const h2 = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const [c] = startPs(h2, 1);
    h2.core.wakep();
    expect(h2.mem.nmspinning).toBe(1);
    const [lo2] = classGs(h2, 1, L.PRIO_LOW);
    h2.core.ready(-1, lo2, 0); // nmspinning 1: no wake-up
    const spins = h2.mem.pc(c.p, L.PC_SPINS);
    expect(h2.core.findRunnable(c.p, c.m)).toBe(lo2);
    expect(h2.mem.m(c.m, L.M_SPINNING)).toBe(0);
    expect(h2.mem.pc(c.p, L.PC_SPINS)).toBe(spins);
    expect(h2.mem.pc(c.p, L.PC_STEAL_MISSES)).toBe(0);
    expect(h2.mem.pc(c.p, L.PC_LOW_HITS)).toBe(1);
    expect(h2.mem.nmspinning).toBe(1);
  });
});

describe.each(BACKENDS)('stealing by class (%s)', (backend) => {
  it('a thief with an empty ring takes the high G before it steals from a victim\'s normal ring', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    const gs = takeGs(h, 6);
    queueLocal(h, a.p, gs);
    const [hi] = classGs(h, 1, L.PRIO_HIGH, a.p);
    core.ready(a.p, hi, 0); // readied on the victim's P, yet not on its ring
    expect(mem.ring(a.p)).toEqual(gs);
    expect(core.findRunnable(b.p, b.m)).toBe(hi);
    expect(mem.pc(b.p, L.PC_HIGH_HITS)).toBe(1);
    expect(mem.pc(b.p, L.PC_STEAL_OPS)).toBe(0);
    expect(mem.pc(b.p, L.PC_SPINS)).toBe(0);
    expect(mem.ring(a.p)).toEqual(gs);
    expect(mem.ring(b.p)).toEqual([]);
    finish(h, b.p, hi);
    // Then the ordinary steal: ceil half of the victim's ring, the newest of the batch runs.
    expect(core.findRunnable(b.p, b.m)).toBe(gs[2]);
    expect(mem.ring(b.p)).toEqual(gs.slice(0, 2));
    expect(mem.ring(a.p)).toEqual(gs.slice(3));
    expect(mem.pc(b.p, L.PC_STEAL_OPS)).toBe(1);
    expectClassesInPlace(h);
  });

  it('the victim\'s own M also serves the high G before its ring', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a] = startPs(h, 2);
    const gs = takeGs(h, 3);
    queueLocal(h, a.p, gs);
    const [hi] = classGs(h, 1, L.PRIO_HIGH);
    core.ready(-1, hi, 0);
    expect(core.findRunnable(a.p, a.m)).toBe(hi);
    expect(mem.ring(a.p)).toEqual(gs);
  });
});

/** P p's high budget as the core keeps it (DESIGN.md "High work's budget"). */
function budget(h: Harness, p: number): { period: number; used: number; state: number } {
  const a = h.mem.pAddr(p);
  return { period: h.mem.f64(a + L.P_HIGH_PERIOD), used: h.mem.f64(a + L.P_HIGH_USED), state: h.mem.u32(a + L.P_HIGH_STATE) };
}

interface Ran { g: number; cls: number; start: number; end: number }

/**
 * M m with P p, run as the runtime runs it (bindings/runtime/threads/m.ts, execute): findRunnable, else
 * stopM; the G takes dur(cls) ms of a virtual clock; every high G, and every G while the last
 * charge said the P is throttled, is charged with chargeTime. Returns what ran, or null when
 * nothing was found (p is parked then).
 */
function timedM(h: Harness, p: number, m: number, clock: { t: number }, dur: (cls: number) => number): () => Ran | null {
  const { core, mem } = h;
  let charging = true;
  return () => {
    let g = core.findRunnable(p, m);
    if (g === 0) {
      const r = core.stopM(p, m);
      if (r <= 0) return null;
      g = r;
    }
    const cls = mem.gClass(g);
    const start = clock.t;
    clock.t += dur(cls);
    if (charging || cls === L.PRIO_HIGH) charging = core.chargeTime(p, cls, start, clock.t) !== 0;
    finish(h, p, g);
    return { g, cls, start, end: clock.t };
  };
}

/** Runs `next` until it finds nothing; what ran, in order. */
function drain(next: () => Ran | null): Ran[] {
  const out: Ran[] = [];
  for (let r = next(); r !== null; r = next()) out.push(r);
  return out;
}

describe.each(BACKENDS)('high work\'s budget (%s)', (backend) => {
  it('chargeTime: high run time charged, HIGH_RUNTIME_MS paid back per period passed (never below 0), throttled from HIGH_RUNTIME_MS', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core } = h;
    const [{ p }] = startPs(h, 1);
    const B = (period: number, used: number, state: number): unknown => ({ period, used, state });
    expect(budget(h, p)).toEqual(B(0, 0, L.HIGH_OPEN));
    expect(core.chargeTime(p, L.PRIO_HIGH, 0, 95)).toBe(1); // 95 ms of high work in period 0
    expect(budget(h, p)).toEqual(B(0, 95, L.HIGH_THROTTLED));
    expect(core.chargeTime(p, L.PRIO_NORMAL, 95, 99)).toBe(1); // other work is not charged
    expect(budget(h, p)).toEqual(B(0, 95, L.HIGH_THROTTLED));
    expect(core.chargeTime(p, L.PRIO_NORMAL, 99, 101)).toBe(0); // period 100 began: 95 paid back
    expect(budget(h, p)).toEqual(B(100, 0, L.HIGH_OPEN));
    expect(core.chargeTime(p, L.PRIO_HIGH, 101, 300)).toBe(0); // 199 ms, two periods passed: 199 - 190
    expect(budget(h, p)).toEqual(B(300, 9, L.HIGH_OPEN));
    expect(core.chargeTime(p, L.PRIO_HIGH, 300, 490)).toBe(1); // the overrun carries: 9 + 190 - 95
    expect(budget(h, p)).toEqual(B(400, 104, L.HIGH_THROTTLED));
    expect(core.chargeTime(p, L.PRIO_LOW, 490, 500)).toBe(0);
    expect(budget(h, p)).toEqual(B(500, 9, L.HIGH_OPEN));
    expect(core.chargeTime(p, L.PRIO_LOW, 500, 1000.5)).toBe(0); // five periods pay back 475: floor 0
    expect(budget(h, p)).toEqual(B(1000, 0, L.HIGH_OPEN));
    expect(core.chargeTime(p, 0x42, 1000, 1000.25)).toBe(0); // a class byte above PRIO_LOW is low: not charged
    expect(core.chargeTime(p, L.PRIO_HIGH, 1000.25, 1095.5)).toBe(1);
    expect(budget(h, p)).toEqual(B(1000, 95.25, L.HIGH_THROTTLED));
  });

  it('strict: a burst of high work within the budget runs before all queued normal and low work, Go\'s 1-in-61 turn and the low turn included', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    const normals = takeGs(h, 8);
    for (const g of normals.slice(0, 4)) core.ready(-1, g, 0); // the global queue
    queueLocal(h, p, normals.slice(4)); // the ring
    const lows = classGs(h, 2, L.PRIO_LOW);
    for (const g of lows) core.ready(-1, g, 0);
    const highs = classGs(h, 300, L.PRIO_HIGH); // 300 x 0.25 ms = 75 ms, within HIGH_RUNTIME_MS
    for (const g of highs) core.ready(-1, g, 0);
    const clock = { t: 0 };
    const ran = drain(timedM(h, p, m, clock, (cls) => (cls === L.PRIO_HIGH ? 0.25 : 1)));
    expect(ran.slice(0, 300).map((x) => x.g)).toEqual(highs); // through ticks 61, 64, 122, 128, ...
    expect(new Set(ran.slice(300).map((x) => x.g))).toEqual(new Set([...normals, ...lows]));
    expect(ran.length).toBe(310);
    expect(mem.pc(p, L.PC_HIGH_THROTTLES)).toBe(0);
    expect(mem.pc(p, L.PC_HIGH_HITS)).toBe(300);
    expect(mem.p(p, L.P_SCHEDTICK)).toBeGreaterThan(2 * L.LOW_CHECK_TICKS);
  });

  it('a flood of high work takes HIGH_RUNTIME_MS of each HIGH_PERIOD_MS; normal work queued behind it runs in the rest', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    const normals = takeGs(h, 30);
    for (const g of normals) core.ready(-1, g, 0);
    const highs = classGs(h, 400, L.PRIO_HIGH);
    for (const g of highs) core.ready(-1, g, 0);
    const clock = { t: 0 };
    const ran = drain(timedM(h, p, m, clock, (cls) => (cls === L.PRIO_HIGH ? 1 : 2)));
    // Conservation: every G ran once.
    expect(ran.length).toBe(430);
    expect(new Set(ran.map((x) => x.g)).size).toBe(430);
    const lastHigh = ran.map((x) => x.cls).lastIndexOf(L.PRIO_HIGH);
    const flood = ran.slice(0, lastHigh + 1); // while high work was queued
    expect(flood[95]).toEqual({ g: normals[0], cls: L.PRIO_NORMAL, start: 95, end: 97 }); // high work had 95 ms first
    const periods = Math.floor(flood[flood.length - 1].start / L.HIGH_PERIOD_MS);
    expect(periods).toBeGreaterThanOrEqual(4);
    for (let k = 0; k < periods; k++) {
      const inK = flood.filter((x) => Math.floor(x.start / L.HIGH_PERIOD_MS) === k);
      const high = inK.filter((x) => x.cls === L.PRIO_HIGH).reduce((a, x) => a + (x.end - x.start), 0);
      const other = inK.filter((x) => x.cls !== L.PRIO_HIGH);
      expect(high, `period ${k}: high ms`).toBeLessThanOrEqual(L.HIGH_RUNTIME_MS + 1); // one G may overrun
      expect(other.length, `period ${k}: normal Gs`).toBeGreaterThanOrEqual(1);
    }
    // Each normal G in the flood ran because the budget was spent, one throttled look each.
    const normalsInFlood = flood.filter((x) => x.cls === L.PRIO_NORMAL).length;
    expect(mem.pc(p, L.PC_HIGH_THROTTLES)).toBe(normalsInFlood);
    expect(mem.pc(p, L.PC_HIGH_HITS)).toBe(400);
  });

  it('low work progresses under a flood of high work: a P whose budget is spent runs it', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    const lows = classGs(h, 5, L.PRIO_LOW);
    for (const g of lows) core.ready(-1, g, 0);
    const highs = classGs(h, 300, L.PRIO_HIGH);
    for (const g of highs) core.ready(-1, g, 0);
    const clock = { t: 0 };
    const ran = drain(timedM(h, p, m, clock, (cls) => (cls === L.PRIO_HIGH ? 1 : 3)));
    const lowRuns = ran.filter((x) => x.cls === L.PRIO_LOW);
    expect(lowRuns.map((x) => x.g)).toEqual(lows);
    expect(lowRuns[0].start).toBe(L.HIGH_RUNTIME_MS);
    const lastHigh = ran.filter((x) => x.cls === L.PRIO_HIGH).pop()!;
    expect(lowRuns[4].end).toBeLessThan(lastHigh.start); // all five ran while high work was still queued
  });

  it('a P whose budget is spent and that finds nothing else takes high work without charging it (HIGH_FREE), in findRunnable and in stopM', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    const [h1, h2, h3] = classGs(h, 3, L.PRIO_HIGH);
    core.ready(-1, h1, 0);
    expect(core.findRunnable(p, m)).toBe(h1);
    expect(core.chargeTime(p, L.PRIO_HIGH, 0, 95)).toBe(1);
    finish(h, p, h1);
    core.ready(-1, h2, 0);
    expect(core.findRunnable(p, m)).toBe(h2); // throttled, but nothing else is queued
    expect(mem.pc(p, L.PC_HIGH_THROTTLES)).toBe(1);
    expect(budget(h, p).state).toBe(L.HIGH_FREE);
    expect(core.chargeTime(p, L.PRIO_HIGH, 95, 99)).toBe(1);
    expect(budget(h, p)).toEqual({ period: 0, used: 95, state: L.HIGH_THROTTLED }); // 4 ms not charged
    finish(h, p, h2);
    // stopM: findRunnable found nothing, then high work came.
    expect(core.findRunnable(p, m)).toBe(0);
    core.ready(-1, h3, 0); // npidle 0: no wake-up
    expect(core.stopM(p, m)).toBe(h3);
    expect(budget(h, p).state).toBe(L.HIGH_FREE);
    expect(core.chargeTime(p, L.PRIO_HIGH, 99, 99.5)).toBe(1);
    expect(budget(h, p).used).toBe(95);
    expect(mem.pc(p, L.PC_HIGH_HITS)).toBe(3);
  });

  it('acquireP opens a P\'s budget (its new M has not been timing); the charged time stays and decides at the next charge', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core } = h;
    const [r] = startPs(h, 1);
    const { p, m } = r;
    finish(h, p, r.g);
    expect(core.chargeTime(p, L.PRIO_HIGH, 0, 96)).toBe(1);
    expect(core.findRunnable(p, m)).toBe(0);
    expect(core.stopM(p, m)).toBe(Stop.Sleep);
    const [n] = takeGs(h, 1);
    const [hi] = classGs(h, 1, L.PRIO_HIGH);
    core.ready(-1, n, 0); // wakes m with p
    core.ready(-1, hi, 0);
    expect(wakeAndAcquire(h, m)).toBe(p);
    expect(budget(h, p)).toEqual({ period: 0, used: 96, state: L.HIGH_OPEN });
    expect(core.findRunnable(p, m)).toBe(hi); // open: high work first
    expect(core.chargeTime(p, L.PRIO_HIGH, 97, 98)).toBe(1);
    finish(h, p, hi);
    const [hi2] = classGs(h, 1, L.PRIO_HIGH);
    core.ready(-1, hi2, 0);
    expect(core.findRunnable(p, m)).toBe(n); // throttled again: the normal G first
  });
});

describe.each(BACKENDS)('stopM takes class work (%s)', (backend) => {
  it('a spinning M takes a high G under the lock instead of parking: the G comes back, p kept', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const [a] = startPs(h, 2);
    expect(core.findRunnable(a.p, a.m)).toBe(0); // spinning, nothing anywhere
    const [hi] = classGs(h, 1, L.PRIO_HIGH);
    core.ready(-1, hi, 0); // nmspinning 1: no wake-up
    expect(wokenMs(h)).toEqual([]);
    const parks = mem.pc(a.p, L.PC_PARKS);
    expect(core.stopM(a.p, a.m)).toBe(hi);
    expect(mem.g(hi, L.G_STATUS)).toBe(L.G_RUNNING);
    expect(mem.p(a.p, L.P_STATUS)).toBe(L.P_RUNNING);
    expect(mem.p(a.p, L.P_M)).toBe(a.m + 1);
    expect(mem.pc(a.p, L.PC_HIGH_HITS)).toBe(1);
    expect(mem.pc(a.p, L.PC_PARKS)).toBe(parks);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(0);
    expect(wokenMs(h)).toEqual([]); // resetSpinning: no more work in sight, nobody woken
    expect(mem.midle()).not.toContain(a.m);
  });

  it('under the lock: the global queue first, then high, then low, one G each; parks only when all are empty', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [, b] = startPs(h, 2);
    finish(h, b.p, b.g);
    const [lo] = classGs(h, 1, L.PRIO_LOW);
    const [hi1, hi2] = classGs(h, 2, L.PRIO_HIGH);
    const [gn] = takeGs(h, 1);
    core.ready(-1, lo, 0); // npidle 0: no wake-ups
    core.ready(-1, hi1, 0);
    core.ready(-1, gn, 0);
    core.ready(-1, hi2, 0);
    const parks = mem.pc(b.p, L.PC_PARKS);
    const globalHits = mem.pc(b.p, L.PC_GLOBAL_HITS);
    const order: number[] = [];
    for (let r = core.stopM(b.p, b.m); r > 0; r = core.stopM(b.p, b.m)) {
      expect(mem.p(b.p, L.P_STATUS)).toBe(L.P_RUNNING);
      order.push(r);
      finish(h, b.p, r);
    }
    expect(order).toEqual([gn, hi1, hi2, lo]);
    expect(mem.pc(b.p, L.PC_GLOBAL_HITS)).toBe(globalHits + 1);
    expect(mem.pc(b.p, L.PC_HIGH_HITS)).toBe(2);
    expect(mem.pc(b.p, L.PC_LOW_HITS)).toBe(1);
    expect(mem.pc(b.p, L.PC_PARKS)).toBe(parks + 1); // the last stopM parked
    expect(mem.p(b.p, L.P_STATUS)).toBe(L.P_IDLE);
    expect(mem.midle()).toContain(b.m);
    expect(mem.allQueued()).toEqual([]);
    expect(mem.lockWord).toBe(0);
  });

  it('a parked P is woken for class work readied afterwards (published under the lock before ready reads npidle)', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    finish(h, a.p, a.g);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    expect(core.stopM(a.p, a.m)).toBe(Stop.Sleep);
    const [lo] = classGs(h, 1, L.PRIO_LOW);
    core.ready(-1, lo, 0);
    expect(mem.m(a.m, L.M_PARK) & L.PARK_P).toBe(L.PARK_P);
    expect(wakeAndAcquire(h, a.m)).toBe(a.p);
    expect(core.findRunnable(a.p, a.m)).toBe(lo);
  });
});

describe.each(BACKENDS)('mTake (%s)', (backend) => {
  it('pops idle Ms in list order under the lock, -1 when none; mPut puts one back', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 4 });
    const { core, mem } = h;
    expect(core.mTake()).toBe(-1); // no M started yet
    startMs(h);
    expect(mem.midle()).toEqual([3, 2, 1]);
    const acq = mem.sc(L.SC_LOCK_ACQ);
    expect(core.mTake()).toBe(3);
    expect(mem.midle()).toEqual([2, 1]);
    expect(mem.nmidle).toBe(2);
    expect(mem.m(3, L.M_LINK)).toBe(0);
    expect(mem.m(3, L.M_NEXTP)).toBe(0); // nothing handed over: the caller does that
    expect(mem.m(3, L.M_PARK)).toBe(0);
    expect(mem.lockWord).toBe(0);
    expect(mem.sc(L.SC_LOCK_ACQ)).toBe(acq + 1);
    expect(core.mTake()).toBe(2);
    expect(core.mTake()).toBe(1);
    expect(core.mTake()).toBe(-1);
    expect(mem.nmidle).toBe(0);
    expect(mem.lockWord).toBe(0);
    core.mPut(2);
    expect(mem.midle()).toEqual([2]);
    expect(core.mTake()).toBe(2);
    // The Ps are untouched.
    expect(mem.npidle).toBe(2);
  });

  it('with every idle M taken, wakep cannot wake the idle P: needspinning set, the work stays queued', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    startMs(h);
    expect(core.mTake()).toBe(2);
    expect(core.mTake()).toBe(1);
    const [hi] = classGs(h, 1, L.PRIO_HIGH);
    core.ready(-1, hi, 0);
    expect(wokenMs(h)).toEqual([]);
    expect(mem.nmspinning).toBe(0);
    expect(mem.needspinning).toBe(1);
    expect(mem.npidle).toBe(2);
    expect(mem.highQueue()).toEqual([hi]);
    // The taker gives an M back: the next wakep uses it.
    core.mPut(1);
    core.wakep();
    expect(wokenMs(h)).toEqual([1]);
    const p = wakeAndAcquire(h, 1);
    expect(core.findRunnable(p, 1)).toBe(hi);
  });
});
