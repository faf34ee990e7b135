// Suite `workloads`: real workloads with published answers, each beside one plain JS thread,
// piscina, and the same algorithms in Go (sequential and goroutines) and in Rust (sequential and
// rayon), in the same run.
//
//   node bench/workloads.mjs [--quick] [--reps N] [--procs N] [--threads 1,2] [--json FILE]
//                            [--only 'UTS,N-Queens']
//   (--only: the workloads whose name starts with one of those; the geometric mean over them.
//   --threads: the whole suite once per thread count, a table each, for the speed-up curves of
//   bench/lib/chart-speedup.mjs; without it, once at --procs)
//
// Workloads (full size; --quick runs small trees and sizes, checked against one thread):
//   UTS T1, T3   UTS's sample trees with its SHA-1 random number generator (bench/kernels/):
//                T1 geometric, 4,130,071 nodes, depth 10; T3 binomial, 4,112,897 nodes, depth
//                1,572, 3,599,034 leaves. stealwork chunked (a task walks 256 nodes, then forks
//                the oldest half of its stack), a fork per node, and a task per node through
//                ctx.spawn and ctx.join (Go's goroutine per node), [nodes, leaves, depth] per
//                node; piscina: the main thread expands the tree to a level of >= 256 nodes and
//                submits each subtree; Go: the same chunked walk with a goroutine per chunk, and
//                (T3) a goroutine per node; rayon: the chunked walk with a scope's spawn per
//                chunk, and (T3) a parallel iterator over each node's children.
//   N-Queens(14) 365,596 solutions; a fork per placement in the first 3 rows.
//   merge sort   4M float64s (seeded), fork the first half above 32,768 elements, then merge;
//                checked against Float64Array.prototype.sort.
//   Mandelbrot   768 x 768, at most 1,000 iterations a pixel (rows through the set cost up to
//                300x the rows above it); rows split in halves down to 4; checked pixel by pixel
//                against one thread.
// The speed-ups: stealwork's over one plain JS thread running the same kernels (and over its
// own run of the same form on 1 P), Go's parallel over Go's sequential code, rayon's over the
// same Rust code run sequentially; their geometric means over the workloads, same run.

import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { isMain, parseArgs } from './lib/flags.mjs';
import { check, closeSafely, finishProcess, guardRejections, startScheduler } from './lib/guard.mjs';
import { interleave } from './lib/interleave.mjs';
import { header } from './lib/machine.mjs';
import { suiteJSON, writeJSON } from './lib/output.mjs';
import { loadStealwork } from './lib/package.mjs';
import { Results } from './lib/results.mjs';
import { geomean, median, now } from './lib/stats.mjs';
import { printTable } from './lib/table.mjs';
import { buildPeer, runPeer } from './lib/peers.mjs';
import { addCounts, frontier, rootState, walk, walkTree } from './kernels/uts.mjs';
import { TREE_LIST, TREE_NAMES } from './kernels/trees.mjs';
import { count, placements, SOLUTIONS } from './kernels/nqueens.mjs';
import { fillRandom, sort } from './kernels/msort.mjs';
import { rows } from './kernels/mandel.mjs';

const TASKS = new URL('./workload-tasks.mjs', import.meta.url);
const POOL_WORKER = new URL('./workload-pool-worker.mjs', import.meta.url);
/** The variant that runs stealwork's form of a workload on 1 P. */
const ONE_P = 'stealwork 1 P';

export function workloadSizes(quick) {
  return quick
    ? { trees: ['S1', 'S3'], chunk: 256, frontier: 64, queens: [11, 3], msort: [1 << 18, 1 << 14], mandel: [256, 500, 4] }
    : { trees: ['T1', 'T3'], chunk: 256, frontier: 256, queens: [14, 3], msort: [4 << 20, 1 << 15], mandel: [768, 1000, 4] };
}

// ---- the suite -----------------------------------------------------------------------------

