// The benchmark runner: every suite in its own process (a clean heap and fresh threads each),
// their tables streamed as they print, then one JSON of every figure and an SVG chart.
//
//   node bench/run.mjs [--quick] [--reps N] [--procs N] [--suite NAME[,NAME]]
//                      [--json PATH] [--svg PATH]
//
// Suites: scheduler (wasm vs js backend), pools (vs piscina and tinypool), policies (the seed
// article's comparisons), priorities (urgent work behind bulk, three classes sharing the Ps),
// queue (bench/queue.mjs, the run-queue micro-benchmarks, when present).
// Defaults: full sizes, 5 repetitions (3 with --quick), 2 Ps, every suite,
// bench/results/latest.json and bench/results/chart.svg. Needs the build (npm run build).

import process from 'node:process';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg, machine, parseArgs, versions, writeJSON } from './common.mjs';
import { drawChart } from './svg.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const SUITES = ['scheduler', 'pools', 'policies', 'priorities', 'queue'];

const opts = parseArgs(process.argv.slice(2), { json: here('./results/latest.json'), svg: here('./results/chart.svg') });
const suites = opts.suites.length ? opts.suites : SUITES;
for (const s of suites) if (!SUITES.includes(s)) throw new TypeError(`--suite ${s}: no such suite (${SUITES.join(', ')})`);

const started = performance.now();
const m0 = machine();
console.log(`stealwork bench: ${suites.join(', ')}; ${opts.quick ? 'quick' : 'full'} run, ${opts.reps} repetitions, ${opts.procs} Ps; ` +
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
    console.log(`\n(bench/${s}.mjs is not there: suite ${s} skipped)`);
    continue;
  }
  const tmp = here(`./results/${s}.tmp`);
  mkdirSync(dirname(tmp), { recursive: true });
  const args = [file, '--json', tmp];
  if (opts.quick) args.push('--quick');
  // queue.mjs takes only --quick and --json; the others take the repetitions and Ps too.
  if (s !== 'queue') args.push('--reps', String(opts.reps), '--procs', String(opts.procs));
  console.log('');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
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
  if (r.status !== 0) console.log(`(${s}: exit ${r.status ?? r.signal}${wrote ? '' : ', no figures written'})`);
  console.log(`(${s}: ${out.seconds[s].toFixed(1)} s)`);
}

out.seconds.total = (performance.now() - started) / 1000;
out.machine.loadavgEnd = (await import('node:os')).default.loadavg();
writeJSON(opts.json, out);
mkdirSync(dirname(opts.svg), { recursive: true });
writeFileSync(opts.svg, drawChart(out));
console.log(`\nwrote ${opts.json} and ${opts.svg}`);
console.log(`total ${out.seconds.total.toFixed(1)} s (${Object.entries(out.seconds).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}); ` +
  `load average at the end ${loadavg()}`);
if (Object.values(out.suites).some((x) => x.failed || x.exit)) process.exitCode = 1;
