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