/** The peers' binaries (buildPeer), null where one is skipped, with the notes saying why. */
function buildPeers() {
  const peers = { Go: buildPeer('Go'), rayon: buildPeer('rayon') };
  return { go: peers.Go.bin, rayon: peers.rayon.bin, notes: [peers.Go.note, peers.rayon.note].filter((n) => n !== null) };
}

/**
 * The whole suite at P threads: stealwork on P Ps, piscina with P threads, Go with GOMAXPROCS
 * P, rayon with a pool of P. At P = 1 stealwork's scheduler lends no spare thread (a spare
 * would be a second thread) and the row "stealwork 1 P" is that scheduler itself.
 */
async function runWorkloads(opts, P, peers) {
  const { Scheduler } = await loadStealwork();
  const { Piscina } = await import('piscina');
  const S = workloadSizes(opts.quick);
  const reps = opts.reps;
  const threads = `${P} thread${P === 1 ? '' : 's'}`;
  const res = new Results('workloads', `real workloads at ${threads}: stealwork (${P} P${P === 1 ? '' : 's'}) and piscina (${threads}) vs one JS thread; Go (GOMAXPROCS ${P}) vs Go sequential; rayon (${threads}) vs the same Rust sequentially`, 'one JS thread');
  res.extra.threads = P;
  for (const n of peers.notes) res.note(n);
  const { go, rayon } = peers;
  // The package's own one-thread run: the same forms on 1 P, with no spare thread to lend (a
  // spare would steal the forks queued behind a long task: a second thread).
  const sched1 = await startScheduler(Scheduler, { tasks: TASKS, procs: 1, spareThreads: 0 });
  const sched = P === 1 ? sched1 : await startScheduler(Scheduler, { tasks: TASKS, procs: P });
  /** The variants of one native peer: its sequential code and its parallel forms (label -> mode). */
  const peerVariants = (name, bin, args, forms, same) => {
    if (!bin) return {};
    const v = (mode) => ({ peer: name, run: async () => { const r = runPeer(bin, args, mode, P); return { ms: r.ms, ok: same(r.result), what: `${name}: ${r.result}` }; } });
    const out = { [`${name} sequential`]: v('seq') };
    for (const [label, mode] of Object.entries(forms)) out[`${name} ${label}`] = v(mode);
    return out;
  };
  const pool = new Piscina({ filename: fileURLToPath(POOL_WORKER), minThreads: P, maxThreads: P });
  /** Per workload: stealwork's, Go's and rayon's speed-up in the form the geometric mean takes. */
  const summary = [];
  // A workload block runs every variant `reps` times plus a warm-up: its watchdog allows for it.
  const blockMs = (opts.quick ? 60_000 : 240_000) * (reps + 1);
  const wanted = (name) => opts.only.length === 0 || opts.only.some((w) => name.startsWith(w));
  // Each variant runs untimed first, at least once and for this long (lib/interleave.mjs).
  const warmMs = opts.quick ? 300 : 1;

  /**
   * Times every variant of one workload, interleaved, checks each result, and adds the rows:
   * time, and speed-up over the variant's own one-thread code (JS: 'one JS thread', a peer:
   * '<peer> sequential'). `variants` maps a name to { run() -> Promise<{ ms, ok, what }>,
   * peer?: 'Go' | 'rayon' }; `geo` names the forms the geometric mean takes ({ sw, go, rayon }).
   */
  async function measure(key, group, variants, geo) {
    const names = Object.keys(variants);
    const out = await interleave(names, reps, async (v, rep) => {
      if (rep < 0 && variants[v].peer) return null; // a peer program warms itself up
      const r = await variants[v].run();
      check(r.ok, `${group}, ${v}: ${r.what}`);
      return r.ms;
    }, warmMs);
    const seqOf = (v) => (variants[v].peer ? `${variants[v].peer} sequential` : 'one JS thread');
    for (const v of names) res.add({ group, variant: v, metric: 'time', unit: 'ms', better: 'lower', values: out.get(v) });
    const speed = {};
    for (const v of names) {
      if (v === seqOf(v) || v === ONE_P) continue;
      const base = median(out.get(seqOf(v)));
      const xs = out.get(v).map((ms) => base / ms);
      speed[v] = median(xs);
      res.add({ group, variant: v, metric: `speed-up vs ${seqOf(v)}`, chart: v === geo.sw, values: xs });
    }
    let self = NaN;
    if (out.has(ONE_P)) {
      const oneP = median(out.get(ONE_P));
      const xs = out.get(geo.sw).map((ms) => oneP / ms);
      self = median(xs);
      res.add({ group, variant: geo.sw, metric: 'speed-up vs stealwork on 1 P', values: xs });
    }
    summary.push({
      workload: key, stealwork: speed[geo.sw], self, go: geo.go ? speed[geo.go] : NaN, rayon: geo.rayon ? speed[geo.rayon] : NaN, piscina: speed.piscina,
      swForm: geo.sw, goForm: geo.go, rayonForm: geo.rayon,
      perNode: speed['stealwork fork per node'], spawnPerNode: speed['stealwork spawn per node'], goPerNode: speed['Go goroutine per node'], rayonPerNode: speed['rayon per node'],
    });
    return speed;
  }

  const timed = async (fn) => {
    const t0 = now();
    const v = await fn();
    return { ms: now() - t0, v };
  };

  try {
    // UTS: T1 and T3 (quick: S1, S3).
    for (const name of S.trees) {
      if (wanted(`UTS ${name}`)) await res.attempt(`UTS ${name}`, async () => {
        const ti = TREE_NAMES.indexOf(name);
        const t = TREE_LIST[ti];
        const want = t.nodes !== undefined ? [t.nodes, t.leaves, t.depth] : walkTree(t);
        const same = (r) => Array.isArray(r) && r.length === 3 && r[0] === want[0] && r[1] === want[1] && r[2] === want[2];
        const root = rootState(t.seed);
        const root6 = Int32Array.from([...root, 0]);
        const cut = frontier(t, S.frontier);
        const variants = {
          'one JS thread': { run: async () => { const x = await timed(() => walk(t, root6)); return { ms: x.ms, ok: same(x.v), what: `counted ${x.v}, want ${want}` }; } },
          'stealwork chunked': { run: async () => { const x = await timed(() => sched.run('utsChunk', ti, root6, S.chunk)); return { ms: x.ms, ok: same(x.v), what: `counted ${x.v}` }; } },
          'stealwork fork per node': { run: async () => { const x = await timed(() => sched.run('utsTree', ti, ...root)); return { ms: x.ms, ok: same(x.v), what: `counted ${x.v}` }; } },
          'stealwork spawn per node': { run: async () => { const x = await timed(() => sched.run('utsSpawnTree', ti, ...root)); return { ms: x.ms, ok: same(x.v), what: `counted ${x.v}` }; } },
          ...(P > 1 ? { [ONE_P]: { run: async () => { const x = await timed(() => sched1.run('utsChunk', ti, root6, S.chunk)); return { ms: x.ms, ok: same(x.v), what: `counted ${x.v}` }; } } } : {}),
          piscina: {
            run: async () => {
              const x = await timed(async () => {
                const parts = await Promise.all(cut.level.map((n6) => pool.run({ ti, nodes6: n6 }, { name: 'utsWalk' })));
                return parts.reduce(addCounts, [...cut.above]);
              });
              return { ms: x.ms, ok: same(x.v), what: `counted ${x.v}` };
            },
          },
        };
        const perNode = name === 'T3' || name === 'S3';
        const sameText = (r) => r === want.join(' ');
        Object.assign(variants,
          peerVariants('Go', go, ['uts', name, S.chunk], { chunked: 'chunk', ...(perNode ? { 'goroutine per node': 'node' } : {}) }, sameText),
          peerVariants('rayon', rayon, ['uts', name, S.chunk], { chunked: 'chunk', ...(perNode ? { 'per node': 'node' } : {}) }, sameText));
        const g = `UTS ${name}: ${want[0].toLocaleString('en-US')} nodes, ${want[1].toLocaleString('en-US')} leaves, depth ${want[2]}`;
        await measure(`UTS ${name}`, g, variants, { sw: 'stealwork chunked', go: go ? 'Go chunked' : null, rayon: rayon ? 'rayon chunked' : null });
      }, blockMs);
    }

    // N-Queens.
    if (wanted('N-Queens')) await res.attempt('N-Queens', async () => {
      const [n, cut] = S.queens;
      const want = SOLUTIONS[n];
      const tasks = placements(n, cut);
      const variants = {
        'one JS thread': { run: async () => { const x = await timed(() => count(n, 0, 0, 0, 0)); return { ms: x.ms, ok: x.v === want, what: `${x.v}` }; } },
        'stealwork fork': { run: async () => { const x = await timed(() => sched.run('queens', n, 0, 0, 0, 0, cut)); return { ms: x.ms, ok: x.v === want, what: `${x.v}` }; } },
        ...(P > 1 ? { [ONE_P]: { run: async () => { const x = await timed(() => sched1.run('queens', n, 0, 0, 0, 0, cut)); return { ms: x.ms, ok: x.v === want, what: `${x.v}` }; } } } : {}),
        piscina: {
          run: async () => {
            const x = await timed(async () => (await Promise.all(tasks.map(([row, cols, left, right]) => pool.run({ n, row, cols, left, right }, { name: 'queens' })))).reduce((a, b) => a + b, 0));
            return { ms: x.ms, ok: x.v === want, what: `${x.v}` };
          },
        },
      };
      const sameN = (r) => Number(r) === want;
      Object.assign(variants,
        peerVariants('Go', go, ['queens', n, cut], { goroutines: 'par' }, sameN),
        peerVariants('rayon', rayon, ['queens', n, cut], { join: 'par' }, sameN));
      await measure(`N-Queens(${n})`, `N-Queens(${n}): ${want.toLocaleString('en-US')} solutions, a fork per placement of the first ${cut} rows`, variants,
        { sw: 'stealwork fork', go: go ? 'Go goroutines' : null, rayon: rayon ? 'rayon join' : null });
    }, blockMs);

    // Merge sort.
    if (wanted('merge sort')) await res.attempt('merge sort', async () => {
      const [n, cut] = S.msort;
      const abuf = new SharedArrayBuffer(n * 8);
      const bbuf = new SharedArrayBuffer(n * 8);
      const a = new Float64Array(abuf);
      const b = new Float64Array(bbuf);
      const ref = fillRandom(new Float64Array(n)).sort();
      let refSum = 0;
      for (let i = 0; i < n; i++) refSum += ref[i];
      const sorted = () => {
        for (let i = 0; i < n; i++) if (a[i] !== ref[i]) return false;
        return true;
      };
      const poolSort = async (lo, hi, toB) => {
        if (hi - lo <= cut) return pool.run({ abuf, bbuf, lo, hi, toB }, { name: 'msortRange' });
        const mid = (lo + hi) >>> 1;
        await Promise.all([poolSort(lo, mid, !toB), poolSort(mid, hi, !toB)]);
        return pool.run({ abuf, bbuf, lo, mid, hi, toB }, { name: 'msortMerge' });
      };
      // The input is written afresh before every run, outside the time.
      const run = (fn) => async () => {
        fillRandom(a);
        const x = await timed(fn);
        return { ms: x.ms, ok: sorted(), what: 'not the order Float64Array.prototype.sort gives' };
      };
      const variants = {
        'one JS thread': { run: run(() => sort(a, b, 0, n, false)) },
        'stealwork fork': { run: run(() => sched.run('msort', abuf, bbuf, 0, n, false, cut)) },
        ...(P > 1 ? { [ONE_P]: { run: run(() => sched1.run('msort', abuf, bbuf, 0, n, false, cut)) } } : {}),
        piscina: { run: run(() => poolSort(0, n, false)) },
      };
      // A peer sorts its own copy of the same input and prints its sum once sorted.
      const sortedSum = (r) => { const m = /^sorted ([\d.]+)$/.exec(r); return m !== null && Math.abs(Number(m[1]) - refSum) < 1e-3; };
      Object.assign(variants,
        peerVariants('Go', go, ['msort', n, cut], { goroutines: 'par' }, sortedSum),
        peerVariants('rayon', rayon, ['msort', n, cut], { join: 'par' }, sortedSum));
      await measure('merge sort', `merge sort: ${n.toLocaleString('en-US')} float64s, fork above ${cut.toLocaleString('en-US')}`, variants,
        { sw: 'stealwork fork', go: go ? 'Go goroutines' : null, rayon: rayon ? 'rayon join' : null });
    }, blockMs);

    // Mandelbrot.
    if (wanted('Mandelbrot')) await res.attempt('Mandelbrot', async () => {
      const [w, maxIter, grain] = S.mandel;
      const ref = new Int32Array(w * w);
      const want = rows(ref, w, w, 0, w, maxIter);
      const buf = new SharedArrayBuffer(w * w * 4);
      const img = new Int32Array(buf);
      const same = (s) => {
        if (s !== want) return false;
        for (let i = 0; i < img.length; i++) if (img[i] !== ref[i]) return false;
        return true;
      };
      const run = (fn) => async () => {
        img.fill(-1);
        const x = await timed(fn);
        return { ms: x.ms, ok: same(x.v), what: `sum ${x.v}, want ${want}, or pixels differ from one thread's` };
      };
      const bands = [];
      for (let y = 0; y < w; y += grain) bands.push([y, Math.min(w, y + grain)]);
      const variants = {
        'one JS thread': { run: run(() => rows(img, w, w, 0, w, maxIter)) },
        'stealwork fork': { run: run(() => sched.run('mandel', buf, w, w, 0, w, maxIter, grain)) },
        ...(P > 1 ? { [ONE_P]: { run: run(() => sched1.run('mandel', buf, w, w, 0, w, maxIter, grain)) } } : {}),
        piscina: { run: run(async () => (await Promise.all(bands.map(([y0, y1]) => pool.run({ buf, w, h: w, y0, y1, maxIter }, { name: 'mandelRows' })))).reduce((x, y) => x + y, 0)) },
      };
      const sameSum = (r) => Number(r) === want;
      Object.assign(variants,
        peerVariants('Go', go, ['mandel', w, maxIter, grain], { goroutines: 'par' }, sameSum),
        peerVariants('rayon', rayon, ['mandel', w, maxIter, grain], { join: 'par' }, sameSum));
      let costly = 0;
      let cheap = Infinity;
      for (let y = 0; y < w; y++) {
        let s = 0;
        for (let x = 0; x < w; x++) s += ref[y * w + x];
        costly = Math.max(costly, s);
        cheap = Math.min(cheap, s);
      }
      await measure('Mandelbrot', `Mandelbrot ${w} x ${w}, <= ${maxIter} iterations, rows split down to ${grain}`, variants,
        { sw: 'stealwork fork', go: go ? 'Go goroutines' : null, rayon: rayon ? 'rayon join' : null });
      res.note(`Mandelbrot: the costliest row takes ${Math.round(costly / cheap)}x the iterations of the cheapest`);
    }, blockMs);
  } finally {
    if (sched !== sched1) await closeSafely(sched);
    await closeSafely(sched1);
    await pool.destroy();
  }

  const gSw = geomean(summary.map((s) => s.stealwork));
  const gGo = geomean(summary.map((s) => s.go));
  const gSelf = geomean(summary.map((s) => s.self));
  const gRayon = geomean(summary.map((s) => s.rayon));
  res.extra.summary = { threads: P, workloads: summary, geomeanStealwork: gSw, geomeanSelf: gSelf, geomeanGo: gGo, geomeanRayon: gRayon };
  res.extra.sizes = S;
  return res;
}

