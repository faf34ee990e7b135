// Threads that come and go, in the core, single-threaded, for both backends (DESIGN.md "Threads
// that come and go"): pDetach takes idle Ps out for threads not started yet, mStart brings one
// back with each thread, and mExit lets an idle M leave while every idle P keeps an idle M. The
// test thread plays every M, as in core-sched.test.ts.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { BACKENDS, freshCore, startPs, takeGs, wakeAndAcquire, wokenMs } from './helpers/core.js';

/** Ps on the no-M list, top first. */
function pnom(mem: { u32(a: number): number; p(p: number, off: number): number }): number[] {
  const out: number[] = [];
  for (let x = mem.u32(L.S_RT_PNOM); x !== 0; x = mem.p(x - 1, L.P_LINK)) out.push(x - 1);
  return out;
}

describe.each(BACKENDS)('Ms that come and go (%s)', (backend) => {
  it('start-up with fewer threads than Ps: each mStart takes a detached P, spinning, as wakep hands one over', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    for (let p = 0; p < 4; p++) expect(core.pDetach(p)).toBe(1);
    expect(core.pDetach(2)).toBe(0); // not idle any more
    expect(mem.npidle).toBe(0);
    expect(mem.u32(L.S_RT_NPNOM)).toBe(4);
    expect(core.mStart(1)).toBe(3); // LIFO: the last detached first
    expect(mem.m(1, L.M_NEXTP)).toBe(4);
    expect(mem.m(1, L.M_SPINNING)).toBe(1);
    expect(mem.nmspinning).toBe(1);
    expect(mem.midle()).toEqual([]); // taken: it holds a P in a moment
    expect(mem.u32(L.S_RT_NMLIVE)).toBe(1);
    // The new M acquires its P and finds the work it was started for on the global queue.
    const [g] = takeGs(h, 1);
    core.globrunqPut(g);
    expect(wakeAndAcquire(h, 1)).toBe(3);
    expect(core.findRunnable(3, 1)).toBe(g);
    expect(mem.nmspinning).toBe(0);
    // Nothing found: the M parks with its P like any other, and the pair is idle together.
    expect(core.mStart(2)).toBe(2);
    expect(wakeAndAcquire(h, 2)).toBe(2);
    expect(core.findRunnable(2, 2)).toBe(0);
    expect(core.stopM(2, 2)).toBe(L.STOP_SLEEP);
    expect(mem.pidle()).toEqual([2]);
    expect(mem.midle()).toEqual([2]);
    expect(pnom(mem)).toEqual([1, 0]);
    expect(mem.nmspinning).toBe(0);
  });

  it('mExit: an idle M leaves down to the minimum, and a P it leaves without an M goes off the idle list', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    for (let m = 1; m < 4; m++) expect(core.mStart(m)).toBe(L.NONE); // nothing detached: every P idle already
    expect(mem.u32(L.S_RT_NMLIVE)).toBe(3);
    expect(mem.npidle).toBe(3);
    expect(core.mExit(3, 1)).toBe(1);
    expect(mem.midle().sort()).toEqual([1, 2]);
    expect(mem.npidle).toBe(2); // 3 idle Ps, 2 idle Ms: one P went to the no-M list
    expect(pnom(mem).length).toBe(1);
    expect(core.mExit(3, 1)).toBe(0); // gone already: not on the idle list
    expect(core.mExit(2, 1)).toBe(1);
    expect(core.mExit(1, 1)).toBe(0); // the minimum: one M stays
    expect(mem.u32(L.S_RT_NMLIVE)).toBe(1);
    expect(mem.npidle).toBe(1);
    expect(mem.nmidle).toBe(1);
    expect(pnom(mem).length).toBe(2);
    // A new thread in an exited slot takes a P back.
    const p = core.mStart(3);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(wakeAndAcquire(h, 3)).toBe(p);
    expect(core.findRunnable(p, 3)).toBe(0);
    expect(core.stopM(p, 3)).toBe(L.STOP_SLEEP);
    expect(mem.npidle).toBe(2);
    expect(mem.u32(L.S_RT_NMLIVE)).toBe(2);
  });

  it('mExit leaves an M that wakep took since it fell asleep alone: its P is on its way', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    core.mStart(1);
    core.mStart(2);
    const [g] = takeGs(h, 1);
    core.ready(-1, g, 0); // wakep takes an idle M off the list and hands it a P
    const [m] = wokenMs(h);
    expect(core.mExit(m, 0)).toBe(0);
    expect(mem.u32(L.S_RT_NMLIVE)).toBe(2);
    const p = wakeAndAcquire(h, m);
    expect(core.findRunnable(p, m)).toBe(g);
  });

  it('with spare Ms (more idle Ms than idle Ps) an exit takes no P off the idle list', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    expect(core.pReserve(2)).toBe(1); // a spare P: in the reserve, its M idle
    for (let m = 1; m < 4; m++) core.mStart(m);
    expect(mem.npidle).toBe(2);
    expect(core.mExit(1, 0)).toBe(1);
    expect(mem.npidle).toBe(2); // 2 idle Ps, 2 idle Ms
    expect(pnom(mem)).toEqual([]);
    expect(core.mExit(2, 0)).toBe(1);
    expect(mem.npidle).toBe(1);
    expect(pnom(mem).length).toBe(1);
  });

  it('a P running a G is never detached, and mStart keeps every running P where it is', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    expect(core.pDetach(r.p)).toBe(0);
    expect(mem.p(r.p, L.P_STATUS)).toBe(L.P_RUNNING);
  });
});

