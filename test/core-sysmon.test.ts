// The monitor's calls into the core, single-threaded, for both backends (DESIGN.md "sysmon and
// handoff"): pReserve takes idle Ps out of circulation, handoff lends one to an idle M counted
// spinning, pRetire puts an idle P back, and pGiveBack has a busy M return its own P, its queue
// going to the global queue. The test thread plays every M, as in core-sched.test.ts.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { BACKENDS, freshCore, makeRunnable, startPs, takeGs, wakeAndAcquire, wokenMs } from './helpers/core.js';

/** Reserved Ps, top first. */
function reserve(mem: { u32(a: number): number; p(p: number, off: number): number }): number[] {
  const out: number[] = [];
  for (let x = mem.u32(L.S_RT_PRESERVE); x !== 0; x = mem.p(x - 1, L.P_LINK)) out.push(x - 1);
  return out;
}

describe.each(BACKENDS)('spare-P reserve (%s)', (backend) => {
  it('pReserve, handoff, pRetire: a reserved P is off every list until lent, and comes back idle', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    expect(core.pReserve(2)).toBe(1);
    expect(core.pReserve(2)).toBe(0); // not idle any more
    expect(reserve(mem)).toEqual([2]);
    expect(mem.u32(L.S_RT_NPRESERVE)).toBe(1);
    expect(mem.pidle()).not.toContain(2);
    expect(mem.npidle).toBe(2);
    const [r] = startPs(h, 1); // one P running, one idle, one reserved
    // handoff: the reserved P goes to an idle M, counted spinning, and that M is woken.
    expect(core.handoff()).toBe(2);
    expect(reserve(mem)).toEqual([]);
    expect(mem.u32(L.S_RT_HANDOFFS)).toBe(1);
    const [m2] = wokenMs(h);
    expect(mem.m(m2, L.M_SPINNING)).toBe(1);
    expect(mem.nmspinning).toBe(1);
    expect(wakeAndAcquire(h, m2)).toBe(2);
    expect(core.findRunnable(2, m2)).toBe(0);
    expect(core.stopM(2, m2)).toBe(0); // Stop.Sleep: the lent P is now an ordinary idle P
    expect(mem.nmspinning).toBe(0);
    expect(mem.pidle()).toContain(2);
    // pRetire: some idle P goes back to the reserve (its M stays idle).
    const back = core.pRetire();
    expect(back).toBeGreaterThanOrEqual(0);
    expect(back).not.toBe(r.p);
    expect(reserve(mem)).toEqual([back]);
    expect(mem.u32(L.S_RT_RETIRES)).toBe(1);
    expect(mem.npidle).toBe(1);
  });

  it('pGiveBack: the M\'s runnext and ring go to the global queue, its P to the reserve, the M to the idle list', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const rs = startPs(h, 3); // every P running: none goes idle
    const r = rs[1];
    const gs = makeRunnable(h, takeGs(h, 5, r.p));
    for (const g of gs.slice(0, 4)) core.runqPut(r.p, g, 0);
    core.runqPut(r.p, gs[4], 1); // runnext
    const idleMs = mem.midle().length;
    expect(core.pGiveBack(r.p, r.m)).toBe(5);
    expect(mem.globalQueue()).toEqual([gs[4], ...gs.slice(0, 4)]); // runnext first, then the ring in order
    expect(mem.ring(r.p)).toEqual([]);
    expect(mem.runnext(r.p)).toBe(0);
    expect(mem.p(r.p, L.P_STATUS)).toBe(L.P_IDLE);
    expect(mem.p(r.p, L.P_M)).toBe(0);
    expect(reserve(mem)).toEqual([r.p]);
    expect(mem.pidle()).not.toContain(r.p);
    expect(mem.midle()).toContain(r.m);
    expect(mem.midle().length).toBe(idleMs + 1);
    expect(mem.u32(L.S_RT_RETIRES)).toBe(1);
    // No P is idle: nobody was woken for the moved Gs; the running Ps take them from the global queue.
    expect(wokenMs(h)).toEqual([]);
    const other = rs[0];
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) seen.push(core.findRunnable(other.p, other.m));
    expect(seen.sort((a, b) => a - b)).toEqual([...gs].sort((a, b) => a - b));
  });

  it('pGiveBack with an idle P wakes an M for the moved Gs; an empty queue moves nothing', async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2); // P2 idle
    expect(core.pGiveBack(b.p, b.m)).toBe(0);
    expect(wokenMs(h)).toEqual([]);
    const gs = makeRunnable(h, takeGs(h, 2, a.p));
    for (const g of gs) core.runqPut(a.p, g, 0);
    expect(core.pGiveBack(a.p, a.m)).toBe(2);
    expect(reserve(mem).sort()).toEqual([a.p, b.p].sort());
    const [w] = wokenMs(h);
    expect(w).toBeDefined();
    const p = wakeAndAcquire(h, w);
    expect(reserve(mem)).not.toContain(p);
    expect(core.findRunnable(p, w)).toBe(gs[0]);
  });
});
