// Suite `priorities` (docs/DESIGN.md "Priority classes", "sysmon and handoff"): how long an
// urgent task waits when every P is busy with bulk work, and how three classes share a machine.
//
//   node bench/priorities.mjs [--quick] [--reps N] [--procs N] [--json FILE]
//
// 1. burst: `holds` tasks of `holdMs` occupy every P; 5 ms later `bursts` bursts of `per` tiny
//    tasks arrive, one burst every `gapMs`: submit-to-result of the tiny tasks at high priority,
//    the same run without priorities, and piscina (the pools suite's burst, with priorities).
//    `burst at once`: the same tiny tasks, all in one burst.
// 2. mixed: a backlog of low bulk tasks, a stream of normal medium tasks and a stream of high
//    tiny ones share the Ps for a fixed time: each class's latency and throughput, with classes
//    and with everything normal.

import process from 'node:process';
import { isMain, parseArgs } from './lib/flags.mjs';
import { closeSafely, finishProcess, guardRejections, startScheduler } from './lib/guard.mjs';
import { interleave } from './lib/interleave.mjs';
import { header, isDeno } from './lib/machine.mjs';
import { suiteJSON, writeJSON } from './lib/output.mjs';
import { loadStealwork, TASKS_URL } from './lib/package.mjs';
import { Results } from './lib/results.mjs';
import { burst, calibrateBurn } from './lib/roots.mjs';
import { poolRunner, stealworkRunner } from './lib/runners.mjs';
import { now, quantile, sleep } from './lib/stats.mjs';
import { printTable } from './lib/table.mjs';

const WORKER = new URL('./pool-worker.mjs', import.meta.url);

export function prioritySizes(quick) {
  return quick
    ? { burst: { holds: 16, holdMs: 20, bursts: 4, per: 50, gapMs: 5 }, mixed: { ms: 600, lowBacklog: 60, lowMs: 5, normalEvery: 2, normalMs: 1, highEvery: 1 } }
    : { burst: { holds: 16, holdMs: 50, bursts: 10, per: 100, gapMs: 10 }, mixed: { ms: 2000, lowBacklog: 200, lowMs: 5, normalEvery: 2, normalMs: 1, highEvery: 1 } };
}

/**
 * Mixed load for `ms`: `lowBacklog` low tasks of `lowMs` submitted at the start; a normal task
 * of `normalMs` every `normalEvery` ms and a high tiny task every `highEvery` ms (open loop).
 * Returns per class the submit-to-result latencies and the count finished within the window.
 */
async function mixed(s, classes, itersPerMs, { ms, lowBacklog, lowMs, normalEvery, normalMs, highEvery }) {
  const by = (p) => (classes ? s.with({ priority: p }) : s);
  const out = { high: { lat: [], done: 0 }, normal: { lat: [], done: 0 }, low: { lat: [], done: 0 } };
  const t0 = now();
  const all = [];
  const submit = (p, name, ...args) => {
    const ts = now();
    all.push(by(p).run(name, ...args).then(() => {
      const t = now();
      out[p].lat.push(t - ts);
      if (t - t0 <= ms) out[p].done++;
    }));
  };
  for (let i = 0; i < lowBacklog; i++) submit('low', 'burn', Math.round(lowMs * itersPerMs), i + 1);
  let nextNormal = 0;
  let nextHigh = 0;
  while (now() - t0 < ms) {
    const t = now() - t0;
    while (nextHigh <= t) { submit('high', 'inc', 1); nextHigh += highEvery; }
    while (nextNormal <= t) { submit('normal', 'burn', Math.round(normalMs * itersPerMs), 7); nextNormal += normalEvery; }
    await sleep(1);
  }
  await Promise.all(all);
  return out;
}

