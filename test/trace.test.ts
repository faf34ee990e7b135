// The event trace: valid Chrome Trace Event JSON, the monitor's track and one per M, every steal
// names a real thief and victim, and the counters add up; untimed events get times between the
// clock reads around them, coarse tasks exact ones, and a ring that wrapped still exports its
// newest events.
import { describe, it, expect } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import {
  EV_PARK, EV_STEAL, EV_UNPARK, TraceWriter, allocTraceRings, exportTrace, traceClock,
} from '../dist/bindings/runtime/observe/trace.js';
import { GDIR, G_FN, G_SIZE, HEADER, H_MBASE, M_SIZE, MR_TRACE_BUF, PS } from '../dist/assembly/shared/layout.js';
import { traceOverflow, traceSpawn, traceStart, traceSteal } from '../dist/bindings/core/ts/trace.js';
import * as L from '../dist/assembly/shared/layout.js';

const tasks = new URL('../examples/tasks.mjs', import.meta.url);
const traceTasks = new URL('./fixtures/trace-tasks.mjs', import.meta.url); // the same, and stolenChild

describe.each(['wasm', 'js'] as const)('trace (%s backend)', (backend) => {
  it('exports valid trace JSON whose steals name real threads and Ps', async () => {
    const procs = 2;
    const s = await Scheduler.start({ tasks: traceTasks, procs, backend, trace: true, traceEvents: 1 << 15 });
    // One steal for certain (a child its parent waits for while holding its P); the skewed tree
    // and fibc steal too, as often as the OS lets the second thread run beside the first.
    expect(await s.run('stolenChild', new SharedArrayBuffer(4))).toBeGreaterThanOrEqual(1);
    await s.run('skewed', 300, 100, 11);
    await s.run('fibc', 16);
    await s.close();
    const json = JSON.parse(JSON.stringify(s.trace())) as { traceEvents: Array<Record<string, any>> };
    const ev = json.traceEvents;
    expect(Array.isArray(ev)).toBe(true);
    const st = s.stats();
    // Ps: procs, then the spares the monitor may lend. Whether it lends one here is up to the OS
    // (a worker descheduled for handoffAfterMs while work waits looks stuck), so a spare P can
    // show up as a thief; the tracks are the same either way.
    const nps = procs + st.sched.spareThreads;
    expect(st.sched.spareThreads).toBe(1);
    const tracks = new Set(ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.tid));
    // Track 0: the monitor (main thread); then one per worker M, spare threads included.
    expect([...tracks].sort((x, y) => x - y)).toEqual(Array.from({ length: nps + 1 }, (_, i) => i));
    const loans = ev.filter((e) => e.name === 'handoff');
    expect(loans.length).toBe(st.sched.handoffs);
    for (const e of loans) expect(e.tid).toBe(0);
    for (const e of ev) {
      expect(typeof e.name).toBe('string');
      expect(typeof e.ph).toBe('string');
      expect(Number.isFinite(e.ts)).toBe(true);
      if (e.ph === 'X') expect(e.dur).toBeGreaterThanOrEqual(0);
    }
    const slicesRun = ev.filter((e) => e.cat === 'task' && e.ph === 'X');
    expect(slicesRun.length).toBe(st.totals.executed);
    for (const e of slicesRun) {
      expect(e.tid).toBeGreaterThan(0);
      expect(e.args.P).toBeLessThan(nps);
    }
    const steals = ev.filter((e) => e.name === 'steal' && e.ph === 'i');
    expect(steals.length).toBe(st.totals.stealOps);
    for (const e of steals) {
      expect(e.tid).toBeGreaterThan(0);
      expect(tracks.has(e.tid)).toBe(true);
      expect(e.args.thiefP).toBeGreaterThanOrEqual(0);
      expect(e.args.thiefP).toBeLessThan(nps);
      expect(e.args.victimP).toBeGreaterThanOrEqual(0);
      expect(e.args.victimP).toBeLessThan(nps);
      expect(e.args.victimP).not.toBe(e.args.thiefP);
      expect(e.args.count).toBeGreaterThan(0);
    }
    // More Ps than procs ran only if the monitor lent a spare (the reserve starts with them).
    const psRan = new Set(slicesRun.map((e) => e.args.P));
    if (psRan.size > procs) expect(st.sched.handoffs, `Ps ${[...psRan]} ran tasks`).toBeGreaterThan(0);
    // Flows pair up: each start ('s') has its finish ('f') with the same id.
    const starts = new Set(ev.filter((e) => e.ph === 's').map((e) => e.id));
    const ends = new Set(ev.filter((e) => e.ph === 'f').map((e) => e.id));
    expect(starts).toEqual(ends);
    expect(starts.size, 'steal arrows').toBeGreaterThan(0);
    // Each end sits exactly on a task slice of its thread (same ts and cat): how Perfetto and the
    // DevTools Performance panel bind a flow to a slice.
    const sliceAt = new Set(ev.filter((e) => e.ph === 'X' && e.cat === 'task').map((e) => `${e.tid}@${e.ts}`));
    for (const e of ev.filter((x) => x.ph === 's' || x.ph === 'f')) {
      expect(e.cat).toBe('task');
      expect(sliceAt.has(`${e.tid}@${e.ts}`), `flow ${e.ph} ${e.id} on M${e.tid} at ${e.ts}`).toBe(true);
    }
    // Tasks stolen == sum of the steal counts.
    expect(steals.reduce((a, e) => a + e.args.count, 0)).toBe(st.totals.stolen);
    expectOrdered(ev);
  });

  it('records ring overflows on the spawner\'s track', async () => {
    // One P and no spare: nobody can steal from the ring while the root fills it, so more
    // spawns than it holds overflow for certain (with a spare, a loan could drain it first).
    const fixtures = new URL('./fixtures/tasks.mjs', import.meta.url);
    const s = await Scheduler.start({ tasks: fixtures, procs: 1, spareThreads: 0, backend, trace: true });
    const n = 600; // more than a ring
    const sab = new SharedArrayBuffer(4 * (n + 1));
    expect(await s.run('spawnTallies', sab, n)).toBe(n);
    await s.close(); // the children ran: close waits for them
    expect(Atomics.load(new Int32Array(sab), 0)).toBe(n);
    const ev = s.trace().traceEvents as Array<Record<string, any>>;
    const overflows = ev.filter((e) => e.name === 'overflow');
    expect(overflows.reduce((a, e) => a + e.args.count, 0)).toBe(s.stats().totals.overflows);
    expect(overflows.length).toBeGreaterThan(0);
    const root = ev.find((e) => e.cat === 'task' && e.name === 'spawnTallies');
    for (const e of overflows) expect(e.tid, 'on the spawner\'s track').toBe(root?.tid);
  });

  it('records the monitor\'s loans on track 0', async () => {
    const fixtures = new URL('./fixtures/tasks.mjs', import.meta.url);
    const s = await Scheduler.start({ tasks: fixtures, procs: 1, backend, trace: true });
    const n = 600;
    const sab = new SharedArrayBuffer(4 * (n + 1));
    // A spare P ran them: the blocker waits until all ran (the bound only ends a hang).
    expect(await s.run('blockBehind', sab, n, 30_000)).toBe(n);
    await s.close();
    const ev = s.trace().traceEvents as Array<Record<string, any>>;
    expect(ev.filter((e) => e.name === 'overflow').reduce((a, e) => a + e.args.count, 0)).toBe(s.stats().totals.overflows);
    const loans = ev.filter((e) => e.name === 'handoff');
    expect(loans.length).toBe(s.stats().sched.handoffs);
    expect(loans.length).toBeGreaterThan(0);
    for (const e of loans) expect(e.tid).toBe(0);
    expect(ev.some((e) => e.ph === 'M' && e.tid === 0 && e.args?.name === 'monitor (main thread)')).toBe(true);
  });

  it('gives tasks of 2 ms their own clock reads', async () => {
    const s = await Scheduler.start({ tasks, procs: 2, backend, trace: true });
    await Promise.all(Array.from({ length: 8 }, () => s.run('work', 2000)));
    await s.close();
    const ev = s.trace().traceEvents as Array<Record<string, any>>;
    const work = ev.filter((e) => e.cat === 'task' && e.name === 'work');
    expect(work.length).toBe(8);
    // Each slice ends at the next event on its thread, which comes after the 2 ms of work.
    for (const e of work) expect(e.dur).toBeGreaterThanOrEqual(1900);
    expectOrdered(ev);
  });

  it('exports the newest events of a ring that wrapped', async () => {
    const s = await Scheduler.start({ tasks, procs: 2, backend, trace: true, traceEvents: 16 });
    await s.run('fibc', 15);
    await s.close();
    const ev = s.trace().traceEvents as Array<Record<string, any>>;
    const perTrack = new Map<number, number>();
    for (const e of ev) if (e.ph !== 'M' && e.ph !== 's' && e.ph !== 'f') perTrack.set(e.tid, (perTrack.get(e.tid) ?? 0) + 1);
    expect(perTrack.size).toBeGreaterThan(0);
    // 16 events of capacity: 32 slots, a task start or spawn takes one.
    for (const n of perTrack.values()) expect(n).toBeLessThanOrEqual(32);
    for (const e of ev) expect(Number.isFinite(e.ts)).toBe(true);
    expectOrdered(ev);
  });
});

