// Async tasks across threads: do tasks that await (I/O, timers) spread over the threads, or pile
// onto one? Each implementation runs in a child process of its own, so its peak RSS is its own.
//
//   node bench/async.mjs [--only NAME[,NAME]] [--reps N] [--per-thread K]      (after npm run build)
//
//   --only        the workloads whose name starts with one of NAMES (readFile, io, tree, stall)
//   --reps N      repetitions per implementation, after one small warm-up run (default 3)
//   --per-thread K  also runs each workload with K async tasks in flight per thread at most:
//                 Scheduler { asyncPerThread: K }, both pools { concurrentTasksPerWorker: K }
//                 (without the flag no option the scheduler does not know today is passed)
//   --memory      what the peak RSS is made of (Linux): each child samples its RSS every 10 ms
//                 and, at its peak, sorts the resident bytes into malloc's thread arenas and the
//                 rest (lib/rss-peak.mjs); each task that read a file notes its thread's live
//                 ArrayBuffer bytes (Node's per-isolate memoryUsage().arrayBuffers), and the
//                 table gives the most any thread held
//   --malloc-fixed  runs the children with MALLOC_MMAP_THRESHOLD_=1048576: glibc then keeps its
//                 mmap threshold at 1 MiB, so each large buffer is a mapping of its own, returned
//                 to the system when freed, and the peak RSS counts what the program held, not
//                 what the allocator kept after it was freed
//
// Workloads (every answer is checked against the main thread's, every count against the tasks
// submitted; the in-flight counts are kept by the tasks themselves, lib/thread-slots.mjs):
//   readFile+hash  100 tasks: await fs.promises.readFile of one 16 MB file of random bytes (made
//                  once in the OS temp folder), then its SHA-256. Defaults of each implementation.
//   io-bound       1,000 tasks: await a 20 ms timer, then ~0.2 ms of hashing (the byte count is
//                  calibrated once on the main thread). Defaults.
//   tree-hash      8 directories x 25 files, 64 KB to 4 MB (log-uniform, seed 7), made once in
//                  the temp folder. Scheduler: a task per directory spawning a task per file
//                  (ctx.spawn, awaited); the pools have no nested tasks, so their main thread
//                  submits a task per file. 2 threads each, both started (minThreads 2). Bytes
//                  hashed per thread.
//   stall          2 threads, both started (minThreads 2): an async task awaits 5 ms, then
//                  computes 3 s; 300 ms after it started, 10 tiny roots; when each finished
//                  against the long task's end (negative: before it), each stamped in its task.
//
// Implementations: piscina 5, stealwork/piscina and Scheduler, each with its defaults but for
// the thread counts above; ratios are to piscina's median in the same run. --per-thread makes a
// Scheduler fail at start until it has the option asyncPerThread (a FAILED row; exit code 1).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { block, sha256, tickDigest } from './lib/hashing.mjs';
import { loadavg, machine } from './lib/machine.mjs';
import { median, rng, sleep, wallNow } from './lib/stats.mjs';
import { fmt } from './lib/table.mjs';
import { newSlots, readSlots, resetSlots } from './lib/thread-slots.mjs';
import { sampleRss } from './lib/rss-peak.mjs';
import { loadPiscina, loadStealwork } from './lib/package.mjs';

const SELF = fileURLToPath(import.meta.url);
const TASKS = new URL('./async-tasks.mjs', import.meta.url);
const WORKER = new URL('./async-pool-worker.mjs', import.meta.url);
const DATA = join(os.tmpdir(), 'stealwork-async-bench');
const CHILD_HANG_MS = 600_000;

const SIZES = {
  readFile: { tasks: 100, bytes: 16 << 20 },
  io: { tasks: 1000, ms: 20, cpuMs: 0.2 },
  tree: { dirs: 8, files: 25, min: 64 << 10, max: 4 << 20, seed: 7 },
  stall: { awaitMs: 5, spinMs: 3000, afterMs: 300, tiny: 10, procs: 2 },
};

