// Suite `policies`: the comparisons the seed article makes (see the project's reading notes on
// it), measured here, each in a small table with the article's claim beside our figure. The
// article's figures are illustrative (kernel-style, many cores); ours come from this machine.
//
//   node bench/policies.mjs [--quick] [--reps N] [--procs N] [--json FILE]
//
// 1. global queue only (globalQueueOnly) vs local + global: fibc throughput and open-loop
//    fork-join request latency, with sched.lock acquisitions per second.
// 2. victim order, random vs round-robin, and 3. victim hint on vs off: fibc throughput, a
//    one-task skewed fork, steal counts. With 2 Ps a P has exactly one victim, so order and
//    hint cannot differ; these run with 2 x procs Ps (at least 4), oversubscribing 2 CPUs.
// 4. the spin / yield / park ladder: one small task every 2 ms; spawn-to-start latency against
//    the CPU time the whole process burns meanwhile (process.cpuUsage).
// 5. steal threshold fixed vs load-derived, under a mixed load: background CPU-bound fork-join
//    plus open-loop async requests (fork, await the children, read a file): p50 / p99 latency.

import process from 'node:process';
import os from 'node:os';
import { statsDelta, withStats } from './lib/counters.mjs';
import { isMain, parseArgs } from './lib/flags.mjs';
import { check, closeSafely, finishProcess, guardRejections, startScheduler, withWatchdog } from './lib/guard.mjs';
import { interleaveGuarded } from './lib/interleave.mjs';
import { header } from './lib/machine.mjs';
import { suiteJSON, writeJSON } from './lib/output.mjs';
import { loadStealwork, TASKS_URL } from './lib/package.mjs';
import { Results } from './lib/results.mjs';
import { calibrateBurn, fibcCalls, fibValue, skewedMix } from './lib/roots.mjs';
import { mean, now, quantile, sleep, wallNow } from './lib/stats.mjs';
import { printTable } from './lib/table.mjs';
import * as T from './tasks.mjs';

export function policySizes(quick) {
  return quick
    ? { fibc: 20, requests: 80, periodMs: 1, fanout: [16, 0.05], skewed: 120, ladder: { samples: 40, gapMs: 2 }, mixed: { requests: 60, periodMs: 2, k: 4, ms: 0.1, bg: [24, 14] } }
    : { fibc: 24, requests: 400, periodMs: 1, fanout: [16, 0.05], skewed: 1000, ladder: { samples: 200, gapMs: 2 }, mixed: { requests: 400, periodMs: 2, k: 4, ms: 0.1, bg: [26, 15] } };
}

/** How long one repetition of one variant may take before that variant counts as hung. */
const repMs = (opts) => (opts.quick ? 8_000 : 30_000);

/**
 * Open-loop arrivals: request i is due at i * periodMs; each timer turn submits every request
 * that is due (a late timer does not lower the offered load). Returns each request's
 * submit-to-result time (ms) and the elapsed time.
 */
async function openLoop(count, periodMs, submit) {
  const lat = [];
  const done = [];
  const t0 = now();
  let i = 0;
  while (i < count) {
    while (i < count && t0 + i * periodMs <= now()) {
      const ts = now();
      done.push(submit(i).then(() => { lat.push(now() - ts); }));
      i++;
    }
    if (i < count) await sleep(Math.max(0, t0 + i * periodMs - now()));
  }
  await Promise.all(done);
  return { lat, ms: now() - t0 };
}

async function startAll(Scheduler, P, variants) {
  const m = new Map();
  for (const [name, o] of Object.entries(variants)) m.set(name, await startScheduler(Scheduler, { tasks: TASKS_URL, procs: P, ...o }));
  return m;
}

async function closeAll(m) {
  for (const s of m.values()) await closeSafely(s);
}

// ---- 1. global queue only ------------------------------------------------------------------

