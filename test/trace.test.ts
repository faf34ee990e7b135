// The event trace: valid Chrome Trace Event JSON, one track per M, every steal names a real thief
// and victim, and the counters add up.
import { describe, it, expect } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';

const tasks = new URL('../examples/tasks.mjs', import.meta.url);

describe.each(['wasm', 'js'] as const)('trace (%s backend)', (backend) => {
  it('exports valid trace JSON whose steals name real threads and Ps', async () => {
    const procs = 2;
    const s = await Scheduler.start({ tasks, procs, backend, trace: true, traceEvents: 1 << 15 });
    await s.run('skewed', 300, 100, 11);
    await s.run('fibc', 16);
    await s.close();
    const json = JSON.parse(JSON.stringify(s.trace())) as { traceEvents: Array<Record<string, any>> };
    const ev = json.traceEvents;
    expect(Array.isArray(ev)).toBe(true);
    const tracks = new Set(ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.tid));
    expect([...tracks].sort()).toEqual([1, 2]);
    for (const e of ev) {
      expect(typeof e.name).toBe('string');
      expect(typeof e.ph).toBe('string');
      expect(Number.isFinite(e.ts)).toBe(true);
      if (e.ph === 'X') expect(e.dur).toBeGreaterThanOrEqual(0);
    }
    const tasksRun = ev.filter((e) => e.cat === 'task').length;
    const st = s.stats();
    expect(tasksRun).toBe(st.totals.executed);
    const steals = ev.filter((e) => e.name === 'steal' && e.ph === 'i');
    expect(steals.length).toBe(st.totals.stealOps);
    for (const e of steals) {
      expect(tracks.has(e.tid)).toBe(true);
      expect(e.args.thiefP).toBeGreaterThanOrEqual(0);
      expect(e.args.thiefP).toBeLessThan(procs);
      expect(e.args.victimP).toBeGreaterThanOrEqual(0);
      expect(e.args.victimP).toBeLessThan(procs);
      expect(e.args.victimP).not.toBe(e.args.thiefP);
      expect(e.args.count).toBeGreaterThan(0);
    }
    // Flows pair up: each start ('s') has its finish ('f') with the same id.
    const starts = new Set(ev.filter((e) => e.ph === 's').map((e) => e.id));
    const ends = new Set(ev.filter((e) => e.ph === 'f').map((e) => e.id));
    expect(starts).toEqual(ends);
    // Tasks stolen == sum of the steal counts.
    expect(steals.reduce((a, e) => a + e.args.count, 0)).toBe(st.totals.stolen);
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