const WORKLOADS = ['readFile+hash', 'io-bound', 'tree-hash', 'stall'];

/** The implementations of a run: [name, kind, options]. */
function implementations(workload, perThread) {
  const two = workload === 'tree-hash' || workload === 'stall';
  const pool = two ? { minThreads: 2, maxThreads: 2 } : {};
  const sched = two ? { procs: 2, minThreads: 2 } : {};
  const list = [
    ['piscina', 'piscina', pool],
    ['stealwork/piscina', 'sw-piscina', pool],
    ['Scheduler', 'scheduler', sched],
  ];
  if (perThread) {
    list.push([`piscina ctpw=${perThread}`, 'piscina', { ...pool, concurrentTasksPerWorker: perThread }]);
    list.push([`stealwork/piscina ctpw=${perThread}`, 'sw-piscina', { ...pool, concurrentTasksPerWorker: perThread }]);
    list.push([`Scheduler asyncPerThread=${perThread}`, 'scheduler', { ...sched, asyncPerThread: perThread }]);
  }
  return list;
}

// ---- the data, made once in the temp folder ---------------------------------------------------

/** The 16 MB file of random bytes, and its digest. */
function readFileData() {
  const file = join(DATA, `random-${SIZES.readFile.bytes}.bin`);
  if (!existsSync(file) || statSync(file).size !== SIZES.readFile.bytes) {
    mkdirSync(DATA, { recursive: true });
    writeFileSync(file, randomBytes(SIZES.readFile.bytes));
  }
  return { file, digest: sha256(readFileSync(file)) };
}

/** Fills `buf` from a seeded generator (a fixed tree, run to run). */
function fill(buf, seed) {
  let x = seed >>> 0 || 1;
  const words = new Uint32Array(buf.buffer, buf.byteOffset, buf.length >> 2);
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    words[i] = x;
  }
}

/** The tree: dirs x files of log-uniform sizes; { root, dirs: [{ dir, files: {name: digest} }], bytes }. */
function treeData() {
  const { dirs, files, min, max, seed } = SIZES.tree;
  const root = join(DATA, `tree-${dirs}x${files}-s${seed}`);
  const r = rng(seed);
  const plan = [];
  for (let d = 0; d < dirs; d++) {
    const fs = [];
    for (let f = 0; f < files; f++) {
      const size = Math.round(min * Math.exp(r() * Math.log(max / min))) & ~3;
      fs.push({ name: `f${String(f).padStart(2, '0')}.bin`, size, seed: (d * 1000 + f + 1) * 2654435761 });
    }
    plan.push({ dir: join(root, `d${d}`), files: fs });
  }
  const ok = plan.every((p) => p.files.every((f) => existsSync(join(p.dir, f.name)) && statSync(join(p.dir, f.name)).size === f.size)) &&
    plan.every((p) => readdirSync(p.dir).length === p.files.length);
  if (!ok) {
    rmSync(root, { recursive: true, force: true });
    for (const p of plan) {
      mkdirSync(p.dir, { recursive: true });
      for (const f of p.files) {
        const buf = Buffer.alloc(f.size);
        fill(buf, f.seed);
        writeFileSync(join(p.dir, f.name), buf);
      }
    }
  }
  let bytes = 0;
  const out = plan.map((p) => ({
    dir: p.dir,
    files: Object.fromEntries(p.files.map((f) => {
      bytes += f.size;
      return [f.name, sha256(readFileSync(join(p.dir, f.name)))];
    })),
  }));
  return { root, dirs: out, bytes, count: dirs * files };
}

/** The bytes one io-bound task hashes: about cpuMs of SHA-256 on this machine's main thread. */
function calibrateTick() {
  const b = block(1 << 20);
  for (let i = 0; i < 20; i++) sha256(b);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < 200) { sha256(b); n++; }
  const perMs = (n << 20) / (performance.now() - t0);
  return Math.max(1024, Math.round((SIZES.io.cpuMs * perMs) / 64) * 64);
}

// ---- the child: one implementation, one workload ---------------------------------------------

