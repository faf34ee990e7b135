// The engine matrix (issue #13 item 4): the README's "Use" example (examples/readme/, the very
// files the README shows) and a heavier fork-join (forkjoin.js: fibc(30) on 4 Ps, Wasm and
// TypeScript cores) run again and again on every engine the README promises, each run a fresh
// process (a fresh page in Chromium), checked for the right output (fibc(30) = 832040,
// fib(20) = 6765) and exit status 0; a program that never calls close() (test/lifecycle/
// no-close.mjs) must end by itself; then the thread stress test (test/core-threads.test.ts)
// runs under vitest on that engine, where it can (not in a browser: it needs worker_threads).
//
//   node test/engines/run.mjs                                 the whole matrix (npm run test:engines)
//   node test/engines/run.mjs --engine deno --runs 100 --workloads readme
//                                                             100 runs of the README example on Deno
//
// Options: --engine NAME[,NAME] (node20 node22 node24 node26 deno bun chromium; default all),
// --runs N (per workload; default per engine, engines.mjs; the exit workload at most 3),
// --workloads readme,forkjoin,exit,stress (default all four), --hang-s S (default 120: a run still going after S seconds is killed and
// counted as a hang failure; the stress test gets 5 x S), --max-failures N (stop an engine's runs
// after N failures, 0 = never; the line says so).
//
// The bound is a hang detector, not a wait the result depends on: a README run takes about 3 s
// of CPU time, a fork-join run about 8 s, so 120 s only ends a run that has stopped making
// progress (on a loaded 2-CPU machine they took up to 30 s).
//
// Prints each failure as it happens, then one line per engine (runs, failures, and what
// failed), and a closing `engines: N passed, N failed` over the engines; exits 1 on any failure,
// and on an engine that cannot run here under CI=true (elsewhere it is skipped with the reason).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES, prepare, root } from './engines.mjs';

const WORKLOADS = ['readme', 'forkjoin', 'exit', 'stress'];
const SCRIPTS = {
  readme: join(root, 'examples', 'readme', 'main.mjs'),
  forkjoin: join(root, 'test', 'engines', 'forkjoin.js'),
  exit: join(root, 'test', 'lifecycle', 'no-close.mjs'),
};
/** The exit workload is a program that never calls close() and must end by itself; a few runs
 *  per engine tell a hang (test/lifecycle.test.ts has the cases on this Node, Deno and Bun). */
