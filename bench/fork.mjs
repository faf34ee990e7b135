// Fork per call: fib(n) with a fork (stealwork's ctx.fork, both backends), a rayon::join (Rust)
// and a goroutine (Go) per call, and one plain JS thread, in the same run. Rounds alternate the
// variants so a slow spell of a shared machine hits all alike; each round times one run of
// each (the peers time theirs in-process, after a warm-up). Prints every run, the medians in
// calls per second (fib(n) makes 2 fib(n+1) - 1 calls) and the ratios. The Rust and Go programs
// (bench/peers/) are built here, offline: Rust from Debian's librust-rayon-dev, Go from
// golang-go; each is skipped with a note where its toolchain is absent.
//
// Then the continuation form, fibc(n) (a task per call joined by ctx.join, no fork), on the Wasm
// backend. With --baseline <dir> (a built checkout of another version: its dist/ is loaded into
// this process), every stealwork row runs on that version too, alternating in the same rounds,
// and the ratios against it are printed: the A/B for a change to the runtime or the core.
//
//   npm run build && node bench/fork.mjs [--n 30] [--go-n 27] [--fibc-n 27] [--rounds 7]
//     [--procs 2] [--baseline <dir>]

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Scheduler } from '../dist/index.js';
import { seqfib } from './fork-tasks.mjs';

const flag = (name, dflt) => {
  const i = process.argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${process.argv[i + 1]}`);
  return v;
};
const N = flag('--n', 30);
const GO_N = flag('--go-n', 27); // a goroutine per call is slow: a smaller tree keeps the run short
const FIBC_N = flag('--fibc-n', 27);
const bi = process.argv.indexOf('--baseline');
const BASELINE = bi < 0 ? null : resolve(process.argv[bi + 1] ?? '');
if (BASELINE !== null && !existsSync(`${BASELINE}/dist/bindings/index.js`)) {
  throw new TypeError(`--baseline must name a built checkout (no ${BASELINE}/dist/bindings/index.js)`);
}
const ROUNDS = flag('--rounds', 7);
const PROCS = flag('--procs', 2);
const calls = (n) => 2 * fibOf(n + 1) - 1;
const fibOf = (n) => { let a = 0, b = 1; for (let i = 0; i < n; i++) [a, b] = [b, a + b]; return a; };
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const peers = fileURLToPath(new URL('./peers/', import.meta.url));
const tasks = new URL('./fork-tasks.mjs', import.meta.url);

function build(what, cmd, args, cwd, bin) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0 || !existsSync(bin)) {
    console.log(`note: ${what} skipped (${r.error ? r.error.message : (r.stderr || '').trim().split('\n').slice(-1)[0]})`);
    return null;
  }
  return bin;
}

/** Runs a peer program for one timed run of fib(n); returns ms, checking its result. */
function runPeer(bin, n) {
  const r = spawnSync(bin, [String(n), '1', String(PROCS)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${bin} failed: ${r.stderr}`);
  const ms = Number(/ms ([\d.]+)/.exec(r.stdout)[1]);
  const result = Number(/result (\d+)/.exec(r.stdout)[1]);
  if (result !== fibOf(n)) throw new Error(`${bin}: fib(${n}) = ${result}, want ${fibOf(n)}`);
  return ms;
}

const rayon = build('rayon::join (Rust)', 'cargo', ['build', '--release', '--offline', '--quiet'], `${peers}rayon-fib`, `${peers}rayon-fib/target/release/rayon-fib`);
const go = build('goroutine per call (Go)', 'go', ['build', '-o', 'go-fib', '.'], `${peers}go-fib`, `${peers}go-fib/go-fib`);

const scheds = {
  wasm: await Scheduler.start({ tasks, procs: PROCS, backend: 'wasm' }),
  js: await Scheduler.start({ tasks, procs: PROCS, backend: 'js' }),
  fibc: await Scheduler.start({ tasks, procs: PROCS, backend: 'wasm' }), // its own: the fork run's stats stay its own
};
if (BASELINE !== null) {
  const base = await import(pathToFileURL(`${BASELINE}/dist/bindings/index.js`).href);
  scheds['wasm base'] = await base.Scheduler.start({ tasks, procs: PROCS, backend: 'wasm' });
  scheds['js base'] = await base.Scheduler.start({ tasks, procs: PROCS, backend: 'js' });
  scheds['fibc base'] = await base.Scheduler.start({ tasks, procs: PROCS, backend: 'wasm' });
}
for (const s of Object.values(scheds)) for (let w = 0; w < 3; w++) { await s.run('ffib', N - 4); await s.run('fibc', FIBC_N - 4); } // warm the JITs
for (let w = 0; w < 3; w++) seqfib(N - 4);