const ARG_ORDER = {
  readHash: ['sab', 'file'], ioTick: ['sab', 'i', 'ms', 'bytes'], hashFile: ['sab', 'dir', 'name'],
  hashDir: ['sab', 'dir'], stall: ['sab', 'flag', 'awaitMs', 'spinMs'], tiny: ['sab', 'i'],
};

async function makeRunner(kind, options) {
  if (kind === 'scheduler') {
    const { Scheduler } = await loadStealwork();
    const s = await Scheduler.start({ tasks: TASKS, ...options });
    return { run: (name, a) => s.run(name, ...ARG_ORDER[name].map((k) => a[k])), close: () => s.close() };
  }
  const { Piscina } = kind === 'piscina' ? await import('piscina') : await loadPiscina();
  const pool = new Piscina({ filename: WORKER.href, ...options });
  return { run: (name, a) => pool.run(a, { name }), close: () => pool.destroy(), nested: false };
}

function check(cond, msg) {
  if (!cond) throw new Error(`wrong result: ${msg}`);
}

/** Per-workload: run(runner, sab, small) -> { ms, extra }; each checks every answer. */
const RUNS = {
  async 'readFile+hash'(runner, sab, setup, small) {
    const n = small ? 4 : SIZES.readFile.tasks;
    const t0 = performance.now();
    const ds = await Promise.all(Array.from({ length: n }, () => runner.run('readHash', { sab, file: setup.readFile.file })));
    const ms = performance.now() - t0;
    check(ds.length === n && ds.every((d) => d === setup.readFile.digest), 'a digest differs from the main thread\'s');
    return { ms, tasks: n, bytes: n * SIZES.readFile.bytes };
  },
  async 'io-bound'(runner, sab, setup, small) {
    const n = small ? 50 : SIZES.io.tasks;
    const { ms: wait } = SIZES.io;
    const bytes = setup.tickBytes;
    const t0 = performance.now();
    const ds = await Promise.all(Array.from({ length: n }, (_, i) => runner.run('ioTick', { sab, i, ms: wait, bytes })));
    const ms = performance.now() - t0;
    for (let i = 0; i < n; i++) check(ds[i] === setup.tickDigests[i], `io-bound task ${i}: digest differs`);
    return { ms, tasks: n, bytes: n * bytes };
  },
  async 'tree-hash'(runner, sab, setup, small, kind) {
    const dirs = small ? setup.tree.dirs.slice(0, 1) : setup.tree.dirs;
    const t0 = performance.now();
    let results;
    if (kind === 'scheduler') {
      results = await Promise.all(dirs.map((d) => runner.run('hashDir', { sab, dir: d.dir })));
    } else { // no nested tasks in a pool: the main thread submits a task per file
      results = await Promise.all(dirs.map((d) => Promise.all(Object.keys(d.files).sort().map((name) => runner.run('hashFile', { sab, dir: d.dir, name })))));
    }
    const ms = performance.now() - t0;
    let files = 0;
    let bytes = 0;
    dirs.forEach((d, k) => {
      const got = results[k];
      const want = Object.keys(d.files).sort();
      check(got.length === want.length && got.every(([name], j) => name === want[j]), `${d.dir}: files differ`);
      for (const [name, digest] of got) check(digest === d.files[name], `${d.dir}/${name}: digest differs`);
      files += got.length;
      bytes += Object.keys(d.files).reduce((a, name) => a + setup.tree.sizes[d.dir][name], 0);
    });
    return { ms, tasks: files + (kind === 'scheduler' ? dirs.length : 0), bytes };
  },
  async stall(runner, sab, setup, small) {
    const { awaitMs, afterMs, tiny } = SIZES.stall;
    const spinMs = small ? 50 : SIZES.stall.spinMs;
    const flag = new SharedArrayBuffer(4);
    const f = new Int32Array(flag);
    const t0 = performance.now();
    const long = runner.run('stall', { sab, flag, awaitMs, spinMs });
    const w = Atomics.waitAsync(f, 0, 0);
    if (w.async) await w.value;
    await sleep(small ? 10 : afterMs);
    const sent = wallNow();
    const tinies = Array.from({ length: tiny }, (_, i) => runner.run('tiny', { sab, i }));
    const settled = tinies.map((p) => p.then((v) => ({ ...v, seen: wallNow() })));
    const [l, ts] = await Promise.all([long, Promise.all(settled)]);
    const ms = performance.now() - t0;
    check(ts.length === tiny && ts.every((t, i) => t.i === i), 'tiny roots: wrong answers');
    check(l.end - l.start >= spinMs, 'the long task did not run its time');
    return {
      ms, tasks: tiny + 1, bytes: 0,
      stall: { rel: ts.map((t) => t.end - l.end), sentRel: sent - l.end, longThread: l.threadId, tinyThreads: [...new Set(ts.map((t) => t.threadId))] },
    };
  },
};

