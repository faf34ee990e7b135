// Scale: what the scheduler does per task as procs grows, and what procs above the core count
// costs on this machine (docs/DESIGN.md "Scaling").
//
//   1. Per task, for procs 2 .. 64 on the coarse fork-join (fibcut(34, 20): a spawn and a join
//      per call above the cut), the fine fork (ffib(27): ctx.fork per call) and a spawn tree
//      (fibc(22): a task per call): the core calls, compare-and-swaps on queue words and the
//      failed ones, steal attempts and successes, other Ps' queues read looking for work
//      (probes), sched.lock acquisitions, wake-ups, parks, spins, retries, fork joiners' calls
//      for help, park ladder rungs polled or waited (spinRungs), fork joiners' sleeps and the
//      wake-ups sent to them, and the most Ms spinning at once. These come from the core's counters
//      (stats()), not from a clock: they are what a 64-core machine would see the scheduler do,
//      although this one cannot run 64 threads at once. Each procs value runs in a fresh
//      scheduler after a warm-up; a task is a task function call (Gs the Ms started plus forks
//      run inline by their forker).
//   2. Wall-clock time of the same trees at procs 2, 8 and 32 on this machine, each procs value
//      in a child process of its own (idleTimeout: Infinity), warmed until its CPU per run
//      settles, then in alternating rounds (every procs value once per round, the order
//      reversed every other round): medians and ratios to procs 2, with that process's CPU per
//      run; the CPU a lone task costs per wall ms; and an idle scheduler's CPU per second at
//      procs 32, with the default options and with idleTimeout: Infinity, and at procs 2 (each
//      in a child process, over one-second windows).
//   The machine's load (other processes' CPU during the timed rounds, from /proc/stat, and the
//   load average) is printed beside the times: the counts do not depend on it, the times do.
//
//   npm run build && node bench/scale.mjs [--quick] [--procs 2,4,8,16,32,64] [--rounds 9]
//     [--only coarse,fine,spawn] [--skip-counts] [--skip-times] [--json FILE]
//
// --json writes what it printed as JSON (the counts per task by procs, the times' medians, the
// idle CPU, the load), which run.mjs merges as its suite `scale` and bench/lib/chart-scale.mjs
// draws.

