// What every suite shares: command-line flags, timing, statistics over repetitions, the table
// every suite prints, machine facts and the JSON a suite writes. Runs under Node and Deno.
//
// A figure is a Row: one workload, one variant (a backend, a pool, a policy), one metric, the
// value of every repetition, and its ratio to the suite's baseline variant for that workload
// and metric, measured in the same run. Nothing here knows a number in advance.

import os from 'node:os';
import process from 'node:process';
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const isDeno = typeof globalThis.Deno?.version?.deno === 'string';

/** The package as a user imports it, from the build (`npm run build`). */
export async function loadStealwork() {
  try {
    return await import('../dist/bindings/index.js');
  } catch (e) {
    throw new Error(`bench needs the build in dist/ (run npm run build first): ${e.message}`);
  }
}

export const TASKS_URL = new URL('./tasks.mjs', import.meta.url);

// ---- flags -------------------------------------------------------------------------------

const FLAGS = '--quick, --reps N, --procs N, --json PATH, --suite NAME, --svg PATH, --publish';

/**
 * Parses the flags every entry point accepts. `defaults` gives json/svg defaults (run.mjs);
 * a suite run alone writes JSON only when asked.
 */
export function parseArgs(argv, defaults = {}) {
  const o = { quick: false, reps: 0, procs: 2, json: defaults.json ?? null, svg: defaults.svg ?? null, suites: [], publish: false };
  const value = (i, name) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new TypeError(`${name} needs a value`);
    return v;
  };
  const int = (i, name, min) => {
    const v = Number(value(i, name));
    if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${argv[i + 1]}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--reps') { o.reps = int(i, a, 1); i++; }
    else if (a === '--procs') { o.procs = int(i, a, 1); i++; }
    else if (a === '--json') { o.json = value(i, a); i++; }
    else if (a === '--svg') { o.svg = value(i, a); i++; }
    else if (a === '--suite') { o.suites.push(...value(i, a).split(',')); i++; }
    else if (a === '--publish') o.publish = true;
    else throw new TypeError(`unknown argument ${a} (flags: ${FLAGS})`);
  }
  if (o.reps === 0) o.reps = o.quick ? 3 : 5;
  setWatchdog(o.quick ? 20_000 : 120_000);
  return o;
}

/** True when the module whose `import.meta` is given is the script the runtime started with. */
export function isMain(meta) {
  if (typeof meta.main === 'boolean') return meta.main; // Deno (and newer Node)
  const script = process.argv[1];
  if (!script) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === meta.url;
  } catch {
    return false;
  }
}

// ---- time and statistics -----------------------------------------------------------------