async function child(workload, kind, options, reps, setupFile, memory) {
  const sampler = memory ? sampleRss(10) : null;
  const setup = JSON.parse(readFileSync(setupFile, 'utf8'));
  if (workload === 'io-bound') setup.tickDigests = Array.from({ length: SIZES.io.tasks }, (_, i) => tickDigest(i, setup.tickBytes));
  const sab = newSlots();
  const runner = await makeRunner(kind, options);
  const out = { reps: [] };
  try {
    await RUNS[workload](runner, sab, setup, true, kind); // warm-up
    for (let r = 0; r < reps; r++) {
      resetSlots(sab);
      const res = await RUNS[workload](runner, sab, setup, false, kind);
      const threads = readSlots(sab);
      check(threads.reduce((a, t) => a + t.tasks, 0) === res.tasks, `the threads counted ${threads.reduce((a, t) => a + t.tasks, 0)} tasks, ${res.tasks} were run`);
      check(threads.every((t) => t.inFlight === 0), 'a task still counted in flight after its result');
      check(threads.reduce((a, t) => a + t.bytes, 0) === res.bytes, 'bytes hashed: the threads\' sum differs from the work\'s');
      out.reps.push({ ...res, threads });
    }
  } finally {
    await runner.close();
  }
  out.maxRSS = process.resourceUsage().maxRSS * 1024;
  if (sampler) out.memory = sampler.stop();
  console.log(`RESULT ${JSON.stringify(out)}`);
}

// ---- the parent: data, a child per implementation, the table ---------------------------------

function runChild(args, env) {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [SELF, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    c.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    c.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => c.kill('SIGKILL'), CHILD_HANG_MS);
    c.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line) resolve(JSON.parse(line.slice(7)));
      else {
        const lines = (stderr || stdout).trim().split('\n');
        const why = lines.find((l) => /^\w*Error\b/.test(l.trim())) ?? lines.slice(-3).join(' | ');
        resolve({ error: `exit ${code ?? signal}${signal === 'SIGKILL' ? ` (killed after ${CHILD_HANG_MS / 1000} s: hung?)` : ''}: ${why.trim()}` });
      }
    });
  });
}

const mb = (b) => (b / 2 ** 20).toFixed(0);

