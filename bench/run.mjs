// The benchmark runner: every suite in its own process (a clean heap and fresh threads each),
// their tables streamed as they print, then one JSON of every figure, an SVG chart and the
// transcript of the run.
//
//   node bench/run.mjs [--quick] [--reps N] [--procs N] [--suite NAME[,NAME]]
//                      [--json PATH] [--svg PATH] [--publish]
//
// Suites: scheduler (wasm vs js backend), pools (vs piscina and tinypool), policies (the seed
// article's comparisons), priorities (urgent work behind bulk, three classes sharing the Ps),
// workloads (UTS T1/T3, N-Queens, merge sort, Mandelbrot beside one JS thread, piscina and Go),
// queue (bench/queue.mjs, the run-queue micro-benchmarks, when present).
// Defaults: full sizes, 5 repetitions (3 with --quick), 2 Ps, every suite. Writes latest.json,
// chart.svg and latest.txt into bench/out/ (not tracked); --publish writes them into
// bench/results/, the figures the README shows. Needs the build (npm run build).

import process from 'node:process';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/flags.mjs';
import { loadavg, machine, versions } from './lib/machine.mjs';
import { writeJSON } from './lib/output.mjs';
import { drawChart } from './svg.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const SUITES = ['scheduler', 'pools', 'policies', 'priorities', 'workloads', 'queue'];

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

const started = performance.now();
const m0 = machine();
say(`stealwork bench: ${suites.join(', ')}; ${opts.quick ? 'quick' : 'full'} run, ${opts.reps} repetitions, ${opts.procs} Ps; ` +
  `node ${process.version}, ${m0.cpus} CPUs (${m0.model}), ${m0.memoryMB} MiB, load average ${loadavg()}`);

const out = {
  date: new Date().toISOString(),
  machine: m0,
  versions: versions(),
  options: { quick: opts.quick, reps: opts.reps, procs: opts.procs, suites },
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
  const args = [rel(file), '--json', rel(tmp)];
  if (opts.quick) args.push('--quick');
  // queue.mjs takes only --quick and --json; the others take the repetitions and Ps too.
  if (s !== 'queue') args.push('--reps', String(opts.reps), '--procs', String(opts.procs));
  say();
  const t0 = performance.now();
  const r = await runSuite(args);
  out.seconds[s] = (performance.now() - t0) / 1000;
  // A suite whose workload failed still writes the figures of the others (exit code 1).
  const wrote = existsSync(tmp);
  if (wrote) {
    out.suites[s] = JSON.parse(readFileSync(tmp, 'utf8'));
    rmSync(tmp, { force: true });
    if (r.status !== 0) out.suites[s].exit = r.status ?? r.signal;
  } else {
    out.suites[s] = { failed: true, exit: r.status ?? r.signal };
  }
  if (r.status !== 0) say(`(${s}: exit ${r.status ?? r.signal}${wrote ? '' : ', no figures written'})`);
  say(`(${s}: ${out.seconds[s].toFixed(1)} s)`);
}

out.seconds.total = (performance.now() - started) / 1000;
out.machine.loadavgEnd = (await import('node:os')).default.loadavg();
let published = out;
if (partial) {
  published = JSON.parse(readFileSync(jsonPath, 'utf8'));
  for (const s of suites) {
    published.suites[s] = { ...out.suites[s], transcript: txtPath.slice(dir.length), seconds: out.seconds[s] };
  }
  published.options.suites = [...new Set([...published.options.suites, ...suites])];
}
writeJSON(jsonPath, published);
mkdirSync(dirname(svgPath), { recursive: true });
writeFileSync(svgPath, drawChart(published));
say(`\nwrote ${rel(jsonPath)}${partial ? ` (${suites.join(', ')} replaced)` : ''}, ${rel(svgPath)} and ${rel(txtPath)}${opts.publish ? ' (the published figures)' : ''}`);
say(`total ${out.seconds.total.toFixed(1)} s (${Object.entries(out.seconds).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}); ` +
  `load average at the end ${loadavg()}`);
writeFileSync(txtPath, transcript.join(''));
if (Object.values(out.suites).some((x) => x.failed || x.exit)) process.exitCode = 1;