export const now = () => performance.now();
/** Wall-clock milliseconds comparable across threads (each thread has its own timeOrigin). */
export const wallNow = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** The q-quantile (0..1) by the nearest-rank method. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A seeded 32-bit generator (xorshift32), so shuffles and trees repeat run to run. */
export function rng(seed) {
  let x = (seed >>> 0) || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

export function shuffle(xs, seed) {
  const r = rng(seed);
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

// ---- rows and tables ---------------------------------------------------------------------

/**
 * Collects the figures of one suite. `add` takes the per-repetition values; ratios are filled
 * in by `finish` against the baseline variant of the same workload and metric.
 */
export class Results {
  constructor(suite, title, baseline) {
    this.suite = suite;
    this.title = title;
    this.baseline = baseline;
    this.rows = [];
    this.notes = [];
    this.failures = [];
    this.extra = {};
  }

  /**
   * One figure. better: 'higher' | 'lower' | 'info' (a count that explains, neither good nor bad). group: the workload. values: one per repetition.
   * baseline: override the suite's baseline variant for this row's group. claim: the seed
   * article's figure to print beside ours. chart: this metric stands for its workload in the SVG.
   */
  add({ group, variant, metric, unit = '', better = 'higher', values, detail, baseline, claim, chart }) {
    const vs = values.filter((v) => Number.isFinite(v));
    const row = {
      group, variant, metric, unit, better, values,
      median: median(vs), min: Math.min(...vs), max: Math.max(...vs),
      baseline: baseline ?? this.baseline, ratio: NaN,
    };
    if (detail !== undefined) row.detail = detail;
    if (claim !== undefined) row.claim = claim;
    if (chart) row.chart = true;
    this.rows.push(row);
    return row;
  }

  note(s) {
    this.notes.push(s);
  }

  /**
   * Runs one workload's block; an error (a wrong result, a crashed worker) is recorded and
   * printed with the table instead of ending the suite, so the other workloads still report.
   */
  async attempt(name, fn, ms = watchdogMs) {
    try {
      await withWatchdog(fn(), ms, `${this.suite}: ${name}`);
    } catch (e) {
      this.failures.push({ workload: name, error: String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ') });
      console.log(`  ! ${this.suite}: ${name} failed: ${e?.message ?? e}`);
    }
  }

  finish() {
    for (const r of this.rows) {
      const b = this.rows.find((x) => x.group === r.group && x.metric === r.metric && x.variant === r.baseline);
      r.ratio = b !== undefined && b.median !== 0 ? r.median / b.median : NaN;
    }
    return this;
  }

  toJSON() {
    return { suite: this.suite, title: this.title, baseline: this.baseline, rows: this.rows, notes: this.notes, failures: this.failures, ...this.extra };
  }
}

/** A number in a short human form: 3 significant digits, no exponent. */
export function fmt(x) {
  if (!Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (a >= 1e4) return x.toFixed(0);
  if (a >= 100) return x.toFixed(1);
  if (a >= 10) return x.toFixed(2);
  if (a >= 1) return x.toFixed(3);
  if (a === 0) return '0';
  return x.toPrecision(3);
}

/** Prints a suite's table: median and min..max over repetitions, and the ratio to the baseline. */
export function printTable(res, reps) {
  res.finish();
  console.log(`\n== ${res.suite}: ${res.title}`);
  if (res.rows.length === 0) {
    for (const f of res.failures) console.log(`   FAILED ${f.workload}: ${f.error}`);
    return;
  }
  console.log(`   median and [min .. max] over ${reps} repetitions; ratio = median / median of '${res.baseline}' (same workload, same run); ` +
    "better: which direction is good ('info': an explanatory count)");
  const cols = ['workload', 'variant', 'metric', 'better', 'median', 'min .. max', 'ratio'];
  const hasClaim = res.rows.some((r) => r.claim !== undefined);
  if (hasClaim) cols.push('seed claims');
  const lines = [];
  let last = null;
  for (const r of res.rows) {
    const line = [
      r.group === last ? '' : r.group,
      r.variant,
      r.unit ? `${r.metric} (${r.unit})` : r.metric,
      r.better,
      fmt(r.median),
      `${fmt(r.min)} .. ${fmt(r.max)}`,
      r.variant === r.baseline ? 'base' : Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}x` : '-',
    ];
    if (hasClaim) line.push(r.claim ?? '');
    last = r.group;
    lines.push(line);
  }
  for (const f of res.failures) console.log(`   FAILED ${f.workload}: ${f.error}`);
  const w = cols.map((c, i) => Math.max(c.length, ...lines.map((l) => String(l[i]).length)));
  const right = new Set([4, 5, 6]);
  const out = (l) => console.log('  ' + l.map((v, i) => (right.has(i) ? String(v).padStart(w[i]) : String(v).padEnd(w[i]))).join('  ').trimEnd());
  out(cols);
  out(w.map((n) => '-'.repeat(n)));
  for (const l of lines) out(l);
  for (const n of res.notes) console.log(`  * ${n}`);
}

// ---- machine and output ------------------------------------------------------------------

let denoVersion;
/** Deno's version: this runtime's when running under Deno, else the one in node_modules, if any. */
export function getDenoVersion() {
  if (denoVersion !== undefined) return denoVersion;
  if (isDeno) return (denoVersion = globalThis.Deno.version.deno);
  denoVersion = null;
  const bin = fileURLToPath(new URL('../node_modules/.bin/deno', import.meta.url));
  try {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const m = /deno (\S+)/.exec(r.stdout ?? '');
    if (m) denoVersion = m[1];
  } catch { /* no deno: leave null */ }
  return denoVersion;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    model: cpus[0]?.model ?? 'unknown',
    memoryMB: Math.round(os.totalmem() / 2 ** 20),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadavg: os.loadavg(),
  };
}

export function versions() {
  return { node: isDeno ? null : process.version, deno: getDenoVersion(), v8: process.versions?.v8 ?? null };
}

export const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

export function header(name, opts) {
  const m = machine();
  const rt = isDeno ? `deno ${globalThis.Deno.version.deno}` : `node ${process.version}`;
  console.log(`stealwork bench/${name}: ${rt}, ${m.cpus} CPUs (${m.model}), ${m.memoryMB} MiB, ` +
    `${opts.quick ? 'quick' : 'full'} run, ${opts.reps} reps, load average ${loadavg()}`);
}

export function writeJSON(path, value) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * What a suite writes with --json: its tables (one Results each) plus the machine they came
 * from. run.mjs merges these into bench/results/latest.json.
 */
export function suiteJSON(suite, tables, opts, params, seconds) {
  return {
    suite, date: new Date().toISOString(), machine: machine(), versions: versions(),
    options: { quick: opts.quick, reps: opts.reps, procs: opts.procs }, params, seconds,
    tables: tables.map((t) => t.finish().toJSON()),
  };
}

/**
 * Runs fn(variant, rep) for every repetition and variant, interleaved (rep 0 of every variant,
 * then rep 1, ...), so a slow spell of a noisy machine hits every variant alike. With `warmMs`,
 * each variant first runs untimed (rep -1) for at least that long: V8 takes a few hundred ms of
 * running a CPU-bound body on a worker before its code settles (fibcut(35, 20) runs 63, 43, 40,
 * then 32 ms after a small warm-up), and a measurement is of the settled code, for the
 * sequential baseline as much as for the scheduler.
 */
export async function interleave(variants, reps, fn, warmMs = 0) {
  const out = new Map(variants.map((v) => [v, []]));
  for (const v of variants) {
    if (warmMs <= 0) break;
    const end = now() + warmMs;
    do await fn(v, -1); while (now() < end);
  }
  for (let r = 0; r < reps; r++) {
    for (const v of variants) out.get(v).push(await fn(v, r));
  }
  return out;
}

/**
 * interleave() for variants that may fail on their own (each its own scheduler): a repetition
 * that throws or has no result within `ms` ends that variant, which is recorded in
 * `res.failures` and left out of the map; the other variants go on.
 */
export async function interleaveGuarded(variants, reps, fn, ms, res) {
  const out = new Map(variants.map((v) => [v, []]));
  const dead = new Set();
  for (let r = 0; r < reps; r++) {
    for (const v of variants) {
      if (dead.has(v)) continue;
      try {
        out.get(v).push(await withWatchdog(fn(v, r), ms, `${v}, repetition ${r + 1}`));
      } catch (e) {
        dead.add(v);
        res.failures.push({ workload: v, error: String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ') });
        console.log(`  ! ${res.suite}: ${v} failed: ${e?.message ?? e}`);
      }
    }
  }
  for (const v of dead) out.delete(v);
  return out;
}

/** Calls fn on the main thread repeatedly for about `ms`, to get the JIT to its optimised code. */
export function warmMain(fn, ms = 50) {
  const end = now() + ms;
  while (now() < end) fn();
}

// ---- schedulers that fail -----------------------------------------------------------------

/** Every Scheduler the bench has started and not closed, for the watchdog's report. */
const live = new Set();

/** Scheduler.start, remembered for the watchdog. */
export async function startScheduler(Scheduler, options) {
  const s = await Scheduler.start(options);
  live.add(s);
  return s;
}

/** How long one workload block may run before it counts as hung (setWatchdog). */
let watchdogMs = 120_000;
export function setWatchdog(ms) {
  watchdogMs = ms;
}

/** The state of every live scheduler, from stats(): what a hang looks like. */
export function snapshot() {
  return [...live].map((s) => {
    const st = s.stats();
    const { runqueue, idleprocs, idlethreads, spinningthreads, needspinning } = st.sched;
    return {
      backend: s.backend, runqueue, idleprocs, idlethreads, spinningthreads, needspinning,
      procs: st.procs.map((p) => `P${p.id} ${p.status} m=${p.m} runq=${p.runqsize} next=${p.runnext}`).join(', '),
      threads: st.threads.map((t) => `M${t.id} spawned=${t.spawned} finished=${t.finished} curg=${t.curg} async=${t.asyncPending}`).join(', '),
    };
  });
}

/** Rejects when `promise` has not settled within `ms`, with a snapshot of every live scheduler. */
export function withWatchdog(promise, ms, what) {
  let timer;
  const dog = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms / 1000} s (hung?); schedulers: ${JSON.stringify(snapshot())}`)), ms);
  });
  return Promise.race([promise, dog]).finally(() => clearTimeout(timer));
}

/** close(), or close({ force: true }) when the drain has not finished within `ms`. */
export async function closeSafely(sched, ms = 3000) {
  live.delete(sched);
  let timer;
  const forced = new Promise((r) => { timer = setTimeout(() => r('force'), ms); });
  const how = await Promise.race([sched.close().then(() => 'ok', () => 'ok'), forced]);
  clearTimeout(timer);
  if (how === 'force') {
    console.log(`  ! close() had not drained after ${ms} ms; closed with force`);
    await sched.close({ force: true }).catch(() => {});
  }
}

/**
 * The end of a suite run alone: closes (with force) whatever a hung workload left running,
 * then exits, so a hang cannot keep the process alive.
 */
export async function finishProcess() {
  for (const s of [...live]) await closeSafely(s, 2000);
  process.exit(process.exitCode ?? 0);
}

/** A rejection nobody awaited (e.g. a task of a crashed scheduler) is reported, not fatal. */
export function guardRejections() {
  process.on('unhandledRejection', (e) => {
    console.log(`  ! unhandled rejection: ${e?.message ?? e}`);
    process.exitCode = 1;
  });
}

export function check(cond, msg) {
  if (!cond) throw new Error(`bench: wrong result: ${msg}`);
}
