// The benchmark runner: every suite in its own process (a clean heap and fresh threads each),
// their tables streamed as they print, then one JSON of every figure, the SVG charts and the
// transcript of the run.
//
//   node bench/run.mjs [--quick] [--reps N] [--procs N] [--threads LIST] [--suite NAME[,NAME]]
//                      [--json PATH] [--svg PATH] [--publish]
//
// Suites: scheduler (wasm vs js backend), pools (vs piscina and tinypool), policies (the seed
// article's comparisons), priorities (urgent work behind bulk, three classes sharing the Ps),
// workloads (UTS T1/T3, N-Queens, merge sort, Mandelbrot beside one JS thread, piscina, Go and
// rayon, at each of --threads: 1 and --procs unless given), queue (bench/queue.mjs, the
// run-queue micro-benchmarks), scale (bench/scale.mjs's per-task counts only, procs 2 to 64;
// quick: the small trees at procs 2, 8, 32, 64; its times and idle CPU only when run alone).
// Defaults: full sizes, 5 repetitions (3 with --quick), 2 Ps, every suite. Writes latest.json,
// the charts (lib/charts.mjs: chart.svg, wasm-vs-ts.svg, speedup.svg, scale.svg, each when its
// suite ran) and latest.txt into bench/out/ (not tracked); --publish writes them into
// bench/results/, the figures docs/performance.md shows, and only from a quiet machine: before
// the first suite and after the last, lib/quiet.mjs checks the load average and that CPU loops
// in --procs workers at once run about --procs times as fast as one; when either check fails
// it says why and exits 1, writing nothing there (after the run, the figures go to bench/out/).
// Needs the build (npm run build).

import os from 'node:os';
import process from 'node:process';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/flags.mjs';
import { loadavg, machine, versions } from './lib/machine.mjs';
import { writeJSON } from './lib/output.mjs';
import { drawCharts } from './lib/charts.mjs';
import { quiet } from './lib/quiet.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const SUITES = ['scheduler', 'pools', 'policies', 'priorities', 'workloads', 'queue', 'scale'];

const opts = parseArgs(process.argv.slice(2));
/** Where the run's files go: bench/out/ (untracked), or with --publish the README's bench/results/. */
const dir = here(opts.publish ? './results/' : './out/');
/** The repository's root: the transcript names files relative to it. */
const root = here('../');
const rel = (p) => relative(root, p) || '.';
const jsonPath = opts.json ?? join(dir, 'latest.json');
const svgPath = opts.svg ?? join(dir, 'chart.svg');
mkdirSync(dir, { recursive: true });

/** Everything the run prints, its suites' output included, for latest.txt. */
const transcript = [];
function say(text = '') {
  process.stdout.write(`${text}\n`);
  transcript.push(`${text}\n`);
}

/** Runs a suite's process, streaming its output to ours and to the transcript; its exit status
 *  (or the signal's name). */
function runSuite(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      transcript.push(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ status: code, signal }));
  });
}
const suites = opts.suites.length ? opts.suites : SUITES;
for (const s of suites) if (!SUITES.includes(s)) throw new TypeError(`--suite ${s}: no such suite (${SUITES.join(', ')})`);
/**
 * A partial publish (--publish with --suite naming fewer than every suite) replaces only those
 * suites in the published latest.json (each suite keeps its own date and machine) and redraws
 * the chart; its transcript goes to <suites>.txt beside latest.txt, which stays the full run's.
 */
const partial = opts.publish && suites.length < SUITES.length && existsSync(jsonPath);
const txtPath = join(dir, partial ? `${suites.join('-')}.txt` : 'latest.txt');

/** The workloads suite's thread counts: --threads, else 1 and --procs (the speed-up curves). */
function workloadThreads() {
  return opts.threads.length ? opts.threads : [...new Set([1, opts.procs])];
}

/** A suite's command line after its script and --json: each takes its own flags. */
function suiteArgs(s) {
  // queue.mjs takes only --quick; scale.mjs its own procs list, and here only its counts (its
  // times need minutes of rounds on a quiet machine: run it alone for those).
  if (s === 'queue') return opts.quick ? ['--quick'] : [];
  if (s === 'scale') return ['--skip-times', ...(opts.quick ? ['--quick', '--procs', '2,8,32,64'] : [])];
  const args = [...(opts.quick ? ['--quick'] : []), '--reps', String(opts.reps), '--procs', String(opts.procs)];
  if (s === 'workloads') args.push('--threads', workloadThreads().join(','));
  return args;
}