async function globalOnly(Scheduler, opts, Z, itersPerMs) {
  const P = opts.procs;
  const res = new Results('policies: global queue only', `every spawn through the global queue vs Go's local rings + global queue, ${P} Ps`, 'local + global');
  const scheds = await startAll(Scheduler, P, { 'local + global': {}, 'global only': { globalQueueOnly: true } });
  const names = [...scheds.keys()];
  try {
    for (const s of scheds.values()) { await s.run('fibc', 16); await s.run('fanout', 16, 100); }
    const n = Z.fibc;
    const calls = fibcCalls(n);
    const fib = await interleaveGuarded(names, opts.reps, async (v) => {
      const s = scheds.get(v);
      const t0 = now();
      const { v: r, d } = await withStats(s, () => s.run('fibc', n));
      const ms = now() - t0;
      check(r === fibValue(n), `fibc(${n})`);
      return { ms, d };
    }, repMs(opts), res);
    const g1 = `fibc(${n}): ${calls.toLocaleString('en-US')} task calls`;
    for (const v of names) {
      const xs = fib.get(v);
      if (!xs) continue;
      res.add({ group: g1, variant: v, metric: 'task calls/s', unit: 'M', chart: true, values: xs.map((x) => calls / x.ms / 1000) });
      res.add({ group: g1, variant: v, metric: 'sched.lock acquisitions/s', unit: 'k', better: 'lower', chart: true, values: xs.map((x) => x.d.lockAcquisitions / x.ms),
        claim: v === 'global only' ? '18,300/s' : '210/s' });
    }
    const [k, ms] = Z.fanout;
    const iters = Math.round(ms * itersPerMs);
    const req = await interleaveGuarded(names, opts.reps, async (v) => {
      const s = scheds.get(v);
      const a = s.stats();
      const r = await openLoop(Z.requests, Z.periodMs, () => s.run('fanout', k, iters));
      return { ...r, d: statsDelta(a, s.stats()) };
    }, repMs(opts), res);
    const g2 = `requests: fanout(${k} x ${ms} ms) every ${Z.periodMs} ms, ${Z.requests} requests`;
    for (const v of names) {
      const xs = req.get(v);
      if (!xs) continue;
      res.add({ group: g2, variant: v, metric: 'mean latency', unit: 'ms', better: 'lower', chart: true, values: xs.map((x) => mean(x.lat)),
        claim: v === 'global only' ? '42.6 ms' : '8.1 ms' });
      res.add({ group: g2, variant: v, metric: 'p99 latency', unit: 'ms', better: 'lower', values: xs.map((x) => quantile(x.lat, 0.99)) });
      res.add({ group: g2, variant: v, metric: 'sched.lock acquisitions/s', unit: 'k', better: 'lower', values: xs.map((x) => x.d.lockAcquisitions / x.ms),
        claim: v === 'global only' ? '18,300/s' : '210/s' });
    }
    res.note(`a request is a root task spawning ${k} children of ${ms} ms CPU each, joined by continuation; ` +
      `${((k * ms) / Z.periodMs / P * 100).toFixed(0)}% of ${P} Ps offered; latency is submit to result on the main thread`);
    res.note('seed claims: avg latency 42.6 ms and 18,300 lock acquisitions/s (global only) vs 8.1 ms and 210/s (local + global); its workload is not stated');
  } finally {
    await closeAll(scheds);
  }
  return res;
}

// ---- 2 and 3. victim order and victim hint ---------------------------------------------------