const EXIT_RUNS = 3;
const inCI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/** The options, checked eagerly. */
function parseArgs(argv) {
  const o = { engines: ENGINES.map((e) => e.name), runs: null, workloads: WORKLOADS, hangS: 120, maxFailures: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    const count = (name) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a whole number, got ${v}`);
      i++;
      return n;
    };
    const list = (name, allowed) => {
      const xs = String(v ?? '').split(',').filter(Boolean);
      const bad = xs.filter((x) => !allowed.includes(x));
      if (xs.length === 0 || bad.length !== 0) throw new RangeError(`${name}: ${bad.join(', ') || '(none)'} is not one of ${allowed.join(', ')}`);
      i++;
      return xs;
    };
    if (a === '--engine') o.engines = list('--engine', ENGINES.map((e) => e.name));
    else if (a === '--workloads') o.workloads = list('--workloads', WORKLOADS);
    else if (a === '--runs') o.runs = count('--runs');
    else if (a === '--hang-s') { o.hangS = count('--hang-s'); if (o.hangS === 0) throw new RangeError('--hang-s must be at least 1'); }
    else if (a === '--max-failures') o.maxFailures = count('--max-failures');
    else throw new TypeError(`unknown option ${a} (see the comment at the top of test/engines/run.mjs)`);
  }
  return o;
}

/**
 * Runs argv in its own process group from the repository root; resolves when it exits, or when
 * it has run hangMs, after killing the whole group (vitest's forks included).
 */
function runProcess(argv, hangMs) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(argv[0], argv.slice(1), {
      cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, // Deno reads any FORCE_COLOR as on
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    let hung = false;
    let cpuS = null;
    const timer = setTimeout(() => {
      hung = true;
      cpuS = cpuSeconds(child.pid);
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone already */ }
    }, hangMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, hung, cpuS, stdout, stderr, ms: performance.now() - t0 });
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, hung: false, stdout, stderr: `${stderr}\nspawn failed: ${e.message}`, ms: performance.now() - t0 });
    });
  });
}

/** CPU seconds a process (all its threads) has used, from /proc (Linux; null elsewhere): tells
 *  a hung run that spins from one whose threads all sleep. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/** What is wrong with a workload's output, or null. */
function checkOutput(workload, stdout) {
  const lines = stdout.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trimEnd()); // colours are not output
  if (workload === 'readme') {
    if (lines[0] !== '832040') return `printed ${JSON.stringify(lines[0])} first, not 832040 (fibc(30))`;
    if (!/^6765\b/.test(lines[1] ?? '')) return `printed ${JSON.stringify(lines[1])} second, not 6765 (fib(20)) and the totals`;
    return null;
  }
  if (workload === 'forkjoin') {
    const want = ['fibc(30) wasm 832040', 'fibc(30) js 832040'];
    const got = lines.filter((l) => l.startsWith('fibc('));
    return JSON.stringify(got) === JSON.stringify(want) ? null : `printed ${JSON.stringify(got)}, not ${JSON.stringify(want)}`;
  }
  if (workload === 'exit') {
    const want = ['6765', 'late', 'root done', 'exit detached=1'];
    const got = lines.filter(Boolean);
    return JSON.stringify(got) === JSON.stringify(want) ? null : `printed ${JSON.stringify(got)}, not ${JSON.stringify(want)}`;
  }
  // stress: vitest's summary; its exit status says the rest.
  return /Tests\s+\d+ passed/.test(stdout) && !/\d+ failed/.test(stdout) ? null : 'vitest did not report every test passed';
}

/** The first line of the output that names an error, else its last line. */
function firstError(r) {
  const lines = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /error|failed|panic|abort|fatal/i.test(l)) ?? lines.at(-1) ?? '(no output)';
}

/** Why a run failed, or null. */
function verdict(workload, r, hangMs) {
  if (r.hung) {
    const said = `${r.stderr}\n${r.stdout}`.trim() === '' ? 'no output' : `its output so far: ${firstError(r)}`;
    const cpu = r.cpuS == null ? '' : `, having used ${r.cpuS.toFixed(1)} s of CPU`;
    return `hang: still running after ${hangMs / 1000} s${cpu}, killed (${said})`;
  }
  if (r.code !== 0) return `exit ${r.code ?? r.signal}: ${firstError(r)}`;
  const bad = checkOutput(workload, r.stdout);
  return bad === null ? null : `wrong output: ${bad}`;
}

/** Runs the chosen workloads on one engine; resolves with its summary. */
async function runEngine(engine, o) {
  let ready;
  try {
    ready = await prepare(engine);
  } catch (e) {
    return { engine, skipped: e.message, failures: inCI ? 1 : 0, runs: 0, parts: [] };
  }
  const runs = o.runs ?? engine.runs;
  const browser = engine.kind === 'browser' ? await (await import('./browser.mjs')).openBrowser() : null;
  const parts = [];
  let failures = 0;
  let total = 0;
  try {
    for (const workload of o.workloads) {
      const part = { workload, runs: 0, failures: 0, hangs: 0, ms: [], stopped: false, na: null };
      parts.push(part);
      if (workload === 'stress' && ready.vitest === null) { part.na = 'needs worker_threads'; continue; }
      if (workload === 'exit' && browser !== null) { part.na = 'a page does not exit'; continue; }
      const n = workload === 'stress' ? 1 : workload === 'exit' ? Math.min(runs, EXIT_RUNS) : runs;
      const hangMs = (workload === 'stress' ? 5 : 1) * o.hangS * 1000;
      for (let i = 1; i <= n; i++) {
        const r = workload === 'stress'
          ? await runProcess(ready.vitest('run', 'test/core-threads.test.ts'), hangMs)
          : browser !== null ? await browser.run(workload, hangMs) : await runProcess(ready.command(SCRIPTS[workload]), hangMs);
        part.runs++;
        total++;
        part.ms.push(r.ms);
        const why = verdict(workload, r, hangMs);
        if (why !== null) {
          part.failures++;
          failures++;
          if (r.hung) part.hangs++;
          console.log(`  ${engine.name} ${workload} run ${i}: ${why}`);
        }
        if (o.maxFailures > 0 && failures >= o.maxFailures && i < n) {
          part.stopped = true;
          break;
        }
      }
      if (part.stopped) break;
    }
  } finally {
    await browser?.close();
  }
  return { engine, version: ready.version, runs: total, failures, parts };
}

/** One line per engine: runs and failures, then each workload's. */
function line(s) {
  const name = s.engine.name.padEnd(9);
  if (s.skipped !== undefined) return `${name} ${inCI ? 'FAILED' : 'skipped'}: ${s.skipped}`;
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
  const parts = s.parts.map((p) => {
    if (p.na !== null) return `${p.workload} n/a (${p.na})`;
    const hangs = p.hangs > 0 ? `, ${p.hangs} hung` : '';
    const stopped = p.stopped ? `, stopped after ${s.failures} failures` : '';
    return `${p.workload} ${p.runs - p.failures}/${p.runs} ok${hangs}${stopped} (median ${(median(p.ms) / 1000).toFixed(1)} s, max ${(Math.max(0, ...p.ms) / 1000).toFixed(1)} s)`;
  });
  return `${name} ${s.version}: ${s.runs} runs, ${s.failures} failures; ${parts.join('; ')}`;
}

const o = parseArgs(process.argv.slice(2));
const summaries = [];
for (const name of o.engines) {
  const engine = ENGINES.find((e) => e.name === name);
  const t0 = performance.now();
  const s = await runEngine(engine, o);
  summaries.push(s);
  console.log(`${line(s)} [${((performance.now() - t0) / 1000).toFixed(0)} s]`);
}
const failed = summaries.filter((s) => s.failures > 0).length;
const skipped = summaries.filter((s) => s.skipped !== undefined && s.failures === 0).length;
console.log(`engines: ${summaries.length - failed - skipped} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 ? 1 : 0;
