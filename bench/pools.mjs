// Suite `pools`: stealwork (backend 'wasm') against piscina and tinypool with the same number of
// threads, on the workloads a pool can express: root tasks from the main thread. Same task
// bodies (bench/pool-worker.mjs wraps bench/tasks.mjs), same run, interleaved repetitions.
// 'stealwork/piscina' is the scheduler behind piscina's API (the compatible entry), on piscina's
// worker file and calls, with piscina's defaults (recordTiming on).
//
//   node bench/pools.mjs [--quick] [--reps N] [--procs N] [--json FILE] [--only NAMES]
//
// --only runs just the workloads whose name starts with one of NAMES (comma-separated, e.g.
// 'tiny roots'), each at the full --reps (the whole suite caps tiny roots at 3 repetitions).
//
// What a pool cannot express: a task that spawns tasks. piscina and tinypool have no API for a
// running task to submit another and wait for it (fork-join), so fibc, fibcut, UTS and the
// one-task skewed fork have no pool counterpart; the coarse fib is split by the main thread
// instead, for every runner alike (stealwork's own fork-join fibcut is shown beside it).

import process from 'node:process';
import { isMain, parseArgs } from './lib/flags.mjs';
import { check, finishProcess, guardRejections, startScheduler } from './lib/guard.mjs';
import { interleave, warmMain } from './lib/interleave.mjs';
import { header, isDeno } from './lib/machine.mjs';
import { suiteJSON, writeJSON } from './lib/output.mjs';
import { loadPiscina, loadStealwork, TASKS_URL } from './lib/package.mjs';
import { Results } from './lib/results.mjs';
import {
  burst, calibrateBurn, fibLeaves, fibValue, skewedMix, skewedRoots, skewedSeq, splitFib, tinyRoots, wakeup,
} from './lib/roots.mjs';
import { poolRunner, stealworkRunner } from './lib/runners.mjs';
import { sizes } from './lib/sizes.mjs';
import { median, now, quantile } from './lib/stats.mjs';
import { printTable } from './lib/table.mjs';
import * as T from './tasks.mjs';

const WORKER = new URL('./pool-worker.mjs', import.meta.url);

async function startRunners(P) {
  const { Scheduler } = await loadStealwork();
  const { Piscina } = await import('piscina');
  const { default: Tinypool } = await import('tinypool');
  const sched = await startScheduler(Scheduler, { tasks: TASKS_URL, procs: P, backend: 'wasm' });
  const piscina = new Piscina({ filename: WORKER.href, minThreads: P, maxThreads: P, idleTimeout: 60_000 });
  const tinypool = new Tinypool({ filename: WORKER.href, minThreads: P, maxThreads: P, idleTimeout: 60_000 });
  const { Piscina: Compatible } = await loadPiscina();
  const compatible = new Compatible({ filename: WORKER.href, minThreads: P, maxThreads: P, idleTimeout: 60_000 });
  await compatible.run(0); // started (its constructor starts the scheduler asynchronously)
  return [
    stealworkRunner('stealwork', sched),
    poolRunner('stealwork/piscina', compatible, () => compatible.destroy()),
    poolRunner('piscina', piscina, () => piscina.destroy()),
    poolRunner('tinypool', tinypool, () => tinypool.destroy()),
  ];
}

async function warmUp(r, itersPerMs) {
  await tinyRoots(r, 2000);
  await splitFib(r, 24, 14);
  const iters = skewedMix(40, 0.05, 0.5, 0.1, itersPerMs, 1);
  const sum = iters.reduce((a, k) => a + T.burn(null, k), 0);
  await skewedRoots(r, iters, sum);
  await Promise.all([r.run('hold', 1), r.run('hold', 1)]);
  for (let i = 0; i < 5; i++) await r.run('stamp', 0);
}

