// The monitor lends a spare for tasks queued behind a stuck P, not for its forks (DESIGN.md
// "sysmon and handoff"): a fork waits on its forker's deque only until the forker joins it,
// and the monitor lends only while no P is idle, so a spare lent for forks could only put one
// more thread than procs on the CPUs (a Mandelbrot whose slowest leaves take about 10 ms ran on
// 3 threads over 2 cores in half of its runs). Tasks in a ring or runnext may wait for the
// whole long task: those still get the loan. Driven in-process, on both cores: the monitor's
// check over a memory where a running M has run one G for longer than handoffAfterMs, the other
// P is busy, a spare is in the reserve and an M is idle to take it.
import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { createViews } from '../dist/bindings/codec/views.js';
import { Sysmon } from '../dist/bindings/runtime/threads/sysmon.js';
import { mAddr } from '../dist/bindings/runtime/memory/mblock.js';
import { BACKENDS, freshCore, makeRunnable, startPs, takeGs } from './helpers/core.js';

describe.each(BACKENDS)('sysmon: what counts as work waiting behind a stuck P (%s)', (backend) => {
  /** procs 2 and a spare (P2 reserved), both other Ps running, idle Ms left; the first running
   *  M stuck in its G for 20 ms by the monitor's clock. */
  const setup = async () => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, memory } = h;
    expect(core.pReserve(2)).toBe(1);
    const [r] = startPs(h, 2);
    const v = createViews(memory);
    v.u32[(mAddr(v, r.m) + L.MR_CURG) >>> 2] = r.g; // the runtime's mark: r.m runs r.g
    let now = 0;
    const mon = new Sysmon(v, core, 3, 1, 10, () => now);
    expect(mon.check()).toBe(null); // first look: nobody stuck yet
    now = 20;
    return { h, v, mon, r };
  };

  it('forks on the stuck P\'s deque get no spare', async () => {
    const { h, v, mon, r } = await setup();
    expect(h.core.forkNew(r.p, r.m, 0, 0, 1, 7, 0, 0, 0, 0, 0, 0)).toBeGreaterThan(0);
    expect(h.core.forkLen(r.p)).toBe(1);
    expect(mon.check()).toBe(null);
    expect(v.i32[L.S_RT_NPRESERVE >>> 2], 'the spare stays in the reserve').toBe(1);
  });

  it('a task in the stuck P\'s ring gets the spare', async () => {
    const { h, v, mon, r } = await setup();
    const [g] = makeRunnable(h, takeGs(h, 1, r.p));
    h.core.runqPut(r.p, g, 0);
    expect(mon.check()).toBe('lent');
    expect(v.i32[L.S_RT_NPRESERVE >>> 2]).toBe(0);
  });
});

describe.each(BACKENDS)('sysmon: a P waiting for a CPU is not stuck (%s)', (backend) => {
  /** As above, with a task queued behind the stuck P, and the monitor told the process has
   *  `ncpu` CPUs: 2 Ps held. */
  const setup = async (ncpu: number) => {
    const h = await freshCore(backend, { nprocs: 3, maxMs: 4 });
    const { core, memory } = h;
    expect(core.pReserve(2)).toBe(1);
    const [r] = startPs(h, 2);
    const v = createViews(memory);
    v.u32[(mAddr(v, r.m) + L.MR_CURG) >>> 2] = r.g;
    const [g] = makeRunnable(h, takeGs(h, 1, r.p));
    core.runqPut(r.p, g, 0);
    let now = 0;
    const mon = new Sysmon(v, core, 3, 1, 10, () => now, ncpu);
    expect(mon.check()).toBe(null);
    now = 20;
    return { v, mon };
  };

  it('one CPU, two Ps held: the silent one may only be descheduled, no loan', async () => {
    const { v, mon } = await setup(1);
    expect(mon.check()).toBe(null);
    expect(v.i32[L.S_RT_NPRESERVE >>> 2], 'the spare stays in the reserve').toBe(1);
  });

  it('two CPUs, two Ps held: the silent one is stuck, the spare is lent and kept', async () => {
    const { v, mon } = await setup(2);
    expect(mon.check()).toBe('lent');
    expect(v.i32[L.S_RT_NPRESERVE >>> 2]).toBe(0);
    // The loan puts a third thread on two CPUs on purpose: the next look keeps it.
    expect(mon.check()).toBe(null);
    expect(v.i32[L.S_RT_NPRESERVE >>> 2]).toBe(0);
  });
});