const times = { 'stealwork wasm': [], 'stealwork js': [], 'one JS thread': [], 'rayon::join': [], 'Go goroutines': [], 'fibc wasm': [] };
const sizes = { 'stealwork wasm': N, 'stealwork js': N, 'one JS thread': N, 'rayon::join': N, 'Go goroutines': GO_N, 'fibc wasm': FIBC_N };
const order0 = ['stealwork wasm', 'stealwork js', 'one JS thread', 'rayon::join', 'Go goroutines', 'fibc wasm'];
if (BASELINE !== null) {
  for (const v of ['baseline wasm', 'baseline js', 'fibc baseline wasm']) { times[v] = []; sizes[v] = v.startsWith('fibc') ? FIBC_N : N; }
  order0.splice(2, 0, 'baseline wasm', 'baseline js');
  order0.push('fibc baseline wasm');
}
const schedOf = { 'stealwork wasm': 'wasm', 'stealwork js': 'js', 'baseline wasm': 'wasm base', 'baseline js': 'js base', 'fibc wasm': 'fibc', 'fibc baseline wasm': 'fibc base' };
for (let r = 0; r < ROUNDS; r++) {
  const order = order0.slice();
  if (r % 2 === 1) order.reverse();
  for (const v of order) {
    let ms;
    if (v === 'rayon::join') { if (!rayon) continue; ms = runPeer(rayon, N); }
    else if (v === 'Go goroutines') { if (!go) continue; ms = runPeer(go, GO_N); }
    else if (v === 'one JS thread') {
      const t0 = performance.now();
      const x = seqfib(N);
      ms = performance.now() - t0;
      if (x !== fibOf(N)) throw new Error(`seqfib(${N}) = ${x}`);
    } else {
      const s = scheds[schedOf[v]];
      const [task, n] = v.startsWith('fibc') ? ['fibc', FIBC_N] : ['ffib', N];
      const t0 = performance.now();
      const x = await s.run(task, n);
      ms = performance.now() - t0;
      if (x !== fibOf(n)) throw new Error(`${v}: ${task}(${n}) = ${x}`);
    }
    times[v].push(ms);
  }
}
const st = scheds.wasm.stats();
for (const s of Object.values(scheds)) await s.close();

console.log(`fork per call, fib(${N}) (${calls(N).toLocaleString('en')} calls; Go: fib(${GO_N})), ${PROCS} threads, ${ROUNDS} alternating rounds${BASELINE !== null ? `; baseline: ${BASELINE}` : ''}`);
const rate = {};
for (const [v, ts] of Object.entries(times)) {
  if (ts.length === 0 || v.startsWith('fibc')) continue;
  rate[v] = calls(sizes[v]) / (median(ts) / 1000);
  console.log(`  ${v.padEnd(15)} ${(rate[v] / 1e6).toFixed(2).padStart(8)} M calls/s  (median ${median(ts).toFixed(1)} ms; runs ${ts.map((t) => t.toFixed(0)).join(' ')})`);
}
const ratio = (a, b) => (rate[a] && rate[b] ? `${(rate[a] / rate[b]).toFixed(2)}x` : 'n/a (skipped)');
console.log(`  stealwork wasm / rayon::join:   ${ratio('stealwork wasm', 'rayon::join')}   (target >= 0.10x)`);
console.log(`  stealwork wasm / Go goroutines: ${ratio('stealwork wasm', 'Go goroutines')}   (target >= 10x)`);
console.log(`  stealwork wasm / stealwork js:  ${ratio('stealwork wasm', 'stealwork js')}   (target >= 2x)`);
console.log(`  stealwork wasm / one JS thread: ${ratio('stealwork wasm', 'one JS thread')}`);
if (BASELINE !== null) {
  console.log(`  stealwork wasm / baseline wasm: ${ratio('stealwork wasm', 'baseline wasm')}`);
  console.log(`  stealwork js / baseline js:     ${ratio('stealwork js', 'baseline js')}`);
}
console.log(`  wasm run: ${st.totals.forks.toLocaleString('en')} forks, ${st.totals.forkInline.toLocaleString('en')} run inline by their forker, ${st.totals.stolen.toLocaleString('en')} Gs stolen`);

console.log(`continuation form, fibc(${FIBC_N}) (${calls(FIBC_N).toLocaleString('en')} task calls), Wasm backend, same rounds`);
for (const v of ['fibc wasm', 'fibc baseline wasm']) {
  const ts = times[v];
  if (ts === undefined) continue;
  rate[v] = calls(FIBC_N) / (median(ts) / 1000);
  console.log(`  ${v.padEnd(18)} ${(rate[v] / 1e6).toFixed(2).padStart(8)} M calls/s  (median ${median(ts).toFixed(1)} ms; runs ${ts.map((t) => t.toFixed(0)).join(' ')})`);
}
if (BASELINE !== null) console.log(`  fibc wasm / fibc baseline wasm: ${ratio('fibc wasm', 'fibc baseline wasm')}   (target >= 2x)`);