/** Ps out of service, top first. */
function pdead(mem: { u32(a: number): number; p(p: number, off: number): number }): number[] {
  const out: number[] = [];
  for (let x = mem.u32(L.S_RT_PDEAD); x !== 0; x = mem.p(x - 1, L.P_LINK)) out.push(x - 1);
  return out;
}

describe.each(BACKENDS)('procresize and pStop (%s)', (backend) => {
  it('a shrink takes Ps without an M, then idle Ps, and asks for the rest; a grow brings them back', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    const rs = startPs(h, 2); // Ps of two Ms running; two idle with their Ms
    const idle = mem.pidle();
    expect(core.pDetach(idle[0])).toBe(1); // one idle P without an M (as an M's exit leaves it)
    expect(mem.u32(L.S_RT_NPNOM)).toBe(1);
    expect(core.procresize(1, 4)).toBe(1); // 2 not running go at once; one of the running ones is asked for
    expect(mem.u32(L.S_RT_SHRINK)).toBe(1);
    expect(mem.u32(L.S_RT_NPDEAD)).toBe(2);
    expect(mem.u32(L.S_RT_NPNOM)).toBe(0);
    expect(mem.npidle).toBe(0);
    // The first M to look gives its P: its queue goes to the global queue.
    const [g] = takeGs(h, 1, rs[0].p);
    core.runqPut(rs[0].p, g, 0);
    expect(core.pStop(rs[0].p, rs[0].m)).toBe(1);
    expect(mem.globalQueue()).toEqual([g]);
    expect(core.pStop(rs[1].p, rs[1].m)).toBe(L.NONE); // no more asked: it keeps its P
    expect(mem.u32(L.S_RT_SHRINK)).toBe(0);
    expect(pdead(mem).sort()).toEqual([0, 1, 2, 3].filter((p) => p !== rs[1].p));
    expect(mem.u32(L.S_RT_NPDEAD)).toBe(3);
    expect(core.procresize(1, 4)).toBe(0); // done: one P in service
    // Grow to 3: each P goes idle with an idle M for it, or without an M.
    expect(core.procresize(3, 4)).toBe(0);
    expect(mem.u32(L.S_RT_NPDEAD)).toBe(1);
    expect(mem.npidle).toBeLessThanOrEqual(mem.nmidle);
    expect(mem.npidle + mem.u32(L.S_RT_NPNOM)).toBe(2);
  });

  it('a grow withdraws a shrink not yet taken, and counts a give-back under way as out of service', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const rs = startPs(h, 2);
    expect(core.procresize(1, 2)).toBe(1);
    expect(core.procresize(2, 2)).toBe(0); // withdrawn before any M looked
    expect(mem.u32(L.S_RT_SHRINK)).toBe(0);
    expect(core.pStop(rs[0].p, rs[0].m)).toBe(L.NONE);
    expect(core.procresize(1, 2)).toBe(1);
    expect(core.pStop(rs[1].p, rs[1].m)).toBe(0);
    expect(core.procresize(1, 2)).toBe(0);
    expect(core.procresize(2, 2)).toBe(0);
    expect(mem.npidle).toBe(1); // back with the idle M that gave it
  });
});
