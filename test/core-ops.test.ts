// The core's operation counters and the spin limit's count of busy Ps, for both backends
// (DESIGN.md "Scaling", "findRunnable"). The counters are what bench/scale.mjs prints per task;
// these tests pin what each one counts where the count is exact: a failed steal round reads every
// other P once per pass, a spinner's recheck after it parks reads every P, a joiner's help looks
// at its thief and then at every other P. The test thread plays every M in turn.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { Stop } from '../bindings/core/index.js';
import { BACKENDS, freshCore, makeRunnable, startPs, takeGs } from './helpers/core.js';

describe.each(BACKENDS)('operation counters (%s)', (backend) => {
  it('a failed steal round reads every other P once per pass, and counts one core call', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    const calls = mem.op(a.p, L.OP_CALLS);
    const probes = mem.op(a.p, L.OP_PROBES);
    expect(core.findRunnable(a.p, a.m)).toBe(0); // spins, steals nothing
    expect(mem.op(a.p, L.OP_CALLS)).toBe(calls + 1);
    expect(mem.op(a.p, L.OP_PROBES)).toBe(probes + L.STEAL_TRIES * 3);
    expect(mem.op(a.p, L.OP_STEAL_TRIES)).toBe(0); // no victim had work in sight
  });

  it('a spinner that parks rechecks every P: counted on the P it gave up (P_PARK_PROBES)', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    const calls = mem.op(a.p, L.OP_CALLS);
    expect(core.stopM(a.p, a.m)).toBe(Stop.Sleep);
    expect(mem.op(a.p, L.OP_CALLS)).toBe(calls + 1);
    expect(mem.p(a.p, L.P_PARK_PROBES)).toBe(4);
    expect(mem.op(a.p, L.OP_RETRIES)).toBe(0);
  });

  it('a steal counts its attempt and its CAS on the victim\'s head; the gauge saw the spinner', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    for (const g of makeRunnable(h, takeGs(h, 9))) core.runqPut(a.p, g, 0);
    const cas = mem.op(b.p, L.OP_CAS);
    expect(core.findRunnable(b.p, b.m)).not.toBe(0);
    expect(mem.op(b.p, L.OP_STEAL_TRIES)).toBe(1);
    expect(mem.pc(b.p, L.PC_STEAL_OPS)).toBe(1);
    expect(mem.op(b.p, L.OP_CAS)).toBe(cas + 1); // the grab's head CAS, alone: nothing raced it
    expect(mem.op(b.p, L.OP_CAS_FAILS)).toBe(0);
    expect(mem.u32(L.S_NMSPINNING_MAX)).toBeGreaterThanOrEqual(1);
  });

  it('the owner\'s ring take is one CAS; runnext is one more', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a] = startPs(h, 1);
    const [x, y] = makeRunnable(h, takeGs(h, 2));
    core.runqPut(a.p, x, 0);
    core.runqPut(a.p, y, 1); // runnext: one CAS (the twin's exchange counts as one)
    const cas = mem.op(a.p, L.OP_CAS);
    expect(core.runqGet(a.p)).toBe(y);
    expect(core.runqGet(a.p)).toBe(x);
    expect(mem.op(a.p, L.OP_CAS)).toBe(cas + 2);
  });

  it('a joiner\'s help: one call, its thief and then every other P looked at', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    const probes = mem.op(a.p, L.OP_PROBES);
    expect(core.forkHelp(a.p, a.m, b.p, 1)).toBe(0);
    expect(mem.op(a.p, L.OP_HELPS)).toBe(1);
    expect(mem.op(a.p, L.OP_PROBES)).toBe(probes + 1 + 3);
    // The deep form looks at the thief alone.
    expect(core.forkHelp(a.p, a.m, b.p, 0)).toBe(0);
    expect(mem.op(a.p, L.OP_HELPS)).toBe(2);
    expect(mem.op(a.p, L.OP_PROBES)).toBe(probes + 1 + 3 + 1);
  });
});

describe.each(BACKENDS)('the spin limit counts the Ps held by an M (%s)', (backend) => {
  it('a reserved P and a P without an M are not busy: one spinner for two held Ps', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    expect(core.pReserve(3)).toBe(1);
    expect(core.pDetach(2)).toBe(1);
    const [a] = startPs(h, 1);
    core.wakep(); // another M spins on the other idle P: nmspinning 1, two Ps held
    expect(mem.nmspinning).toBe(1);
    const spins = mem.pc(a.p, L.PC_SPINS);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    // Go's rule, 2 * nmspinning < busy Ps, with the two held Ps: no second spinner. Counting the
    // reserved and M-less Ps as busy (4) let it spin.
    expect(mem.m(a.m, L.M_SPINNING)).toBe(0);
    expect(mem.nmspinning).toBe(1);
    expect(mem.pc(a.p, L.PC_SPINS)).toBe(spins);
  });

  it('with those Ps back in play, the same M spins', async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 5 });
    const { core, mem } = h;
    const [a, , c] = startPs(h, 3);
    core.wakep(); // the fourth P: nmspinning 1, four Ps held
    expect(mem.nmspinning).toBe(1);
    expect(core.findRunnable(a.p, a.m)).toBe(0);
    expect(mem.m(a.m, L.M_SPINNING)).toBe(1);
    expect(mem.nmspinning).toBe(2);
    expect(c.p).not.toBe(a.p);
  });
});