function summary(workload, name, r) {
  const ms = r.reps.map((x) => x.ms);
  const used = r.reps.map((x) => x.threads.length);
  const maxIn = Math.max(...r.reps.map((x) => Math.max(...x.threads.map((t) => t.maxInFlight))));
  const row = { name, ms: median(ms), min: Math.min(...ms), max: Math.max(...ms), rss: r.maxRSS, used: [...new Set(used)].join('/'), maxIn, notes: [] };
  if (workload === 'tree-hash') {
    const shares = r.reps.map((x) => Math.max(...x.threads.map((t) => t.bytes)) / x.bytes);
    row.share = Math.max(...shares);
    row.notes.push(`largest byte share ${(row.share * 100).toFixed(0)}% (reps: ${shares.map((s) => (s * 100).toFixed(0)).join(', ')}%)`);
    row.detail = r.reps.map((x) => x.threads.map((t) => `${mb(t.bytes)} MB`).join(' + ')).join('; ');
  }
  if (workload === 'stall') {
    const lates = r.reps.map((x) => Math.max(...x.stall.rel));
    const before = r.reps.map((x) => x.stall.rel.filter((v) => v < 0).length);
    row.notes.push(`tiny roots end vs long end: latest ${lates.map((v) => `${v >= 0 ? '+' : ''}${v.toFixed(0)}`).join(', ')} ms; before it ${before.join(', ')} of ${SIZES.stall.tiny}`);
    row.detail = r.reps.map((x) => `[${x.stall.rel.map((v) => (v >= 0 ? '+' : '') + v.toFixed(0)).join(' ')}] (sent ${x.stall.sentRel.toFixed(0)})`).join('; ');
  }
  if (r.memory) {
    const held = Math.max(...r.reps.flatMap((x) => x.threads.map((t) => t.maxBuffers)));
    const at = r.memory.atPeak;
    row.notes.push(`${held > 0 ? `a thread held at most ${mb(held)} MB of ArrayBuffers; ` : ''}${at ? `at the peak: malloc arenas ${mb(at.arenas)} MB, other anonymous ${mb(at.otherAnon)} MB, files ${mb(at.file)} MB` : 'no breakdown (not Linux)'}`);
  }
  if (workload !== 'tree-hash' && workload !== 'stall') row.detail = r.reps.map((x) => x.threads.map((t) => `${t.tasks}`).join('+')).join('; ');
  return row;
}

function printTable(workload, rows, reps) {
  const base = rows.find((r) => r.name === 'piscina' && !r.error);
  const cols = ['implementation', 'wall ms (median)', 'min .. max', 'x piscina', 'peak RSS MB', 'x piscina', 'threads used', 'max in flight/thread', 'notes'];
  const lines = rows.map((r) => r.error ? [r.name, 'FAILED', '', '', '', '', '', '', 'below'] : [
    r.name, fmt(r.ms), `${fmt(r.min)} .. ${fmt(r.max)}`,
    base ? (r === base ? 'base' : `${(r.ms / base.ms).toFixed(2)}x`) : '-',
    mb(r.rss), base ? (r === base ? 'base' : `${(r.rss / base.rss).toFixed(2)}x`) : '-',
    r.used, String(r.maxIn), r.notes.join('; '),
  ]);
  const w = cols.map((c, i) => Math.max(c.length, ...lines.map((l) => String(l[i]).length)));
  const right = new Set([1, 2, 3, 4, 5, 6, 7]);
  const out = (l) => console.log('  ' + l.map((v, i) => (right.has(i) ? String(v).padStart(w[i]) : String(v).padEnd(w[i]))).join('  ').trimEnd());
  out(cols);
  out(w.map((n) => '-'.repeat(n)));
  lines.forEach(out);
  for (const r of rows) if (r.error) console.log(`  * ${r.name}: FAILED, ${r.error}`);
  for (const r of rows) if (!r.error && r.detail) console.log(`  * ${r.name}: ${workload === 'tree-hash' ? 'bytes per thread' : workload === 'stall' ? 'each tiny root\'s end - the long task\'s end, ms' : 'tasks per thread'} per rep: ${r.detail}`);
}

const DESCRIBE = {
  'readFile+hash': `${SIZES.readFile.tasks} tasks: await readFile(16 MB file), SHA-256; defaults (piscina: maxThreads ${Math.round(machine().availableParallelism * 1.5)} here)`,
  'io-bound': `${SIZES.io.tasks} tasks: await ${SIZES.io.ms} ms timer, then ~${SIZES.io.cpuMs} ms SHA-256; defaults`,
  'tree-hash': `${SIZES.tree.dirs} dirs x ${SIZES.tree.files} files, 64 KB..4 MB; 2 threads (minThreads 2); Scheduler: a task per dir spawning a task per file (ctx.spawn); the pools cannot nest tasks: their main thread submits a task per file`,
  stall: `2 threads (minThreads 2): async task awaits ${SIZES.stall.awaitMs} ms then computes ${SIZES.stall.spinMs / 1000} s; ${SIZES.stall.tiny} tiny roots ${SIZES.stall.afterMs} ms after it started; goal: they end before it (negative)`,
};

