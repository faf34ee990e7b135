// Data-parallel calls (docs/guide.md "Data-parallel calls"): sched.parReduce and sched.parMap
// against one JS thread running the same loop, a hand-written fork-join at each of several
// chunk sizes (the best one is the bar: the adaptive splitter has no chunk size to tune), and
// rayon's par_iter on the same work (bench/peers/rayon-par, built here offline from Debian's
// librust-rayon-dev; skipped with a note where cargo or the crate is absent). Three workloads:
//   sum:    the sum of a 10,000,000-element Float64Array on a SharedArrayBuffer (per chunk)
//   map:    a hash of each of 1,000,000 indices (~50 ns an item), the results back in order
//   spread: 100 items of ~10 ms each: how evenly they spread (items per thread, efficiency)
// Rounds alternate the variants, so a slow spell of the shared machine hits all alike; the
// figures are medians. Prints the load average before and after: the machine is shared.
//
//   npm run build && node bench/par.mjs [--rounds 11] [--warm 10] [--procs 2] [--sum-n 10000000]
//     [--map-n 1000000] [--items 100] [--item-ms 10] [--only sum,map,spread]

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Scheduler } from '../dist/bindings/index.js';
import { hash, hashRounds, sumChunk } from './par-tasks.mjs';
import { loadavg } from './lib/machine.mjs';