export async function runPriorities(opts) {
  const { Scheduler } = await loadStealwork();
  const S = prioritySizes(opts.quick);
  const P = opts.procs;
  const reps = opts.reps;
  const itersPerMs = calibrateBurn();
  const res = new Results('priorities', `urgent tasks behind bulk work, and three classes sharing ${P} Ps`, 'high');
  const sched = await startScheduler(Scheduler, { tasks: TASKS_URL, procs: P, backend: 'wasm' });
  let piscina = null;
  try {
    if (!isDeno) {
      const { Piscina } = await import('piscina');
      piscina = new Piscina({ filename: WORKER.href, minThreads: P, maxThreads: P, idleTimeout: 60_000 });
    }
    const runner = stealworkRunner('stealwork', sched);
    const high = (task, arg) => sched.with({ priority: 'high' }).run(task, arg);
    const pool = piscina === null ? null : poolRunner('piscina', piscina, () => piscina.destroy());
    // Warm up every path.
    await burst(runner, { holds: 4, holdMs: 2, bursts: 2, per: 20, gapMs: 1 }, high);
    if (piscina) await burst(pool, { holds: 4, holdMs: 2, bursts: 2, per: 20, gapMs: 1 });

    // The bursts as the scheduler suite sends them, then all of them submitted at once.
    const bursts = [['burst', S.burst], ['burst at once', { ...S.burst, bursts: 1, per: S.burst.bursts * S.burst.per }]];
    for (const [row, B] of bursts) await res.attempt(row, async () => {
      const variants = ['high', 'no priorities', ...(piscina ? ['piscina'] : [])];
      const runOf = {
        high: () => burst(runner, B, high),
        'no priorities': () => burst(runner, B),
        piscina: () => burst(pool, B),
      };
      const before = sched.stats().sched.handoffs;
      const out = await interleave(variants, reps, (v) => runOf[v]());
      const g = `${row}: ${B.bursts * B.per} tiny while ${B.holds} x ${B.holdMs} ms run`;
      for (const v of variants) {
        res.add({ group: g, variant: v, metric: 'p50 submit->result', unit: 'ms', better: 'lower', values: out.get(v).map((l) => quantile(l, 0.5)) });
        res.add({ group: g, variant: v, metric: 'p99 submit->result', unit: 'ms', better: 'lower', chart: true, values: out.get(v).map((l) => quantile(l, 0.99)) });
      }
      res.note(`${row}: ${B.bursts} burst${B.bursts > 1 ? `s of ${B.per} inc() every ${B.gapMs} ms, the first` : ` of ${B.per} inc()`} 5 ms after ${B.holds} hold(${B.holdMs} ms) at normal priority; ` +
        `'high' submits the tiny tasks with { priority: 'high' }; stealwork lent a spare P ${sched.stats().sched.handoffs - before} times over the runs (spareThreads: 1)`);
    });

    await res.attempt('mixed', async () => {
      const M = S.mixed;
      const variants = ['classes', 'all normal'];
      const out = await interleave(variants, reps, (v) => mixed(sched, v === 'classes', itersPerMs, M));
      const g = `mixed: ${M.lowBacklog} low x ${M.lowMs} ms backlog, normal ${M.normalMs} ms every ${M.normalEvery} ms, high tiny every ${M.highEvery} ms, ${M.ms} ms`;
      for (const c of ['high', 'normal', 'low']) {
        for (const v of variants) {
          const xs = out.get(v);
          res.add({ group: `${g} [${c}]`, variant: v, baseline: 'all normal', metric: 'p50 latency', unit: 'ms', better: 'lower', values: xs.map((x) => quantile(x[c].lat, 0.5)) });
          res.add({ group: `${g} [${c}]`, variant: v, baseline: 'all normal', metric: 'p99 latency', unit: 'ms', better: 'lower', chart: c === 'high', values: xs.map((x) => quantile(x[c].lat, 0.99)) });
          res.add({ group: `${g} [${c}]`, variant: v, baseline: 'all normal', metric: 'done in window/s', better: 'higher', values: xs.map((x) => (x[c].done * 1000) / M.ms) });
        }
      }
      res.note("mixed: 'all normal' submits the same load without priorities; throughput counts tasks finished within the window");
    });
  } finally {
    await closeSafely(sched);
    if (piscina) await piscina.destroy();
  }
  return res;
}

if (isMain(import.meta)) {
  const opts = parseArgs(process.argv.slice(2));
  guardRejections();
  header('priorities', opts);
  const t0 = now();
  const res = await runPriorities(opts);
  printTable(res, opts.reps);
  console.log(`\npriorities suite: ${((now() - t0) / 1000).toFixed(1)} s`);
  if (res.failures.length) process.exitCode = 1;
  if (opts.json) writeJSON(opts.json, suiteJSON('priorities', [res], opts, prioritySizes(opts.quick), (now() - t0) / 1000));
  await finishProcess();
}