async function parent() {
  const { values } = parseArgs({ options: {
    only: { type: 'string' }, reps: { type: 'string', default: '3' }, 'per-thread': { type: 'string' },
    memory: { type: 'boolean', default: false }, 'malloc-fixed': { type: 'boolean', default: false },
  } });
  const reps = Number(values.reps);
  if (!Number.isInteger(reps) || reps < 1) throw new RangeError(`--reps must be an integer >= 1, got ${values.reps}`);
  const perThread = values['per-thread'] === undefined ? 0 : Number(values['per-thread']);
  if (values['per-thread'] !== undefined && !(Number.isInteger(perThread) && perThread >= 1)) throw new RangeError(`--per-thread must be an integer >= 1, got ${values['per-thread']}`);
  const only = values.only ? values.only.split(',') : [];
  const workloads = WORKLOADS.filter((w) => only.length === 0 || only.some((o) => w.startsWith(o)));
  if (workloads.length === 0) throw new TypeError(`--only matches no workload (${WORKLOADS.join(', ')})`);
  if (!existsSync(new URL('../dist/index.js', import.meta.url))) throw new Error('bench/async.mjs needs the build in dist/ (npm run build)');

  const m = machine();
  const pv = JSON.parse(readFileSync(new URL('../node_modules/piscina/package.json', import.meta.url), 'utf8')).version;
  console.log(`stealwork bench/async: node ${process.version}, piscina ${pv}, ${m.cpus} CPUs (${m.model}), ${m.memoryMB} MiB, ${reps} reps, load average ${loadavg()}`);
  console.log('each implementation in a child process of its own (peak RSS: its process.resourceUsage().maxRSS, after a warm-up and the reps)');
  const env = values['malloc-fixed'] ? { ...process.env, MALLOC_MMAP_THRESHOLD_: '1048576' } : process.env;
  if (values['malloc-fixed']) console.log('children run with MALLOC_MMAP_THRESHOLD_=1048576: a freed large buffer goes back to the system at once');

  const setup = {};
  if (workloads.includes('readFile+hash')) setup.readFile = readFileData();
  if (workloads.includes('io-bound')) setup.tickBytes = calibrateTick();
  if (workloads.includes('tree-hash')) {
    const t = treeData();
    setup.tree = { dirs: t.dirs, sizes: Object.fromEntries(t.dirs.map((d) => [d.dir, Object.fromEntries(Object.keys(d.files).map((n) => [n, statSync(join(d.dir, n)).size]))])) };
    console.log(`tree: ${t.root}, ${t.count} files, ${mb(t.bytes)} MB`);
  }
  if (setup.tickBytes) console.log(`io-bound: each task hashes ${setup.tickBytes} bytes (~${SIZES.io.cpuMs} ms on the main thread)`);
  const setupFile = join(DATA, `setup-${process.pid}.json`);
  mkdirSync(DATA, { recursive: true });
  writeFileSync(setupFile, JSON.stringify(setup));

  let failed = false;
  try {
    for (const w of workloads) {
      console.log(`\n== ${w}: ${DESCRIBE[w]}`);
      const rows = [];
      for (const [name, kind, options] of implementations(w, perThread)) {
        const r = await runChild(['--child', w, kind, JSON.stringify(options), String(reps), setupFile, values.memory ? 'memory' : ''], env);
        if (r.error) { failed = true; rows.push({ name, error: r.error }); continue; }
        rows.push(summary(w, name, r));
      }
      printTable(w, rows, reps);
    }
  } finally {
    rmSync(setupFile, { force: true });
  }
  if (failed) process.exitCode = 1;
}

if (process.argv[2] === '--child') {
  const [, , , workload, kind, options, reps, setupFile, memory] = process.argv;
  await child(workload, kind, JSON.parse(options), Number(reps), setupFile, memory === 'memory');
} else {
  await parent();
}