/** Each thread's events (but flow starts, drawn on the victim's thread) come in time order. */
function expectOrdered(ev: Array<Record<string, any>>): void {
  const last = new Map<number, number>();
  for (const e of ev) {
    if (e.ph === 'M' || e.ph === 's') continue;
    expect(e.ts).toBeGreaterThanOrEqual(last.get(e.tid) ?? -Infinity);
    last.set(e.tid, e.ts);
  }
}

describe('trace ring format', () => {
  /** Shared memory with one worker M's ring, and one G table chunk. */
  function ring(cap: number) {
    const sab = new SharedArrayBuffer(1 << 20);
    const views = { u32: new Uint32Array(sab), i32: new Int32Array(sab), f64: new Float64Array(sab), end: sab.byteLength, refresh() {} };
    const mbase = 64 * 1024;
    views.u32[(HEADER + H_MBASE) >>> 2] = mbase;
    let brk = mbase + 2 * M_SIZE;
    allocTraceRings(views as any, { heapAlloc: (n: number) => { const a = brk; brk += n; return a; } }, 2, cap);
    const chunk = brk;
    views.u32[GDIR >>> 2] = chunk;
    // M1's events as the core writes them (here its TypeScript twin), into the writer's ring.
    const mAddr = mbase + M_SIZE;
    const buf = views.u32[(mAddr + MR_TRACE_BUF) >>> 2];
    const core = {
      start(g: number, p: number) { traceStart(views as any, mAddr >>> 2, buf, p, g); },
      spawn(g: number, parent: number) { traceSpawn(views as any, mAddr >>> 2, buf, g, parent); },
      steal(p: number) { traceSteal(views as any, mAddr >>> 2, buf, p); },
      overflow(p: number) { traceOverflow(views as any, mAddr >>> 2, buf, p); },
    };
    return { views, writer: new TraceWriter(views as any, mAddr), chunk, core };
  }

  it('spreads untimed events evenly between the clock reads around them', () => {
    const { views, writer, chunk, core } = ring(1 << 12);
    const t0 = traceClock();
    writer.emit(t0, EV_PARK, 0, 0, 0);
    const t1 = traceClock();
    writer.emit(t1, EV_UNPARK, 0, 0, 0);
    views.u32[(chunk + 5 * G_SIZE + G_FN) >>> 2] = 1;
    core.start(5, 0); // G 5 runs task 1 on P0
    for (let i = 0; i < 1000; i++) { core.spawn(100 + i, 5); writer.tick(); } // fast: most of them untimed
    const t2 = traceClock() + 1;
    writer.emit(t2, EV_STEAL, 2, (0 << 16) | 2, 7); // P0 took 7 Gs from P1, whose M is M1
    const ev = exportTrace(views as any, 2, ['a', 'b']).traceEvents as Array<Record<string, any>>;
    const us = (t: number) => (t - t0) * 1000;
    const park = ev.find((e) => e.name === 'parked')!;
    expect(park.ts).toBe(0);
    expect(park.dur).toBeCloseTo(us(t1), 2);
    const start = ev.find((e) => e.cat === 'task' && e.ph === 'X')!;
    expect(start.name).toBe('b');
    expect(start.args).toEqual({ g: 5, P: 0 });
    const spawns = ev.filter((e) => e.name === 'spawn');
    expect(spawns.map((e) => e.args.g)).toEqual(Array.from({ length: 1000 }, (_, i) => 100 + i));
    expect(spawns.every((e) => e.args.a === 5)).toBe(true);
    const steal = ev.find((e) => e.name === 'steal' && e.ph === 'i')!;
    expect(steal.ts).toBeCloseTo(us(t2), 2);
    expect(steal.args).toEqual({ thiefP: 0, victimP: 1, count: 7, victimM: 1 });
    // Between two reads the untimed events sit evenly spaced: equal steps within each run.
    const ts = [start.ts, ...spawns.map((e) => e.ts), steal.ts];
    for (let i = 1; i < ts.length; i++) expect(ts[i]).toBeGreaterThanOrEqual(ts[i - 1]);
    expect(ts[0]).toBeGreaterThanOrEqual(us(t1) - 0.001);
    expectOrdered(ev);
  });

  it('dates a steal the core wrote by the clock read it asked for, and ends the task before it there', () => {
    const { views, writer, chunk, core } = ring(1 << 12);
    views.u32[(chunk + 5 * G_SIZE + G_FN) >>> 2] = 0;
    views.u32[(chunk + 7 * G_SIZE + G_FN) >>> 2] = 1;
    core.start(5, 0); // G 5 runs on P0
    writer.tick();
    const t0 = traceClock();
    while (traceClock() - t0 < 2); // G 5 runs for 2 ms
    // findRunnable stole 3 Gs from P1 (whose M is M1 here) and started G 7 of them: the core
    // writes the steal, then the start, and asks for a clock read at the next look.
    views.u32[(PS + L.P_STEAL_VICTIM) >>> 2] = 2;
    views.u32[(PS + L.P_STEAL_N) >>> 2] = 3;
    views.u32[(PS + L.P_SIZE + L.P_M) >>> 2] = 2;
    core.steal(0);
    core.start(7, 0);
    writer.tick();
    writer.emit(traceClock() + 1, EV_PARK, 0, 0, 0);
    const ev = exportTrace(views as any, 2, ['a', 'b']).traceEvents as Array<Record<string, any>>;
    const slices = ev.filter((e) => e.cat === 'task' && e.ph === 'X');
    expect(slices.map((e) => e.args.g)).toEqual([5, 7]);
    const steal = ev.find((e) => e.name === 'steal' && e.ph === 'i')!;
    expect(steal.args).toEqual({ thiefP: 0, victimP: 1, count: 3, victimM: 1 });
    // G 5's slice runs its 2 ms and ends at the steal; G 7's starts there, the arrow ends on it.
    expect(slices[0].dur).toBeGreaterThanOrEqual(1900);
    expect(slices[0].ts + slices[0].dur).toBeCloseTo(steal.ts, 3);
    expect(slices[1].ts).toBeGreaterThanOrEqual(steal.ts);
    const f = ev.find((e) => e.ph === 'f')!;
    expect(f.ts).toBe(slices[1].ts);
    expectOrdered(ev);
  });

  it('records the ring overflows the core wrote inside the task that caused them', () => {
    const { views, writer, chunk, core } = ring(1 << 12);
    views.u32[(chunk + 5 * G_SIZE + G_FN) >>> 2] = 0;
    core.start(5, 0);
    writer.tick();
    for (let i = 0; i < 300; i++) core.spawn(100 + i, 5);
    core.overflow(0);
    core.overflow(0);
    writer.emit(traceClock() + 1, EV_PARK, 0, 0, 0);
    const ev = exportTrace(views as any, 2, ['a']).traceEvents as Array<Record<string, any>>;
    const overflows = ev.filter((e) => e.name === 'overflow');
    expect(overflows.map((e) => e.args)).toEqual([{ P: 0, count: 1 }, { P: 0, count: 1 }]);
    const task = ev.find((e) => e.cat === 'task' && e.ph === 'X')!;
    for (const o of overflows) expect(o.ts).toBeGreaterThanOrEqual(task.ts);
    expectOrdered(ev);
  });

  it('keeps the newest events of a wrapped ring, dated', () => {
    const { views, writer, core } = ring(16);
    for (let i = 1; i <= 500; i++) { core.spawn(i, 0); writer.tick(); }
    writer.emit(traceClock(), EV_PARK, 0, 0, 0);
    const ev = exportTrace(views as any, 2, []).traceEvents as Array<Record<string, any>>;
    const spawns = ev.filter((e) => e.name === 'spawn');
    expect(spawns.length).toBeGreaterThan(16);
    expect(spawns[spawns.length - 1].args.g).toBe(500);
    for (let i = 1; i < spawns.length; i++) expect(spawns[i].args.g).toBe(spawns[i - 1].args.g + 1);
    expect(ev.filter((e) => e.name === 'parked').length).toBe(1);
    for (const e of ev) expect(Number.isFinite(e.ts)).toBe(true);
    expectOrdered(ev);
  });
});

