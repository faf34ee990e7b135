// Run-queue micro-benchmarks: the Wasm core against its TypeScript twin, in one run, on the
// built code (dist/, from `npm run build`). `npm run bench:queue` builds first.
//
//   node bench/queue.mjs [--quick] [--json FILE]
//
// Single-threaded rows (tinybench 6; each sample times a batch of calls, ns/op is the median
// sample divided by the batch). Each backend's rows run in a worker thread of their own: an
// application uses one backend, and a call site that has seen both (the same benchmark closure
// run on each) is polymorphic, which costs the Wasm pair about 4 ns, a third of its time:
//   runqPut+runqGet        one put and one get on the same P (the ring's hot path)
//   steal half of 128      runqSteal into an empty P from a victim holding 128 (64 move)
//   globrunqPut+Get        one G through the global queue (sched.lock twice)
//   gfGet+gfPut (P cache)  one G from and back to a P's free cache
//   gfGet+gfPut (global)   one G from and back to the global free stack (the versioned CAS)
// Contended rows (worker_threads, timed runs; tinybench is single-threaded): one owner keeps
// its ring fed (gfGet + runqPut, up to 192) while 2 or 4 thieves steal half of it and work the
// batch off (runqGet + gfPut); a thread with nothing to do spins 256 times, then sleeps 50 us.
// ns/op is wall time divided by the Gs the thieves stole together, the median of the runs, with
// the raw rates per second beside it. Every figure printed comes from this run.

import { isMainThread, parentPort, workerData, Worker } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import os from 'node:os';

const distCore = new URL('../dist/bindings/core/index.js', import.meta.url).href;
const distLayout = new URL('../dist/assembly/shared/layout.js', import.meta.url).href;
const C = await import(distCore).catch((e) => {
  throw new Error(`bench/queue.mjs needs the build (npm run build): ${e.message}`);
});
const L = await import(distLayout);

const BACKENDS = ['wasm', 'js'];

// ---- contended worker --------------------------------------------------------------------------

// Control words: [0] go, [1] stop, per worker w at 8 + 8*w: [0] attached, [1] steal calls,
// [2] successful steals, [3] Gs stolen, [4] owner puts.
if (!isMainThread && workerData.role === 'single') {
  parentPort.postMessage(await singleThreaded(workerData.opts, workerData.backend));
} else if (!isMainThread) {
  const { backend, memory, module, role, p, ctl } = workerData;
  const core = C.attachCore(backend, memory, module, true);
  const c = new Int32Array(ctl);
  const W = 8 + 8 * p;
  Atomics.store(c, W, 1);
  while (Atomics.load(c, 0) === 0) Atomics.wait(c, 0, 0, 5);
  let calls = 0;
  let wins = 0;
  let stolen = 0;
  let puts = 0;
  // A thread with nothing to do spins IDLE_SPINS times, then sleeps IDLE_SLEEP_MS: on a machine
  // with fewer CPUs than threads, pure spinning would keep the owner off the CPU while the
  // thieves look at its empty ring (and the other way round).
  const IDLE_SPINS = 256;
  const IDLE_SLEEP_MS = 0.05;
  let idle = 0;
  const nothing = () => {
    if (++idle >= IDLE_SPINS) {
      idle = 0;
      Atomics.wait(c, 2, 0, IDLE_SLEEP_MS);
    }
  };
  if (role === 'owner') {
    // Keeps its ring fed without consuming from it (an owner's runqGet moves the same head the
    // thieves CAS, and would measure the owner's get rate instead of stealing).
    while (Atomics.load(c, 1) === 0) {
      for (let i = 0; i < 64; i++) {
        const g = core.runqLen(p) < 192 ? core.gfGet(p) : 0;
        if (g === 0) {
          nothing();
          continue;
        }
        idle = 0;
        core.runqPut(p, g, 0);
        puts++;
      }
    }
  } else {
    while (Atomics.load(c, 1) === 0) {
      for (let i = 0; i < 64; i++) {
        const g = core.runqSteal(p, 0, 0);
        calls++;
        if (g === 0) {
          nothing();
          continue;
        }
        idle = 0;
        wins++;
        stolen += 1 + core.runqLen(p);
        core.gfPut(p, g);
        for (let x = core.runqGet(p); x !== 0; x = core.runqGet(p)) core.gfPut(p, x);
      }
    }
  }
  Atomics.store(c, W + 1, calls);
  Atomics.store(c, W + 2, wins);
  Atomics.store(c, W + 3, stolen);
  Atomics.store(c, W + 4, puts);
  parentPort.postMessage('done');
}

// ---- main --------------------------------------------------------------------------------------

function parseArgs(argv) {
  const out = { quick: false, json: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') out.quick = true;
    else if (argv[i] === '--json') {
      out.json = argv[++i];
      if (!out.json) throw new TypeError('--json needs a file name');
    } else throw new TypeError(`unknown argument ${argv[i]} (use --quick, --json FILE)`);
  }
  return out;
}