/** The lines the targets are stated in (issue 17), from the finished table. */
function printTargets(res, P) {
  const sum = res.extra.summary;
  if (!sum) return;
  const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');
  console.log(`\n  speed-up over its own one-thread code at ${P} thread${P === 1 ? '' : 's'} (median of the repetitions), the form in the geometric mean:`);
  for (const s of sum.workloads) {
    console.log(`    ${s.workload.padEnd(14)} stealwork ${s.swForm.replace('stealwork ', '')}: ${s.stealwork.toFixed(2)}x${P > 1 ? ` (over 1 P: ${s.self.toFixed(2)}x)` : ''}   ` +
      `${s.goForm ? `${s.goForm}: ${s.go.toFixed(2)}x` : 'Go: skipped'}   ${s.rayonForm ? `${s.rayonForm}: ${s.rayon.toFixed(2)}x` : 'rayon: skipped'}`);
  }
  console.log(`  geometric mean: stealwork ${sum.geomeanStealwork.toFixed(2)}x over one JS thread${P > 1 ? `, ${sum.geomeanSelf.toFixed(2)}x over its own run on 1 P` : ''}; ` +
    `Go ${x(sum.geomeanGo)} over Go sequential; rayon ${x(sum.geomeanRayon)} over the same Rust sequentially (target: stealwork >= Go)`);
  const t3 = res.rows.find((r) => r.group.startsWith('UTS T3') && r.variant === 'stealwork fork per node' && r.metric.startsWith('speed-up'));
  if (t3) console.log(`  UTS T3, a fork per node, [nodes, leaves, depth] per node: ${t3.median.toFixed(2)}x one plain JS thread on ${P} P${P === 1 ? '' : 's'} (target >= 1.3x)`);
  const sp = res.rows.find((r) => r.group.startsWith('UTS T3') && r.variant === 'stealwork spawn per node' && r.metric.startsWith('speed-up'));
  const go = res.rows.find((r) => r.group.startsWith('UTS T3') && r.variant === 'Go goroutine per node' && r.metric.startsWith('speed-up'));
  if (sp) {
    console.log(`  UTS T3, a task per node through ctx.spawn and ctx.join, [nodes, leaves, depth] per node: ${sp.median.toFixed(2)}x one plain JS thread on ${P} P${P === 1 ? '' : 's'} ` +
      `(target >= 0.45x${go ? `; Go's goroutine per node: ${go.median.toFixed(2)}x Go sequential` : ''})`);
  }
}

if (isMain(import.meta)) {
  const opts = parseArgs(process.argv.slice(2));
  guardRejections();
  header('workloads', opts);
  const t0 = now();
  const peers = buildPeers();
  // One table per thread count, in the order given (the speed-up curves read them all).
  const tables = [];
  for (const P of opts.threads.length ? opts.threads : [opts.procs]) {
    const res = await runWorkloads(opts, P, peers);
    printTable(res, opts.reps);
    printTargets(res, P);
    if (res.failures.length) process.exitCode = 1;
    tables.push(res);
  }
  console.log(`\nworkloads suite: ${((now() - t0) / 1000).toFixed(1)} s`);
  if (opts.json) writeJSON(opts.json, suiteJSON('workloads', tables, { ...opts, threads: tables.map((t) => t.extra.threads) }, workloadSizes(opts.quick), (now() - t0) / 1000));
  await finishProcess();
}