describe('stats', () => {
  it('latency histograms: sampled queueing delay and run time, ordered percentiles', async () => {
    const s = await Scheduler.start({ tasks, procs: 2 });
    const jobs = [];
    for (let i = 0; i < 64; i++) jobs.push(s.run('work', 2000)); // 2 ms of work each
    await Promise.all(jobs);
    await s.run('fibc', 15);
    await s.close();
    const { queue, run } = s.stats().latency;
    for (const h of [queue, run]) {
      expect(h.count).toBeGreaterThan(0);
      expect(h.p50).toBeLessThanOrEqual(h.p90);
      expect(h.p90).toBeLessThanOrEqual(h.p99);
      expect(h.p99).toBeLessThanOrEqual(h.max);
    }
    // 64 roots of 2 ms on 2 Ps: the slowest sampled root waited behind several others.
    expect(run.max).toBeGreaterThanOrEqual(2000);
    expect(queue.max).toBeGreaterThan(2000);
    const t = s.stats().threads;
    expect(t[1].uptimeMs).toBeGreaterThan(0);
    expect(t[1].idleMs).toBeLessThanOrEqual(t[1].uptimeMs);
  });

  it('counters add up when the scheduler is quiet', async () => {
    const s = await Scheduler.start({ tasks, procs: 2 });
    await s.run('fibc', 18);
    await s.run('skewed', 100, 50, 3);
    await s.close();
    const st = s.stats();
    // Every G made runnable ran once: on a P (PC_SPAWNED counts readies on a P) or from the main
    // thread's batches (roots); join continuations are readied once each.
    const roots = st.threads[0].spawned;
    expect(st.totals.executed).toBe(st.totals.spawned + roots);
    expect(st.totals.runnextHits + st.totals.localHits + st.totals.globalHits + st.totals.stealOps).toBe(st.totals.executed);
    expect(st.procs.reduce((a, p) => a + p.stolenFrom, 0)).toBe(st.totals.stolen);
    expect(st.procs.reduce((a, p) => a + p.stolenFromOps, 0)).toBe(st.totals.stealOps);
    expect(st.sched.globalPuts).toBe(st.sched.globalGets);
  });
});