/** A fresh memory and core for a backend. */
async function setup(backend, nprocs) {
  const memory = C.createMemory(64, 4096);
  const module = await C.loadCoreModule(backend);
  const core = C.attachCore(backend, memory, module, false);
  core.init(nprocs, 2, 4 * L.G_CHUNK, 32 * L.G_CHUNK, 0, 1, 1);
  return { memory, module, core };
}

/** One backend's single-threaded rows, in ns per op. Runs in a worker of its own (see the file
 *  comment); singleThreadedIn starts it. */
async function singleThreaded(opts, backend) {
  const { Bench } = await import('tinybench');
  const BATCH = 1000;
  const bench = new Bench({
    time: opts.quick ? 150 : 1000,
    warmupTime: opts.quick ? 50 : 250,
    iterations: opts.quick ? 16 : 64,
  });
  const ops = [
    'runqPut+runqGet', 'steal half of 128', 'globrunqPut+globrunqGet', 'gfGet+gfPut (P cache)',
    'gfGet+gfPut (global stack)',
  ];
  const perOp = new Map(); // task name -> calls per sample
  {
    // runqPut+runqGet: one G in and out of P0's ring.
    {
      const { core } = await setup(backend, 2);
      const g = core.gfGet(-1);
      const name = `${backend} ${ops[0]}`;
      perOp.set(name, BATCH);
      bench.add(name, () => {
        for (let i = 0; i < BATCH; i++) {
          core.runqPut(0, g, 0);
          core.runqGet(0);
        }
      });
    }
    // steal half of 128: 64 thief/victim pairs, victims refilled untimed, the 64 steals timed.
    {
      const pairs = 64;
      const { core } = await setup(backend, 2 * pairs);
      const gs = [];
      for (let i = 0; i < pairs * 128; i++) gs.push(core.gfGet(-1));
      const name = `${backend} ${ops[1]}`;
      perOp.set(name, pairs);
      bench.add(name, () => {
        const start = performance.now();
        for (let k = 0; k < pairs; k++) {
          const v = 2 * k + 1;
          for (let i = 0; i < 128; i++) core.runqPut(v, gs[k * 128 + i], 0);
        }
        const t0 = performance.now();
        for (let k = 0; k < pairs; k++) core.runqSteal(2 * k, 2 * k + 1, 0);
        const t1 = performance.now();
        for (let p = 0; p < 2 * pairs; p++) while (core.runqGet(p) !== 0);
        // The sample is the steals; the time budget is charged the whole call.
        return { overriddenDuration: t1 - t0, overriddenIterationCost: performance.now() - start };
      });
    }
    // globrunqPut+globrunqGet: one G through the global queue.
    {
      const { core } = await setup(backend, 2);
      const g = core.gfGet(-1);
      const name = `${backend} ${ops[2]}`;
      perOp.set(name, BATCH);
      bench.add(name, () => {
        for (let i = 0; i < BATCH; i++) {
          core.globrunqPut(g);
          core.globrunqGet(0, 0);
        }
      });
    }
    // gfGet+gfPut through P0's cache, then through the global stack.
    for (const [label, p] of [[ops[3], 0], [ops[4], -1]]) {
      const { core } = await setup(backend, 2);
      const name = `${backend} ${label}`;
      perOp.set(name, BATCH);
      bench.add(name, () => {
        for (let i = 0; i < BATCH; i++) core.gfPut(p, core.gfGet(p));
      });
    }
  }
  await bench.run();
  const ns = (name) => {
    const task = bench.getTask(name);
    const r = task?.result;
    if (!r || !r.latency) throw new Error(`bench task ${name} has no result (${r?.state ?? 'missing'}): ${r?.error ?? ''}`);
    return (r.latency.p50 * 1e6) / perOp.get(name);
  };
  return ops.map((op) => ({ op, ns: ns(`${backend} ${op}`) }));
}

/** Both backends' single-threaded rows, each measured in a fresh worker thread. */
async function singleThreadedRows(opts) {
  const by = {};
  for (const backend of BACKENDS) {
    const w = new Worker(new URL(import.meta.url), { workerData: { role: 'single', backend, opts } });
    by[backend] = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.once('exit', (code) => reject(new Error(`the ${backend} benchmark worker exited with code ${code}`)));
    });
    await w.terminate();
  }
  return by.wasm.map((r, i) => ({ op: r.op, wasm: r.ns, ts: by.js[i].ns }));
}

