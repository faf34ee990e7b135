// Fork per call: fib(n) with a fork (stealwork's ctx.fork, both backends), a rayon::join (Rust)
// and a goroutine (Go) per call, and one plain JS thread, in the same run. Rounds alternate the
// variants so a slow spell of a shared machine hits all alike; each round times one run of
// each (the peers time theirs in-process, after a warm-up). Prints every run, the medians in
// calls per second (fib(n) makes 2 fib(n+1) - 1 calls) and the ratios. The Rust and Go programs
// (bench/peers/) are built here, offline: Rust from Debian's librust-rayon-dev, Go from
// golang-go; each is skipped with a note where its toolchain is absent.
//
//   npm run build && node bench/fork.mjs [--n 30] [--go-n 27] [--rounds 7] [--procs 2]

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Scheduler } from '../dist/bindings/index.js';
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
};
for (const s of Object.values(scheds)) for (let w = 0; w < 3; w++) await s.run('ffib', N - 4); // warm the JITs
for (let w = 0; w < 3; w++) seqfib(N - 4);

const times = { 'stealwork wasm': [], 'stealwork js': [], 'one JS thread': [], 'rayon::join': [], 'Go goroutines': [] };
const sizes = { 'stealwork wasm': N, 'stealwork js': N, 'one JS thread': N, 'rayon::join': N, 'Go goroutines': GO_N };
for (let r = 0; r < ROUNDS; r++) {
  const order = ['stealwork wasm', 'stealwork js', 'one JS thread', 'rayon::join', 'Go goroutines'];
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
      const s = scheds[v === 'stealwork wasm' ? 'wasm' : 'js'];
      const t0 = performance.now();
      const x = await s.run('ffib', N);
      ms = performance.now() - t0;
      if (x !== fibOf(N)) throw new Error(`${v}: ffib(${N}) = ${x}`);
    }
    times[v].push(ms);
  }
}
const st = scheds.wasm.stats();
for (const s of Object.values(scheds)) await s.close();

console.log(`fork per call, fib(${N}) (${calls(N).toLocaleString('en')} calls; Go: fib(${GO_N})), ${PROCS} threads, ${ROUNDS} alternating rounds`);
const rate = {};
for (const [v, ts] of Object.entries(times)) {
  if (ts.length === 0) continue;
  rate[v] = calls(sizes[v]) / (median(ts) / 1000);
  console.log(`  ${v.padEnd(15)} ${(rate[v] / 1e6).toFixed(2).padStart(8)} M calls/s  (median ${median(ts).toFixed(1)} ms; runs ${ts.map((t) => t.toFixed(0)).join(' ')})`);
}
const ratio = (a, b) => (rate[a] && rate[b] ? `${(rate[a] / rate[b]).toFixed(2)}x` : 'n/a (skipped)');
console.log(`  stealwork wasm / rayon::join:   ${ratio('stealwork wasm', 'rayon::join')}   (target >= 0.10x)`);
console.log(`  stealwork wasm / Go goroutines: ${ratio('stealwork wasm', 'Go goroutines')}   (target >= 10x)`);
console.log(`  stealwork wasm / stealwork js:  ${ratio('stealwork wasm', 'stealwork js')}   (target >= 2x)`);
console.log(`  stealwork wasm / one JS thread: ${ratio('stealwork wasm', 'one JS thread')}`);
console.log(`  wasm run: ${st.totals.forks.toLocaleString('en')} forks, ${st.totals.forkInline.toLocaleString('en')} run inline by their forker, ${st.totals.stolen.toLocaleString('en')} Gs stolen`);