async function victims(Scheduler, opts, Z, itersPerMs) {
  const P = Math.max(4, 2 * opts.procs);
  const order = new Results('policies: victim order', `random (Go's coprime walk) vs round-robin, ${P} Ps on ${os.cpus().length} CPUs`, 'random');
  const hint = new Results('policies: victim hint', `try the last victim that had work first, on vs off, ${P} Ps on ${os.cpus().length} CPUs`, 'hint off');
  const scheds = await startAll(Scheduler, P, {
    random: { victimOrder: 'random' }, 'round-robin': { victimOrder: 'round-robin' }, 'random + hint': { victimOrder: 'random', victimHint: true },
  });
  const names = [...scheds.keys()];
  const label = (t, v) => (t === hint ? (v === 'random' ? 'hint off' : 'hint on') : v);
  const iters = skewedMix(Z.skewed, 0.1, 5, 0.1, itersPerMs);
  const expectFork = iters.reduce((a, k, i) => a + T.burn(null, k, i + 1), 0);
  try {
    for (const s of scheds.values()) { await s.run('fibc', 16); await s.run('skewfork', iters.slice(0, 20)); }
    const n = Z.fibc;
    const calls = fibcCalls(n);
    const fib = await interleaveGuarded(names, opts.reps, async (v) => {
      const s = scheds.get(v);
      const t0 = now();
      const { v: r, d } = await withStats(s, () => s.run('fibc', n));
      const ms = now() - t0;
      check(r === fibValue(n), `fibc(${n})`);
      return { ms, d };
    }, repMs(opts), order);
    const fork = await interleaveGuarded(names, opts.reps, async (v) => {
      const s = scheds.get(v);
      const t0 = now();
      const { v: r, d } = await withStats(s, () => s.run('skewfork', iters));
      const ms = now() - t0;
      check(r === expectFork, 'skewfork checksum');
      return { ms, d };
    }, repMs(opts), order);
    for (const t of [order, hint]) {
      const vs = t === order ? ['random', 'round-robin'] : ['random', 'random + hint'];
      const g1 = `fibc(${n}): ${calls.toLocaleString('en-US')} task calls`;
      const g2 = `skewed: ${Z.skewed} tasks spawned by one task`;
      for (const v of vs) {
        const xs = fib.get(v);
        if (!xs) continue;
        res(t, g1, label(t, v), 'task calls/s', 'M', 'higher', xs.map((x) => calls / x.ms / 1000), t === order ? (v === 'random' ? '48.2 Mops/s' : '42.6 Mops/s') : undefined, true);
        res(t, g1, label(t, v), 'steals per 1k Gs', '', 'info', xs.map((x) => (1000 * x.d.stealOps) / x.d.executed));
        res(t, g1, label(t, v), 'Gs per steal', '', 'info', xs.map((x) => x.d.stolen / Math.max(1, x.d.stealOps)));
      }
      for (const v of vs) {
        const xs = fork.get(v);
        if (!xs) continue;
        res(t, g2, label(t, v), 'makespan', 'ms', 'lower', xs.map((x) => x.ms), undefined, true);
        res(t, g2, label(t, v), 'steals', '', 'info', xs.map((x) => x.d.stealOps));
        res(t, g2, label(t, v), 'Gs per steal', '', 'info', xs.map((x) => x.d.stolen / Math.max(1, x.d.stealOps)));
      }
    }
    hint.failures.push(...order.failures.filter((f) => f.workload !== 'round-robin'));
    order.failures = order.failures.filter((f) => f.workload !== 'random + hint');
    order.note('seed claims (illustrative, many cores): random 48.2 vs round-robin 42.6 Mops/s, L3 misses 19.7% vs 12.3%, ' +
      'steal latency 84 vs 51 ns; cache misses and per-steal latency are not measurable from JavaScript');
    order.note(`${P} Ps: with 2 Ps each P has one victim and the order cannot matter; ${P} threads on ${os.cpus().length} CPUs take turns`);
    hint.note('the seed credits Go 1.22 with a "victim cache"; Go has none (that name belongs to sync.Pool); no figure is claimed');
  } finally {
    await closeAll(scheds);
  }
  return [order, hint];
}

function res(t, group, variant, metric, unit, better, values, claim, chart = false) {
  t.add({ group, variant, metric, unit, better, values, claim, chart });
}

// ---- 4. the spin / yield / park ladder ------------------------------------------------------