import os from 'node:os';
import process from 'node:process';
import { execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { machine, versions } from './lib/machine.mjs';
import { writeJSON } from './lib/output.mjs';
import { fileURLToPath } from 'node:url';
import { loadStealwork } from './lib/package.mjs';
import { median, sleep } from './lib/stats.mjs';

const TASKS = new URL('./scale-tasks.mjs', import.meta.url);
const SELF = fileURLToPath(import.meta.url);

// ---- the command line ------------------------------------------------------------------------

function parse(argv) {
  const o = { quick: false, procs: [2, 4, 8, 16, 32, 64], rounds: 0, only: null, counts: true, times: true, json: null, idleChild: null, timeChild: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new TypeError(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') o.quick = true;
    else if (a === '--procs') o.procs = next().split(',').map(Number);
    else if (a === '--rounds') o.rounds = Number(next());
    else if (a === '--only') o.only = next().split(',');
    else if (a === '--skip-times') o.times = false;
    else if (a === '--skip-counts') o.counts = false;
    else if (a === '--json') o.json = next();
    else if (a === '--idle-child') o.idleChild = JSON.parse(next());
    else if (a === '--time-child') o.timeChild = JSON.parse(next());
    else throw new TypeError(`unknown argument ${a} (flags: --quick, --procs LIST, --rounds N, --only NAMES, --skip-counts, --skip-times, --json FILE)`);
  }
  for (const p of o.procs) if (!Number.isInteger(p) || p < 1) throw new RangeError(`--procs must list positive integers, got ${p}`);
  if (o.rounds === 0) o.rounds = o.quick ? 5 : 9;
  if (!Number.isInteger(o.rounds) || o.rounds < 1) throw new RangeError(`--rounds must be a positive integer, got ${o.rounds}`);
  return o;
}

const fibOf = (n) => { let a = 0, b = 1; for (let i = 0; i < n; i++) [a, b] = [b, a + b]; return a; };

/** The trees: name, task, arguments (full and quick size), and the result to check. */
function workloads(quick) {
  return [
    { name: 'coarse', what: 'coarse fork-join', task: 'fibcut', args: quick ? [30, 18] : [34, 20], check: (n) => fibOf(n) },
    { name: 'fine', what: 'fine fork', task: 'ffib', args: quick ? [24] : [27], check: (n) => fibOf(n) },
    { name: 'spawn', what: 'spawn tree', task: 'fibc', args: quick ? [19] : [22], check: (n) => fibOf(n) },
  ];
}

async function runOnce(s, w) {
  const x = await s.run(w.task, ...w.args);
  if (x !== w.check(w.args[0])) throw new Error(`${w.task}(${w.args}) = ${x}, want ${w.check(w.args[0])}`);
}

/** What --json writes: filled in as the sections run (the main process only). */
const report = { counts: {}, times: null, idle: [] };

// ---- 1. per-task counts -------------------------------------------------------------------------

/** The counters bench/scale.mjs prints, summed from one stats() snapshot. */
function snapshot(st) {
  const t = st.totals;
  return {
    tasks: t.executed + t.forkInline,
    calls: t.calls, cas: t.cas, casFails: t.casFails, stealTries: t.stealTries, steals: t.stealOps,
    probes: t.probes, locks: st.sched.lockAcquisitions, wakeups: t.wakeups, parks: t.parks, spins: t.spins,
    retries: t.retries, helps: t.helps, spinRungs: st.sched.spinRungs, joinSleeps: st.sched.forkSleeps, joinWakes: st.sched.forkWakes,
  };
}

const COLUMNS = ['calls', 'cas', 'casFails', 'stealTries', 'steals', 'probes', 'locks', 'wakeups', 'parks', 'spins', 'retries',
  'helps', 'spinRungs', 'joinSleeps', 'joinWakes'];

/** Runs workload w `reps` times at procs p after a warm-up; the counters per task, and the most
 *  Ms spinning at once. */
async function countsAt(Scheduler, w, p, warm, reps) {
  const s = await Scheduler.start({ tasks: TASKS, procs: p });
  try {
    for (let i = 0; i < warm; i++) await runOnce(s, w);
    const a = snapshot(s.stats());
    for (let i = 0; i < reps; i++) await runOnce(s, w);
    const st = s.stats();
    const b = snapshot(st);
    const per = {};
    const tasks = b.tasks - a.tasks;
    for (const k of COLUMNS) per[k] = (b[k] - a[k]) / tasks;
    return { tasks: tasks / reps, per, spinningMax: st.sched.spinningMax };
  } finally {
    await s.close();
  }
}

function fmt(x) {
  if (x === 0) return '0';
  if (x >= 100) return x.toFixed(0);
  if (x >= 1) return x.toFixed(2);
  if (x >= 0.001) return x.toFixed(4);
  return x.toExponential(1);
}

async function counts(Scheduler, ws, o) {
  const warm = o.quick ? 2 : 3;
  const reps = o.quick ? 2 : 4;
  console.log(`\n1. Per task (counts, not times: the same on a loaded or a quiet machine), ${warm} warm-up and ${reps} measured runs per procs value`);
  const ratios = {};
  for (const w of ws) {
    console.log(`\n${w.what}, ${w.task}(${w.args.join(', ')})`);
    const head = ['procs', 'tasks/run', ...COLUMNS, 'spin max'];
    const rows = [];
    const byP = {};
    for (const p of o.procs) {
      const r = await countsAt(Scheduler, w, p, warm, reps);
      byP[p] = r;
      rows.push([String(p), r.tasks.toFixed(0), ...COLUMNS.map((k) => fmt(r.per[k])), String(r.spinningMax)]);
    }
    printTable(head, rows);
    report.counts[w.name] = { what: w.what, task: w.task, args: w.args, warm, reps, columns: COLUMNS, procs: o.procs, byProcs: byP };
    // Growth from the smallest to the largest procs, per task; operations that are 0 at the
    // smallest procs compare absolute values (their growth is named in DESIGN.md "Scaling").
    const lo = byP[o.procs[0]].per;
    const hi = byP[o.procs[o.procs.length - 1]].per;
    ratios[w.name] = Object.fromEntries(COLUMNS.map((k) => [k, lo[k] > 0 ? hi[k] / lo[k] : (hi[k] > 0 ? Infinity : 1)]));
    console.log(`  procs ${o.procs[o.procs.length - 1]} / procs ${o.procs[0]}, per task: ` +
      COLUMNS.map((k) => `${k} ${Number.isFinite(ratios[w.name][k]) ? ratios[w.name][k].toFixed(2) + 'x' : `0 -> ${fmt(hi[k])}`}`).join(', '));
  }
  return ratios;
}

function printTable(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => '  ' + cells.map((c, i) => c.padStart(widths[i])).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

// ---- 2. times ---------------------------------------------------------------------------------

/** Busy and total jiffies of the whole machine so far (Linux /proc/stat), or null. */
function machineJiffies() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

const cpuMs = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };

/**
 * Each procs value runs in a child process of its own (`--time-child`): a scheduler idle
 * between its rounds would otherwise charge the one measured with its threads' background work
 * (V8 collects an idle isolate's heap a few seconds after it stops), and share its process's
 * compiler and collector threads with it. The parent tells the children in turn to run one tree
 * once; a child answers with the wall and CPU time of that run, its own process's only.
 */
async function times(ws, o) {
  const P = [2, 8, 32];
  console.log(`\n2. Wall clock on this machine (${os.availableParallelism()} CPUs), procs ${P.join(', ')}, each in a child process, ${o.rounds} alternating rounds: median ms per run (CPU ms of that process per run)`);
  const kids = {};
  for (const p of P) kids[p] = new TimeChild(p, ws.map((w) => w.name), o.quick);
  const ms = {};
  const cpu = {};
  const ops = {};
  try {
    // Warm-up, one child at a time: V8 compiles every function on every thread separately, so
    // each thread must run each tree often enough (more threads, more runs: DESIGN.md
    // "Scaling"). Each runs until its CPU per run settles; what that took is the price of the
    // threads' own compiles.
    console.log('  warm-up, the trees in turn as in the rounds, until each one\'s CPU per run settles (V8 compiles on every thread):');
    const warm = {};
    for (const p of P) warm[p] = await kids[p].ask({ op: 'warm' });
    for (const w of ws) {
      const cells = P.map((p) => {
        const r = warm[p][w.name];
        return `procs ${p}: ${r.runs} runs, ${(r.cpu / 1000).toFixed(1)} s CPU, first ${r.first.toFixed(0)} -> last ${r.last.toFixed(0)} ms CPU per run`;
      });
      console.log(`    ${w.what.padEnd(17)} ${cells.join('; ')}`);
    }
    const j0 = machineJiffies();
    let ours = 0;
    const t0 = performance.now();
    for (let r = 0; r < o.rounds; r++) {
      const order = r % 2 === 0 ? P : [...P].reverse();
      for (const w of ws) {
        for (const p of order) {
          const k = `${w.name}@${p}`;
          const x = await kids[p].ask({ op: 'run', name: w.name });
          (ms[k] ??= []).push(x.ms);
          (cpu[k] ??= []).push(x.cpu);
          (ops[k] ??= []).push(x);
          ours += x.cpu;
        }
      }
    }
    const wall = performance.now() - t0;
    const j1 = machineJiffies();
    const ratio = {};
    const cpuRatio = {};
    for (const w of ws) {
      const base = median(ms[`${w.name}@2`]);
      const cbase = median(cpu[`${w.name}@2`]);
      const cells = P.map((p) => {
        const k = `${w.name}@${p}`;
        ratio[k] = median(ms[k]) / base;
        cpuRatio[k] = median(cpu[k]) / cbase;
        return `procs ${p}: ${median(ms[k]).toFixed(1)} ms (${median(cpu[k]).toFixed(1)} CPU)${p === 2 ? '' : ` ${ratio[k].toFixed(2)}x`}`;
      });
      console.log(`  ${w.what.padEnd(17)} ${cells.join('   ')}`);
    }
    if (j0 !== null && j1 !== null) {
      const hz = 100; // USER_HZ: /proc/stat counts in 1/100 s on Linux
      const busyMs = ((j1.busy - j0.busy) * 1000) / hz;
      const others = Math.max(0, busyMs - ours);
      console.log(`  load: other processes used ${(others / wall).toFixed(2)} of this machine's ${os.availableParallelism()} CPUs during the rounds (the runs ${(ours / wall).toFixed(2)}); load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
      report.load = { otherCpus: others / wall, ownCpus: ours / wall, loadavg: os.loadavg() };
    }
    report.times = {
      procs: P, rounds: o.rounds,
      trees: Object.fromEntries(ws.map((w) => [w.name, Object.fromEntries(P.map((p) => [p, { ms: median(ms[`${w.name}@${p}`]), cpu: median(cpu[`${w.name}@${p}`]) }]))])),
    };
    for (const w of ws) {
      for (const p of [8, 32]) {
        const k = `${w.name}@${p}`;
        console.log(`  ${w.name} procs ${p} / procs 2: ${ratio[k].toFixed(2)}x the time, ${cpuRatio[k].toFixed(2)}x the CPU`);
      }
    }
    const per = (k, f) => median(ops[k].map((x) => x[f])).toFixed(0);
    for (const w of ws) {
      console.log(`  ${w.name}, per run in the rounds (medians): ${P.map((p) => `procs ${p}: ${per(`${w.name}@${p}`, 'wakeups')} wake-ups, ${per(`${w.name}@${p}`, 'parks')} parks, ${per(`${w.name}@${p}`, 'spins')} spins, ${per(`${w.name}@${p}`, 'probes')} probes`).join('; ')}`);
    }
    const lone = {};
    for (let r = 0; r < 5; r++) {
      for (const p of r % 2 === 0 ? P : [...P].reverse()) (lone[p] ??= []).push((await kids[p].ask({ op: 'lone' })).perMs);
    }
    console.log(`  one lone task (about 50 ms of CPU): process CPU per wall ms ${P.map((p) => `procs ${p} ${median(lone[p]).toFixed(2)}`).join(', ')}`);
  } finally {
    for (const k of Object.values(kids)) await k.close();
  }
}

/** A child process holding one scheduler for the timed rounds (timeChild below). Main thread. */
class TimeChild {
  constructor(procs, names, quick) {
    this.proc = fork(SELF, ['--time-child', JSON.stringify({ procs, names, quick })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.pending = null;
    this.proc.on('message', (m) => { const r = this.pending; this.pending = null; r?.resolve(m); });
    this.proc.on('exit', (code) => { const r = this.pending; this.pending = null; r?.reject(new Error(`time child (procs ${procs}) exited with ${code}`)); });
  }

  ask(msg) {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.proc.send(msg);
    });
  }

  async close() {
    if (this.proc.exitCode !== null) return;
    const done = new Promise((r) => this.proc.once('exit', r));
    this.proc.send({ op: 'close' });
    await done;
  }
}

/** The child's side: a scheduler at `procs` with idleTimeout Infinity (its threads must not end
 *  while the other children run), answering the parent's warm, run, lone and close. */
async function timeChild(Scheduler, { procs, names, quick }) {
  const ws = workloads(quick).filter((w) => names.includes(w.name));
  const s = await Scheduler.start({ tasks: TASKS, procs, idleTimeout: Infinity });
  let iters = 0;
  process.on('message', async (m) => {
    if (m.op === 'warm') {
      process.send(await warmUp(s, ws, quick, 3 + procs / 4));
    } else if (m.op === 'run') {
      const w = ws.find((x) => x.name === m.name);
      const a = snapshot(s.stats());
      const c = cpuMs();
      const t = performance.now();
      await runOnce(s, w);
      const ms = performance.now() - t;
      const cpu = cpuMs() - c;
      const b = snapshot(s.stats());
      process.send({ ms, cpu, wakeups: b.wakeups - a.wakeups, parks: b.parks - a.parks, spins: b.spins - a.spins, probes: b.probes - a.probes });
    } else if (m.op === 'lone') {
      if (iters === 0) {
        const t = performance.now();
        await s.run('burn', 2e6);
        iters = Math.round((2e6 / (performance.now() - t)) * 50); // about 50 ms
      }
      await sleep(20);
      const c = cpuMs();
      const t = performance.now();
      await s.run('burn', iters);
      process.send({ perMs: (cpuMs() - c) / (performance.now() - t) });
    } else if (m.op === 'close') {
      await s.close();
      process.disconnect();
    }
  });
}

/**
 * Warms s the way the rounds will run it: batches of 5 passes over the trees ws in turn (a
 * thread that runs one tree after another sees other shapes than one that runs one tree alone,
 * and V8 recompiles for them on every thread), until each tree's median CPU per run in a batch
 * is within 10% of the batch before (at least `min` batches, 3 + procs / 4: more threads take
 * more runs to warm; at most 40, or 20 quick). Returns, per tree, its runs, the CPU they took
 * and the first and last batch's median CPU per run.
 */
async function warmUp(s, ws, quick, min) {
  const batches = Object.fromEntries(ws.map((w) => [w.name, []]));
  const cpu = Object.fromEntries(ws.map((w) => [w.name, 0]));
  const max = quick ? 20 : 40;
  let n = 0;
  for (; n < max; n++) {
    const per = Object.fromEntries(ws.map((w) => [w.name, []]));
    for (let i = 0; i < 5; i++) {
      for (const w of ws) {
        const c = cpuMs();
        await runOnce(s, w);
        per[w.name].push(cpuMs() - c);
      }
    }
    let settled = n + 1 >= min;
    for (const w of ws) {
      const b = batches[w.name];
      cpu[w.name] += per[w.name].reduce((x, y) => x + y, 0);
      b.push(median(per[w.name]));
      if (b.length < 2 || Math.abs(b[b.length - 1] - b[b.length - 2]) > 0.1 * b[b.length - 2]) settled = false;
    }
    if (settled) { n++; break; }
  }
  return Object.fromEntries(ws.map((w) => {
    const b = batches[w.name];
    return [w.name, { runs: b.length * 5, cpu: cpu[w.name], first: b[0], last: b[b.length - 1] }];
  }));
}

// ---- idle -------------------------------------------------------------------------------------

/** In a child process: a scheduler at procs p that ran a tree, then its CPU per second over
 *  quiet one-second windows. Prints JSON. */
async function idleChild(Scheduler, { procs, options, windows }) {
  const s = await Scheduler.start({ tasks: TASKS, procs, ...options });
  for (let i = 0; i < 3; i++) await s.run('fibcut', 26, 16);
  await sleep(1500); // the end of the tree's wake-ups and of V8's first idle collections
  const out = [];
  for (let i = 0; i < windows; i++) {
    const c = cpuMs();
    const t = performance.now();
    await sleep(1000);
    out.push((cpuMs() - c) / ((performance.now() - t) / 1000));
  }
  const live = s.stats().sched.liveThreads;
  await s.close();
  console.log(JSON.stringify({ out, live }));
}

function idle(o) {
  const windows = o.quick ? 3 : 7;
  const cases = [
    [32, 'default options', {}],
    [32, 'idleTimeout: Infinity', { idleTimeout: Infinity }],
    [2, 'default options', {}],
  ];
  console.log(`\n3. An idle scheduler: the process's CPU ms per second over ${windows} one-second windows, in a child process`);
  console.log('  (a window of tens of ms is V8 collecting the main thread\'s heap after the work, at any procs)');
  for (const [procs, what, options] of cases) {
    const arg = JSON.stringify({ procs, options: { ...options, idleTimeout: options.idleTimeout === Infinity ? 'Infinity' : options.idleTimeout }, windows });
    const r = JSON.parse(execFileSync(process.execPath, [SELF, '--idle-child', arg], { encoding: 'utf8' }).trim().split('\n').pop());
    report.idle.push({ procs, what, msPerSecond: median(r.out), windows: r.out, live: r.live });
    console.log(`  procs ${String(procs).padStart(2)}, ${what.padEnd(22)} median ${median(r.out).toFixed(2)} ms/s (windows ${r.out.map((x) => x.toFixed(2)).join(' ')}; ${r.live} threads live)`);
  }
}

// ---- main -------------------------------------------------------------------------------------

const o = parse(process.argv.slice(2));
const { Scheduler } = await loadStealwork();
if (o.timeChild !== null) {
  await timeChild(Scheduler, o.timeChild);
} else if (o.idleChild !== null) {
  const a = o.idleChild;
  if (a.options.idleTimeout === 'Infinity') a.options.idleTimeout = Infinity;
  await idleChild(Scheduler, a);
} else {
  const ws = workloads(o.quick).filter((w) => o.only === null || o.only.includes(w.name));
  console.log(`scale: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (o.counts) await counts(Scheduler, ws, o);
  if (o.times) {
    await times(ws, o);
    idle(o);
  }
  if (o.json !== null) {
    writeJSON(o.json, {
      suite: 'scale', date: new Date().toISOString(), machine: machine(), versions: versions(),
      options: { quick: o.quick, procs: o.procs, rounds: o.rounds, counts: o.counts, times: o.times }, ...report,
    });
    console.log(`wrote ${o.json}`);
  }
}