/** --publish on a machine that is not quiet (lib/quiet.mjs): says why and exits 1; nothing was
 *  or will be written into bench/results/. */
function refusePublish(when, why) {
  console.error(`bench: --publish refused ${when}: ${why}. Nothing was written to bench/results/; ` +
    'run it again on a quiet machine (or without --publish, into bench/out/).');
  process.exit(1);
}
if (opts.publish) {
  const q = await quiet(opts.procs);
  say(q.line);
  if (!q.ok) refusePublish('before the run', q.why);
}

const started = performance.now();
const m0 = machine();
say(`stealwork bench: ${suites.join(', ')}; ${opts.quick ? 'quick' : 'full'} run, ${opts.reps} repetitions, ${opts.procs} Ps; ` +
  `node ${process.version}, ${m0.cpus} CPUs (${m0.model}), ${m0.memoryMB} MiB, load average ${loadavg()}`);

const out = {
  date: new Date().toISOString(),
  machine: m0,
  versions: versions(),
  options: { quick: opts.quick, reps: opts.reps, procs: opts.procs, threads: workloadThreads(), suites },
  seconds: {},
  suites: {},
};

for (const s of suites) {
  const file = here(`./${s}.mjs`);
  if (!existsSync(file)) {
    say(`\n(bench/${s}.mjs is not there: suite ${s} skipped)`);
    continue;
  }
  const tmp = join(dir, `${s}.tmp`);
  const args = [rel(file), '--json', rel(tmp), ...suiteArgs(s)];
  say();
  const t0 = performance.now();
  const load0 = os.loadavg();
  const r = await runSuite(args);
  out.seconds[s] = (performance.now() - t0) / 1000;
  // A suite whose workload failed still writes the figures of the others (exit code 1).
  const wrote = existsSync(tmp);
  if (wrote) {
    out.suites[s] = { ...JSON.parse(readFileSync(tmp, 'utf8')), load: { start: load0, end: os.loadavg() } };
    rmSync(tmp, { force: true });
    if (r.status !== 0) out.suites[s].exit = r.status ?? r.signal;
  } else {
    out.suites[s] = { failed: true, exit: r.status ?? r.signal };
  }
  if (r.status !== 0) say(`(${s}: exit ${r.status ?? r.signal}${wrote ? '' : ', no figures written'})`);
  say(`(${s}: ${out.seconds[s].toFixed(1)} s)`);
}

out.seconds.total = (performance.now() - started) / 1000;
out.machine.loadavgEnd = os.loadavg();
if (opts.publish) {
  // The machine may have got busy during the run: the figures are kept, in bench/out/.
  const q = await quiet(opts.procs);
  say(q.line);
  if (!q.ok) {
    const outDir = here('./out/');
    mkdirSync(outDir, { recursive: true });
    writeJSON(join(outDir, 'latest.json'), out);
    writeFileSync(join(outDir, 'latest.txt'), transcript.join(''));
    refusePublish(`after the run (its figures are in ${rel(join(outDir, 'latest.json'))} and latest.txt)`, q.why);
  }
}
let published = out;
if (partial) {
  published = JSON.parse(readFileSync(jsonPath, 'utf8'));
  for (const s of suites) {
    published.suites[s] = { ...out.suites[s], transcript: txtPath.slice(dir.length), seconds: out.seconds[s] };
  }
  published.options.suites = [...new Set([...published.options.suites, ...suites])];
}
writeJSON(jsonPath, published);
// Every chart whose suite is in the results: chart.svg where --svg says, the others beside it.
mkdirSync(dirname(svgPath), { recursive: true });
const charts = drawCharts(published).map(({ file, svg }) => {
  const path = file === 'chart.svg' ? svgPath : join(dirname(svgPath), file);
  writeFileSync(path, svg);
  return rel(path);
});
say(`\nwrote ${rel(jsonPath)}${partial ? ` (${suites.join(', ')} replaced)` : ''}, ${charts.join(', ')} and ${rel(txtPath)}${opts.publish ? ' (the published figures)' : ''}`);
say(`total ${out.seconds.total.toFixed(1)} s (${Object.entries(out.seconds).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}); ` +
  `load average at the end ${loadavg()}`);
writeFileSync(txtPath, transcript.join(''));
if (Object.values(out.suites).some((x) => x.failed || x.exit)) process.exitCode = 1;
