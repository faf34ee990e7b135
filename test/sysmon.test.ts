// sysmon and handoff (docs/DESIGN.md "sysmon and handoff"): a task that blocks its thread does
// not strand the work queued behind it; spare Ps are lent only when work waits and no P is idle,
// at most spareThreads of them, and go back to the reserve afterwards. Both backends, real
// threads. No wall-clock assertion: the tests compare what ran while a task blocked, and every
// wait has its own deadline (a miss is a failure naming what was awaited).
import { describe, expect, it } from 'vitest';
import { holdAP, schedulers, until, within } from './helpers/runtime.js';

const start = schedulers();

describe.each(['wasm', 'js'] as const)('sysmon and handoff (%s backend)', (backend) => {
  it('1,000 children queued behind a task that blocks its only P all run while it blocks', async () => {
    const s = await start(backend, 1);
    const n = 1000;
    const sab = new SharedArrayBuffer(4 * (n + 1));
    // The blocker waits until all ran: the bound only ends a hang (a fixed 2 s bet on the load).
    const ran = await within(s.run('blockBehind', sab, n, 40_000), 50_000, 'blockBehind');
    expect(ran, 'children that ran while their parent blocked the only P').toBe(n);
    const a = new Int32Array(sab);
    const wrong: number[] = [];
    for (let i = 1; i <= n; i++) if (a[i] !== 1) wrong.push(i);
    expect(wrong.slice(0, 10), 'children not run exactly once').toEqual([]);
    const st = s.stats();
    expect(st.sched.handoffs, 'spare Ps lent').toBeGreaterThanOrEqual(1);
    // The blocker is done: the lent P goes back to the reserve once a P idles.
    await until(() => s.stats().sched.spareProcs === 1, 30_000, 'the spare P back in the reserve');
    expect(s.stats().procs.filter((p) => p.status === 'reserved').length).toBe(1);
    await within(s.close(), 20_000, 'close');
  });

  it('without spare threads the same children wait for the blocker (the test above can fail)', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const n = 1000;
    const sab = new SharedArrayBuffer(4 * (n + 1));
    const ran = await within(s.run('blockBehind', sab, n, 300), 20000, 'blockBehind');
    expect(ran).toBe(0);
    expect(s.stats().sched.handoffs).toBe(0);
    await within(s.close(), 20_000, 'close');
    expect(Atomics.load(new Int32Array(sab), 0), 'children ran after the blocker').toBe(n);
  });

  it('root tasks submitted behind a blocked P finish while it blocks', async () => {
    const s = await start(backend, 1);
    const { blocker, open } = await holdAP(s); // holds the only P until open()
    // Only a lent spare can run these: the blocker holds the only P until they are all done.
    const tiny = await within(Promise.all(Array.from({ length: 1000 }, (_, i) => s.run('add1', i))), 20000, '1,000 tiny roots');
    expect(tiny).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(s.stats().sched.handoffs, 'spare Ps lent').toBeGreaterThanOrEqual(1);
    open();
    expect(await within(blocker, 20000, 'blocker')).toBe(1);
    await within(s.close(), 20_000, 'close');
  });

  it('no spare is lent when nothing waits behind the long task', async () => {
    const s = await start(backend, 2, { spareThreads: 2 });
    expect(await within(s.run('blockFor', 300), 20000, 'blockFor')).toBe(300);
    const st = s.stats();
    expect(st.sched.handoffs).toBe(0);
    expect(st.sched.spareProcs).toBe(2);
    expect(st.procs.length).toBe(4);
    await within(s.close(), 20_000, 'close');
  });

  it('a lent spare comes back while the work goes on: a busy M gives its P back when none idles', async () => {
    const s = await start(backend, 1);
    // Relays: each link spins 0.25 ms and spawns the next until word 0 is set, so k tasks are
    // queued or running until this test stops them: the work goes on for as long as the spare
    // takes to come back, however the OS runs the threads (a fixed backlog of 4,000 roots bet
    // that the monitor would act before it drained).
    const sab = new SharedArrayBuffer(12);
    const a = new Int32Array(sab);
    const { blocker, open } = await holdAP(s, sab); // P0 stuck: the monitor lends the spare to the relays
    const k = 16;
    const roots = Array.from({ length: k }, () => s.run('relay', sab, 250));
    await until(() => s.stats().sched.handoffs >= 1, 30_000, 'a spare P lent');
    open();
    await within(blocker, 30_000, 'blocker');
    // From here both Ps run relays and neither runs out of work: the spare must come back
    // through a give-back while the relays still run.
    await until(() => s.stats().sched.spareProcs === 1, 30_000, 'the spare P back in the reserve while the relays run');
    expect(s.stats().sched.retires).toBeGreaterThanOrEqual(1);
    Atomics.store(a, 0, 1);
    expect(await within(Promise.all(roots), 30_000, 'roots')).toEqual(Array.from({ length: k }, () => 0));
    await within(s.close(), 30_000, 'close'); // after every link
    expect(Atomics.load(a, 1), 'links run, each exactly once').toBe(k + Atomics.load(a, 2));
  });

  it('at most spareThreads spares are lent, however many Ps are stuck', async () => {
    const s = await start(backend, 2, { spareThreads: 1 });
    const n = 400;
    const sabs = [0, 1, 2].map(() => new SharedArrayBuffer(4 * (n + 1)));
    const gate = new SharedArrayBuffer(8);
    const g = new Int32Array(gate);
    // Three blockers on 2 Ps + 1 spare: each spawns children behind itself and blocks until the
    // gate opens. The third starts only on a lent spare; the gate opens once all three started
    // (a fixed 1.5 s of blocking bet that the monitor lent within it).
    const runs = sabs.map((sab) => s.run('blockBehind', sab, n, 40_000, gate));
    let maxRunning = 0;
    const watch = setInterval(() => {
      maxRunning = Math.max(maxRunning, s.stats().procs.filter((p) => p.status === 'running').length);
    }, 2);
    await until(() => Atomics.load(g, 1) === 3, 30_000, 'three blockers started');
    Atomics.store(g, 0, 1);
    const got = await within(Promise.all(runs), 30_000, 'three blockers');
    clearInterval(watch);
    expect(maxRunning, 'Ps running at once').toBeLessThanOrEqual(3);
    expect(s.stats().sched.handoffs).toBeGreaterThanOrEqual(1);
    for (const x of got) expect(x).toBeLessThanOrEqual(n);
    await within(s.close(), 20_000, 'close'); // drains the children the blockers left
    for (const sab of sabs) expect(Atomics.load(new Int32Array(sab), 0)).toBe(n);
  });
});