async function contended(backend, thieves, ms) {
  const nprocs = 1 + thieves;
  const { memory, module } = await setup(backend, nprocs);
  const ctlBuf = new SharedArrayBuffer(4 * (8 + 8 * nprocs));
  const c = new Int32Array(ctlBuf);
  const workers = [];
  const exits = [];
  for (let p = 0; p < nprocs; p++) {
    const w = new Worker(new URL(import.meta.url), {
      workerData: { backend, memory, module, role: p === 0 ? 'owner' : 'thief', p, ctl: ctlBuf },
    });
    exits.push(new Promise((resolve, reject) => {
      w.on('error', reject);
      w.on('exit', resolve);
    }));
    workers.push(w);
  }
  const sleep = (t) => new Promise((r) => setTimeout(r, t));
  while ([...Array(nprocs).keys()].some((p) => Atomics.load(c, 8 + 8 * p) === 0)) await sleep(5);
  const t0 = performance.now();
  Atomics.store(c, 0, 1);
  Atomics.notify(c, 0);
  await sleep(ms);
  Atomics.store(c, 1, 1);
  const t1 = performance.now();
  await Promise.all(exits);
  let calls = 0;
  let wins = 0;
  let stolen = 0;
  for (let p = 1; p < nprocs; p++) {
    calls += Atomics.load(c, 8 + 8 * p + 1);
    wins += Atomics.load(c, 8 + 8 * p + 2);
    stolen += Atomics.load(c, 8 + 8 * p + 3);
  }
  const puts = Atomics.load(c, 8 + 4);
  const sec = (t1 - t0) / 1000;
  return { calls, wins, stolen, puts, sec, nsPerG: stolen > 0 ? (sec * 1e9) / stolen : Infinity };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x, w = 10) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)).padStart(w);
const fmtRate = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(1)}k`).padStart(9);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`stealwork bench/queue: node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${opts.quick ? 'quick' : 'full'} run, load average ${load()}`);
  const rows = await singleThreadedRows(opts);

  const runs = opts.quick ? 1 : 3;
  const ms = opts.quick ? 300 : 1000;
  const contendedRows = [];
  for (const thieves of [2, 4]) {
    const row = { op: `contended: per G stolen, ${thieves} thieves / 1 owner`, thieves, detail: {} };
    for (const backend of BACKENDS) {
      const rs = [];
      for (let r = 0; r < runs; r++) rs.push(await contended(backend, thieves, ms));
      const pick = rs.slice().sort((a, b) => a.nsPerG - b.nsPerG)[rs.length >> 1];
      row[backend === 'wasm' ? 'wasm' : 'ts'] = median(rs.map((x) => x.nsPerG));
      row.detail[backend] = {
        stealCallsPerSec: pick.calls / pick.sec, stealsPerSec: pick.wins / pick.sec,
        gsStolenPerSec: pick.stolen / pick.sec, ownerPutsPerSec: pick.puts / pick.sec, runs: rs.length, ms,
      };
    }
    contendedRows.push(row);
  }

  const all = [...rows, ...contendedRows];
  const w0 = Math.max(...all.map((r) => r.op.length));
  console.log('');
  console.log(`${'op'.padEnd(w0)}  ${'wasm ns/op'.padStart(10)}  ${'ts ns/op'.padStart(10)}  ${'ts/wasm'.padStart(8)}`);
  console.log(`${'-'.repeat(w0)}  ${'-'.repeat(10)}  ${'-'.repeat(10)}  ${'-'.repeat(8)}`);
  for (const r of all) {
    console.log(`${r.op.padEnd(w0)}  ${fmt(r.wasm)}  ${fmt(r.ts)}  ${(r.ts / r.wasm).toFixed(2).padStart(8)}`);
  }
  console.log('');
  console.log('contended runs (the median run): per second, all thieves together');
  console.log(`${'op'.padEnd(w0)}  backend  ${'steal calls'.padStart(11)}  ${'steals'.padStart(9)}  ${'Gs stolen'.padStart(9)}  ${'owner puts'.padStart(10)}`);
  for (const r of contendedRows) {
    for (const b of BACKENDS) {
      const d = r.detail[b];
      console.log(`${r.op.padEnd(w0)}  ${(b === 'js' ? 'ts' : b).padEnd(7)}  ${fmtRate(d.stealCallsPerSec).padStart(11)}  ${fmtRate(d.stealsPerSec)}  ${fmtRate(d.gsStolenPerSec)}  ${fmtRate(d.ownerPutsPerSec).padStart(10)}`);
    }
  }
  console.log('');
  console.log('single-threaded: tinybench median of batched samples; contended: wall time / Gs the thieves stole together, median of runs');
  console.log(`load average at the end ${load()} (contended figures need the CPUs to themselves: threads that are not co-scheduled cannot steal from each other)`);

  if (opts.json) {
    const out = {
      date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', quick: opts.quick, loadavg: os.loadavg(),
      rows: all.map((r) => ({ op: r.op, wasmNsPerOp: r.wasm, tsNsPerOp: r.ts, ratio: r.ts / r.wasm, ...(r.detail ? { detail: r.detail } : {}) })),
    };
    writeFileSync(opts.json, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${opts.json}`);
  }
}

if (isMainThread) await main();