/** Process CPU time in ms (every thread): Node's cpuUsage, or Deno's equivalent. */
function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function ladder(Scheduler, opts, Z) {
  const P = opts.procs;
  const ncpu = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
  const dflt = Math.min(1024, 8 * ncpu);
  const variants = {
    [`default: spin 32, yield ${dflt}`]: {},
    'park at once: 0, 0': { spinLimit: 0, yieldLimit: 0 },
    'seed: spin 32, yield 1024': { spinLimit: 32, yieldLimit: 1024 },
    'long spin: 100000, 0': { spinLimit: 100000, yieldLimit: 0 },
  };
  const base = Object.keys(variants)[0];
  const t = new Results('policies: park ladder', `spin polls / 1 us waits before sleeping; a task every ${Z.ladder.gapMs} ms, ${P} Ps`, base);
  const scheds = await startAll(Scheduler, P, variants);
  const names = [...scheds.keys()];
  const { samples, gapMs } = Z.ladder;
  try {
    for (const s of scheds.values()) for (let i = 0; i < 5; i++) await s.run('stamp');
    const out = await interleaveGuarded(names, opts.reps, async (v) => {
      const s = scheds.get(v);
      await sleep(opts.quick ? 100 : 150); // every ladder, this one's and the last variant's, has reached its sleep
      const lat = [];
      const c0 = cpuMs();
      const t0 = now();
      for (let i = 0; i < samples; i++) {
        await sleep(gapMs);
        const ts = wallNow();
        const st = await s.run('stamp');
        lat.push((st - ts) * 1000);
      }
      const wall = now() - t0;
      return { lat, cpu: (cpuMs() - c0) / wall };
    }, repMs(opts), t);
    for (const v of names) {
      const xs = out.get(v);
      if (!xs) continue;
      t.add({ group: 'periodic small tasks', variant: v, metric: 'p50 spawn->start', unit: 'us', better: 'lower', chart: true, values: xs.map((x) => quantile(x.lat, 0.5)) });
      t.add({ group: 'periodic small tasks', variant: v, metric: 'p99 spawn->start', unit: 'us', better: 'lower', values: xs.map((x) => quantile(x.lat, 0.99)) });
      t.add({ group: 'periodic small tasks', variant: v, metric: 'process CPU', unit: '% of a core', better: 'lower', chart: true, values: xs.map((x) => x.cpu * 100),
        claim: v === base ? `+12.7% (8 x ncpu; metric unstated)` : v.startsWith('seed') ? '32 spins, 1024 yields, then 10 ms sleeps' : undefined });
    }
    t.note(`${samples} tasks per repetition, one every ${gapMs} ms; process CPU covers every thread, the main thread's timers included`);
    t.note(`a 1 us Atomics.wait costs far more than 1 us (timer slack): the ${dflt}-wait default spends about a millisecond before sleeping`);
  } finally {
    await closeAll(scheds);
  }
  return t;
}

// ---- 5. steal threshold under a mixed load -------------------------------------------------