export async function runPools(opts) {
  const S = sizes(opts.quick);
  const P = opts.procs;
  const reps = opts.reps;
  const res = new Results('pools', `stealwork (wasm), its piscina-compatible entry, piscina and tinypool, ${P} threads each, root tasks from the main thread`, 'stealwork');
  const runners = await startRunners(P);
  const names = runners.map((r) => r.name);
  const by = new Map(runners.map((r) => [r.name, r]));
  const itersPerMs = calibrateBurn();
  const only = opts.only ?? [];
  const wanted = (name) => only.length === 0 || only.some((o) => name.startsWith(o));
  const attempt = (name, fn, ms) => (wanted(name) ? res.attempt(name, fn, ms) : Promise.resolve());
  try {
    for (const r of runners) await warmUp(r, itersPerMs);

    // tiny root tasks, all in flight.
    await attempt('tiny roots', async () => {
      const n = S.tiny;
      // At most 3 repetitions: a pool takes several seconds per repetition here.
      const tinyReps = only.length > 0 ? reps : Math.min(reps, 3);
      const out = await interleave(names, tinyReps, (v) => tinyRoots(by.get(v), n));
      const g = `tiny roots: ${n.toLocaleString('en-US')} inc() root tasks in flight`;
      for (const v of names) res.add({ group: g, variant: v, metric: 'tasks/s', unit: 'k', chart: true, values: out.get(v).map((x) => x / 1000) });
      if (tinyReps < reps) res.note(`tiny roots: ${tinyReps} repetitions (the pools take seconds per repetition at this size)`);
    }, opts.quick ? 80_000 : 400_000); // four runners; piscina and tinypool take seconds per repetition

    // coarse fib split by the main thread (and stealwork's fork-join for comparison).
    await attempt('split fib', async () => {
      const [n, cut] = S.fibcut;
      const leaves = fibLeaves(n, cut).length;
      warmMain(() => T.fib(null, 20));
      const sched = by.get('stealwork').sched;
      const variants = ['main thread', ...names, 'stealwork fork-join'];
      const out = await interleave(variants, reps, async (v) => {
        if (v === 'main thread') {
          const t0 = now();
          check(T.fib(null, n) === fibValue(n), 'fib on the main thread');
          return now() - t0;
        }
        if (v === 'stealwork fork-join') {
          const t0 = now();
          const r = await sched.run('fibcut', n, cut);
          check(r === fibValue(n), `fibcut(${n}, ${cut}) = ${r}`);
          return now() - t0;
        }
        return splitFib(by.get(v), n, cut);
      });
      const g = `split fib(${n}): ${leaves} root tasks fib(<= ${cut}), split by the main thread`;
      const seq = median(out.get('main thread'));
      for (const v of variants) res.add({ group: g, variant: v, metric: 'time', unit: 'ms', better: 'lower', values: out.get(v) });
      for (const v of variants.slice(1)) res.add({ group: g, variant: v, metric: 'speed-up vs one thread', chart: v !== 'stealwork fork-join', values: out.get(v).map((ms) => seq / ms) });
      res.note(`'stealwork fork-join' is fibcut(${n}, ${cut}): one root task whose tree is split by the tasks themselves, which a pool cannot do`);
    });

    // skewed, as root tasks.
    await attempt('skewed', async () => {
      const iters = skewedMix(S.skewed, 0.1, 5, 0.1, itersPerMs);
      const expect = skewedSeq(iters).sum;
      const out = await interleave(['main thread', ...names], reps, async (v) => {
        if (v === 'main thread') return skewedSeq(iters).ms;
        return skewedRoots(by.get(v), iters, expect);
      });
      const seqs = out.get('main thread');
      const g = `skewed roots: ${S.skewed} root tasks (90% 0.1 ms, 10% 5 ms)`;
      for (const v of names) {
        res.add({ group: g, variant: v, metric: 'makespan', unit: 'ms', better: 'lower', values: out.get(v) });
        res.add({ group: g, variant: v, metric: 'efficiency', chart: true, values: out.get(v).map((ms, i) => seqs[i] / (P * ms)) });
      }
    });

    // burst latency behind long tasks.
    await attempt('burst', async () => {
      const B = S.burst;
      const out = await interleave(names, reps, (v) => burst(by.get(v), B));
      const g = `burst: ${B.bursts * B.per} tiny while ${B.holds} x ${B.holdMs} ms run`;
      for (const v of names) {
        res.add({ group: g, variant: v, metric: 'p50 submit->result', unit: 'ms', better: 'lower', values: out.get(v).map((l) => quantile(l, 0.5)) });
        res.add({ group: g, variant: v, metric: 'p99 submit->result', unit: 'ms', better: 'lower', chart: true, values: out.get(v).map((l) => quantile(l, 0.99)) });
      }
    });

    // wake-up latency into an idle runner.
    await attempt('wake-up', async () => {
      const W = S.wake;
      const out = await interleave(names, reps, (v) => wakeup(by.get(v), W.samples, W.gapMs));
      const g = `wake-up: a task every ${W.gapMs} ms into idle threads`;
      for (const v of names) {
        const xs = out.get(v);
        res.add({ group: g, variant: v, metric: 'p50 spawn->start', unit: 'us', better: 'lower', chart: true, values: xs.map((x) => quantile(x.start, 0.5)) });
        res.add({ group: g, variant: v, metric: 'p99 spawn->start', unit: 'us', better: 'lower', values: xs.map((x) => quantile(x.start, 0.99)) });
        res.add({ group: g, variant: v, metric: 'p50 spawn->result', unit: 'us', better: 'lower', values: xs.map((x) => quantile(x.round, 0.5)) });
      }
    });
    res.note('not expressible with piscina or tinypool: tasks that spawn tasks and wait for them (fibc, fibcut, UTS, ' +
      'the one-task skewed fork); see the scheduler suite for those');
  } finally {
    for (const r of runners) await r.close();
  }
  res.extra.versions = await poolVersions();
  return res;
}

async function poolVersions() {
  const { readFile } = await import('node:fs/promises');
  const v = async (p) => JSON.parse(await readFile(new URL(`../node_modules/${p}/package.json`, import.meta.url), 'utf8')).version;
  return { piscina: await v('piscina'), tinypool: await v('tinypool') };
}

if (isMain(import.meta)) {
  const opts = parseArgs(process.argv.slice(2));
  guardRejections();
  if (isDeno) {
    console.log('bench/pools: piscina and tinypool run on Node only; skipped under Deno');
  } else {
    header('pools', opts);
    const t0 = now();
    const res = await runPools(opts);
    printTable(res, opts.reps);
    console.log(`  piscina ${res.extra.versions.piscina}, tinypool ${res.extra.versions.tinypool}`);
    console.log(`\npools suite: ${((now() - t0) / 1000).toFixed(1)} s`);
    if (res.failures.length) process.exitCode = 1;
    if (opts.json) writeJSON(opts.json, suiteJSON('pools', [res], opts, sizes(opts.quick), (now() - t0) / 1000));
  }
  await finishProcess();
}