const flag = (name, dflt) => {
  const i = process.argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${process.argv[i + 1]}`);
  return v;
};
const ROUNDS = flag('--rounds', 11);
const WARM = flag('--warm', 10); // untimed runs of each variant first: the JITs of every thread warm
const PROCS = flag('--procs', 2);
const SUM_N = flag('--sum-n', 10_000_000);
const MAP_N = flag('--map-n', 1_000_000);
const ITEMS = flag('--items', 100);
const ITEM_MS = flag('--item-ms', 10);
const oi = process.argv.indexOf('--only');
const ONLY = oi < 0 ? ['sum', 'map', 'spread'] : process.argv[oi + 1].split(',');
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const tasks = new URL('./par-tasks.mjs', import.meta.url);
const peerDir = fileURLToPath(new URL('./peers/rayon-par/', import.meta.url));

console.log(`data-parallel calls, ${PROCS} Ps, ${ROUNDS} rounds, node ${process.version}, load average ${loadavg()} (a shared machine: read ratios with a margin)`);

// ---- rayon ------------------------------------------------------------------------------------
const build = spawnSync('cargo', ['build', '--release', '--offline', '--quiet'], { cwd: peerDir, encoding: 'utf8' });
const rayonBin = `${peerDir}target/release/rayon-par`;
const rayon = build.status === 0 && existsSync(rayonBin) ? rayonBin : null;
if (rayon === null) console.log(`note: rayon skipped (${build.error ? build.error.message : (build.stderr || '').trim().split('\n').slice(-1)[0]})`);
/** One timed run of the rayon program (its own warm-up first): ms and its result. */
function runRayon(work, n, iters, threads) {
  const r = spawnSync(rayon, [work, String(n), String(iters), String(threads), '1'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`rayon-par ${work}: ${r.stderr}`);
  return { ms: Number(/ms ([\d.]+)/.exec(r.stdout)[1]), result: /result (.*)/.exec(r.stdout)[1] };
}

// ---- the schedulers -----------------------------------------------------------------------------
const sched = {
  wasm: await Scheduler.start({ tasks, procs: PROCS, backend: 'wasm' }),
  js: await Scheduler.start({ tasks, procs: PROCS, backend: 'js' }),
};

/** Runs every variant once per round, in a rotating order; returns the medians (ms). */
async function rounds(variants) {
  const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const names = Object.keys(variants);
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < names.length; j++) {
      const k = names[(j + r) % names.length];
      const t0 = performance.now();
      const ms = await variants[k]();
      times[k].push(typeof ms === 'number' ? ms : performance.now() - t0);
    }
  }
  return Object.fromEntries(names.map((k) => [k, median(times[k])]));
}

function table(title, med, base, bestFj, extra = {}) {
  console.log(`\n${title}`);
  for (const [k, ms] of Object.entries(med)) {
    const vs = k === base ? '' : `  ${(med[base] / ms).toFixed(2)}x one JS thread`;
    console.log(`  ${k.padEnd(32)} ${ms.toFixed(2).padStart(9)} ms${vs}${extra[k] ?? ''}`);
  }
  if (bestFj !== null) console.log(`  best hand-written fork-join: ${bestFj}`);
}

const grains = (n) => [2, 8, 32, 128, 1024, 8192].map((d) => Math.max(1, Math.floor(n / d)));

// ---- sum ------------------------------------------------------------------------------------
if (ONLY.includes('sum')) {
  const arr = new Float64Array(new SharedArrayBuffer(8 * SUM_N));
  for (let i = 0; i < SUM_N; i++) arr[i] = i * 0.5;
  const want = sumChunk(null, 0, SUM_N, arr);
  const close = (x) => Math.abs(x - want) <= 1e-9 * Math.abs(want);
  const check = (what, x) => { if (!close(x)) throw new Error(`sum ${what}: ${x}, want ${want}`); };
  for (const s of Object.values(sched)) {
    await s.broadcast('setSrc', arr); // the hand-written fork-join's array, on every thread
    for (let w = 0; w < WARM; w++) { await s.parReduce('sumChunk', arr, 'add', { chunk: true }); await s.run('fjSum', 0, SUM_N, SUM_N >> 6); }
  }
  for (let w = 0; w < WARM; w++) sumChunk(null, 0, SUM_N, arr);
  const v = {
    'one JS thread': () => { check('one thread', sumChunk(null, 0, SUM_N, arr)); },
    'parReduce (wasm)': async () => { check('wasm', await sched.wasm.parReduce('sumChunk', arr, 'add', { chunk: true })); },
    'parReduce (js core)': async () => { check('js', await sched.js.parReduce('sumChunk', arr, 'add', { chunk: true })); },
  };
  for (const g of grains(SUM_N)) v[`fork-join, chunk ${g}`] = async () => { check(`fj ${g}`, await sched.wasm.run('fjSum', 0, SUM_N, g)); };
  if (rayon) {
    v['rayon par_iter().sum()'] = () => runRayon('sum', SUM_N, 0, PROCS).ms;
    v['rayon, sequential iter().sum()'] = () => runRayon('sum', SUM_N, 0, 0).ms;
  }
  const med = await rounds(v);
  const fj = Object.entries(med).filter(([k]) => k.startsWith('fork-join')).sort((a, b) => a[1] - b[1])[0];
  table(`sum of ${SUM_N.toLocaleString('en')} f64 on a SharedArrayBuffer (parReduce, chunk: true)`, med, 'one JS thread', `${fj[0]}, ${fj[1].toFixed(2)} ms`);
  console.log(`  parReduce (wasm) / one JS thread: ${(med['one JS thread'] / med['parReduce (wasm)']).toFixed(2)}x   (target >= 1.6x)`);
  console.log(`  parReduce (wasm) / best fork-join: ${(med['parReduce (wasm)'] / fj[1]).toFixed(2)}x the time   (target <= 1.2x)`);
  if (rayon) console.log(`  rayon par_iter speed-up over its sequential loop: ${(med['rayon, sequential iter().sum()'] / med['rayon par_iter().sum()']).toFixed(2)}x`);
}

// ---- map ------------------------------------------------------------------------------------
if (ONLY.includes('map')) {
  let want = 0;
  const seq = () => { const out = new Array(MAP_N); for (let i = 0; i < MAP_N; i++) out[i] = hash(null, i); return out; };
  for (const x of seq()) want += x;
  const check = (what, out) => {
    let s = 0;
    for (const x of out) s += x;
    if (out.length !== MAP_N || s !== want || out[MAP_N - 1] !== hash(null, MAP_N - 1)) throw new Error(`map ${what}: wrong results`);
  };
  const into = new Int32Array(new SharedArrayBuffer(4 * MAP_N));
  for (const s of Object.values(sched)) for (let w = 0; w < WARM; w++) { await s.parMap('hash', MAP_N); await s.run('fjMap', 0, MAP_N, MAP_N >> 6); await s.parForEach('hashInto', into, { chunk: true }); }
  for (let w = 0; w < WARM; w++) seq();
  const v = {
    'one JS thread': () => { check('one thread', seq()); },
    'parMap (wasm)': async () => { check('wasm', await sched.wasm.parMap('hash', MAP_N)); },
    'parMap (js core)': async () => { check('js', await sched.js.parMap('hash', MAP_N)); },
    // The same results written in place into a shared Int32Array: nothing crosses threads.
    'parForEach into shared (wasm)': async () => { await sched.wasm.parForEach('hashInto', into, { chunk: true }); check('into', into); },
  };
  for (const g of grains(MAP_N)) v[`fork-join, chunk ${g}`] = async () => { check(`fj ${g}`, await sched.wasm.run('fjMap', 0, MAP_N, g)); };
  if (rayon) {
    v['rayon par_iter().map().collect()'] = () => runRayon('map', MAP_N, 0, PROCS).ms;
    v['rayon, sequential'] = () => runRayon('map', MAP_N, 0, 0).ms;
  }
  const med = await rounds(v);
  const fj = Object.entries(med).filter(([k]) => k.startsWith('fork-join')).sort((a, b) => a[1] - b[1])[0];
  table(`map of ${MAP_N.toLocaleString('en')} small items (hash, ~50 ns each; results back to the main thread in order)`, med, 'one JS thread', `${fj[0]}, ${fj[1].toFixed(2)} ms`);
  console.log(`  parMap (wasm) / one JS thread: ${(med['one JS thread'] / med['parMap (wasm)']).toFixed(2)}x   (target >= 1.6x)`);
  console.log(`  parMap (wasm) / best fork-join: ${(med['parMap (wasm)'] / fj[1]).toFixed(2)}x the time   (target <= 1.2x)`);
  console.log(`  parForEach into a shared Int32Array (wasm) / one JS thread: ${(med['one JS thread'] / med['parForEach into shared (wasm)']).toFixed(2)}x`);
  if (rayon) console.log(`  rayon par_iter speed-up over its sequential loop: ${(med['rayon, sequential'] / med['rayon par_iter().map().collect()']).toFixed(2)}x`);
}

// ---- spread ---------------------------------------------------------------------------------
if (ONLY.includes('spread')) {
  // Rounds of hash for one item of ITEM_MS on this thread, measured now.
  let rounds1 = 100_000;
  for (;;) {
    const t0 = performance.now();
    hashRounds(1, rounds1);
    const ms = performance.now() - t0;
    if (ms > 20) { rounds1 = Math.round(rounds1 * ITEM_MS / ms); break; }
    rounds1 *= 2;
  }
  for (const s of Object.values(sched)) await s.broadcast('setSpin', rounds1); // every thread's item size
  const perThread = {};
  const v = {
    'one JS thread': () => { for (let i = 0; i < ITEMS; i++) hashRounds(i, rounds1); },
    'parMap (wasm)': async () => {
      const r = await sched.wasm.parMap('spinItem', ITEMS);
      const c = {};
      for (const [, m] of r) c[m] = (c[m] ?? 0) + 1;
      (perThread.wasm ??= []).push(Object.values(c).sort((a, b) => b - a).join('/'));
    },
    'parMap (js core)': async () => { await sched.js.parMap('spinItem', ITEMS); },
  };
  if (rayon) {
    v['rayon par_iter (same rounds)'] = () => runRayon('spin', ITEMS, rounds1, PROCS).ms;
    v['rayon, sequential'] = () => runRayon('spin', ITEMS, rounds1, 0).ms;
  }
  const med = await rounds(v);
  const eff = (par, one) => (med[one] / (PROCS * med[par])).toFixed(2);
  table(`${ITEMS} items of ~${ITEM_MS} ms (${rounds1} hash rounds each)`, med, 'one JS thread', null, {
    'parMap (wasm)': `, efficiency ${eff('parMap (wasm)', 'one JS thread')}`,
    'parMap (js core)': `, efficiency ${eff('parMap (js core)', 'one JS thread')}`,
    ...(rayon ? { 'rayon par_iter (same rounds)': `, efficiency ${eff('rayon par_iter (same rounds)', 'rayon, sequential')}` } : {}),
  });
  console.log(`  items per thread, each round (wasm): ${perThread.wasm.join('  ')}`);
  console.log(`  efficiency = one thread's time / (${PROCS} x the call's time)   (target > 0.9)`);
}

console.log(`\nload average after: ${loadavg()}`);
await Promise.all(Object.values(sched).map((s) => s.close()));