async function threshold(Scheduler, opts, Z, itersPerMs) {
  const P = opts.procs;
  const variants = { 'fixed 1': { stealThreshold: 1 }, 'fixed 8': { stealThreshold: 8 }, load: { stealThreshold: 'load' } };
  const t = new Results('policies: steal threshold', `fixed vs load-derived, background fork-join + async I/O requests, ${P} Ps`, 'fixed 1');
  const scheds = await startAll(Scheduler, P, variants);
  const names = [...scheds.keys()];
  const M = Z.mixed;
  const iters = Math.round(M.ms * itersPerMs);
  const [bn, bcut] = M.bg;
  try {
    for (const s of scheds.values()) { await s.run('ioreq', M.k, iters); await s.run('fibcut', bn - 4, bcut); }
    const out = await interleaveGuarded(names, opts.reps, async (v) => {
      const s = scheds.get(v);
      let stop = false;
      let bgDone = 0;
      // Background: two CPU-bound fork-join jobs in flight at all times (closed loop).
      const bg = [0, 1].map(async () => {
        while (!stop) { check(await s.run('fibcut', bn, bcut) === fibValue(bn), 'background fibcut'); bgDone++; }
      });
      await sleep(5);
      const a = s.stats();
      const r = await openLoop(M.requests, M.periodMs, () => s.run('ioreq', M.k, iters));
      const d = statsDelta(a, s.stats());
      stop = true;
      await Promise.all(bg);
      return { ...r, d, bgDone };
    }, repMs(opts), t);
    const g = `ioreq(${M.k} x ${M.ms} ms + file read) every ${M.periodMs} ms over fibcut(${bn}, ${bcut}) x 2`;
    for (const v of names) {
      const xs = out.get(v);
      if (!xs) continue;
      t.add({ group: g, variant: v, metric: 'p50 latency', unit: 'ms', better: 'lower', values: xs.map((x) => quantile(x.lat, 0.5)) });
      t.add({ group: g, variant: v, metric: 'p99 latency', unit: 'ms', better: 'lower', chart: true, values: xs.map((x) => quantile(x.lat, 0.99)),
        claim: v === 'fixed 1' ? '42.6 ms (fixed)' : v === 'load' ? '24.8 ms (dynamic)' : undefined });
      t.add({ group: g, variant: v, metric: 'background jobs/s', better: 'higher', chart: true, values: xs.map((x) => (x.bgDone * 1000) / x.ms) });
      t.add({ group: g, variant: v, metric: 'steals/s', unit: 'k', better: 'info', values: xs.map((x) => x.d.stealOps / x.ms) });
    }
    t.note(`${M.requests} requests per repetition; a request forks ${M.k} CPU children, awaits them, reads a file and burns ${M.ms} ms more; ` +
      'its G waits without its P meanwhile');
    t.note("'load' steals only from a P holding at least a quarter of the busy Ps' average queue (halved when many Ps idle), never below 1");
  } finally {
    await closeAll(scheds);
  }
  return t;
}

export async function runPolicies(opts) {
  const { Scheduler } = await loadStealwork();
  const Z = policySizes(opts.quick);
  const itersPerMs = calibrateBurn();
  const tables = [];
  const watchdog = opts.quick ? 60_000 : 120_000;
  // A comparison that fails (a wrong result, a crashed worker) is reported as such; the others run.
  const attempt = async (name, fn) => {
    try {
      const t = await withWatchdog(fn(), watchdog, `policies: ${name}`);
      tables.push(...(Array.isArray(t) ? t : [t]));
    } catch (e) {
      const t = new Results(`policies: ${name}`, 'failed', '-');
      t.failures.push({ workload: name, error: String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ') });
      console.log(`  ! policies: ${name} failed: ${e?.message ?? e}`);
      tables.push(t);
    }
  };
  await attempt('global queue only', () => globalOnly(Scheduler, opts, Z, itersPerMs));
  await attempt('victim order and hint', () => victims(Scheduler, opts, Z, itersPerMs));
  await attempt('park ladder', () => ladder(Scheduler, opts, Z));
  await attempt('steal threshold', () => threshold(Scheduler, opts, Z, itersPerMs));
  return tables;
}

if (isMain(import.meta)) {
  const opts = parseArgs(process.argv.slice(2));
  guardRejections();
  header('policies', opts);
  const t0 = now();
  const tables = await runPolicies(opts);
  for (const t of tables) printTable(t, opts.reps);
  console.log(`\npolicies suite: ${((now() - t0) / 1000).toFixed(1)} s`);
  if (tables.some((t) => t.failures.length)) process.exitCode = 1;
  if (opts.json) writeJSON(opts.json, suiteJSON('policies', tables, opts, policySizes(opts.quick), (now() - t0) / 1000));
  await finishProcess();
}
