// Value codec micro-benchmark: one value's round trip through a G's slot (writeSlot: the slot
// itself for a number, encodeValue into a block for anything else; readSlot; freeSlot) as a task
// argument or result makes it, on the working tree's codec and, with --baseline REF, on the
// codec of another commit, in one run. Each value's time is also given against a number's in the
// same repetition (the small values' fast path, bindings/codec/small.ts, against what travels in
// the slot itself).
//
//   node bench/codec.mjs [--quick] [--reps N] [--json FILE] [--baseline REF]
//
// Each codec is transpiled from its TypeScript (bindings/codec/ and assembly/shared/layout.ts;
// for REF through `git show`) into a temp folder and loaded in a worker thread of its own, so
// neither variant's call sites see the other's functions. The repetitions alternate between the
// variants (rep 1 of each, then rep 2, ...), so a slow spell of a shared machine hits both alike.
// A repetition times batches of round trips (a batch takes about 0.2 ms) for 40 ms (quick:
// 15 ms) per value and reports the fastest batch's ns per round trip (on a shared machine most
// batches are stretched by preemption); the table shows the median over repetitions and its
// ratio to the baseline's. The heap is a bump allocator in JS (one block live at a time), so the figures are
// the codec's own cost, without the core's heap lock.

import { isMainThread, parentPort, workerData, Worker } from 'node:worker_threads';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// ---- the values ------------------------------------------------------------------------------

/** name -> a function making the value (called in the worker, so both variants get equal ones). */
const VALUES = {
  '42 (a number: the slot itself)': () => 42,
  '[n, 1, depth]': () => [1234, 1, 17],
  '[1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]': () => [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5],
  "['a', true, null]": () => ['a', true, null],
  "'hello'": () => 'hello',
  '40-char string': () => 'The quick brown fox jumps over the lazy d',
  '[1, 2, 3]': () => [1, 2, 3],
  "['a', 'b', 'c']": () => ['a', 'b', 'c'],
  '{ id, name, ok }': () => ({ id: 7, name: 'row 7', ok: true }),
  'config (3 levels, 12 leaves)': () => ({
    name: 'job', retries: 3, timeout: 2.5, tags: ['a', 'b'],
    limits: { cpu: 2, mem: 512, burst: { max: 10, window: 1000 } }, enabled: true, owner: null,
  }),
  '10 records': () => Array.from({ length: 10 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0, tags: ['a', 'b'] })),
  '100 numbers': () => Array.from({ length: 100 }, (_, i) => i * 1.5),
  '10,000 numbers': () => Array.from({ length: 10_000 }, (_, i) => i * 1.5),
  '1,000 records': () => Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0 })),
  'Uint8Array(256)': () => new Uint8Array(256).map((_, i) => i),
};

// ---- worker: one codec, timing on request --------------------------------------------------

if (!isMainThread) {
  const codec = await import(workerData.url);
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 4096, shared: true });
  const BASE = 65536;
  let live = 0;
  const heap = {
    heapAlloc(size) {
      if (live !== 0) throw new Error('bench heap: one block at a time');
      const end = BASE + 8 + size;
      if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536));
      live = BASE + 8;
      return live;
    },
    heapFree(addr) {
      if (addr !== live) throw new Error(`bench heap: free of ${addr}, live ${live}`);
      live = 0;
    },
  };
  const views = codec.createViews(memory);
  const values = Object.fromEntries(Object.entries(VALUES).map(([k, make]) => [k, make()]));
  let sink = 0;
  // A G's result slot (its tag byte, then the 8-aligned payload), below the heap.
  const TAG = 1024;
  const SLOT = 1032;
  const roundTrip = (v) => {
    codec.writeSlot(views, heap, TAG, SLOT, v, 'bench', null);
    const back = codec.readSlot(views, TAG, SLOT, null);
    codec.freeSlot(views, heap, TAG, SLOT);
    return back;
  };
  parentPort.on('message', ({ name, ms }) => {
    const v = values[name];
    // Batch size: enough round trips for a batch to take about 0.2 ms.
    let batch = 1;
    for (;;) {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) sink ^= roundTrip(v) === null ? 1 : 0;
      if (performance.now() - t0 >= 0.2 || batch >= 1 << 20) break;
      batch *= 2;
    }
    const samples = [];
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const t0 = performance.now();
      for (let i = 0; i < batch; i++) sink ^= roundTrip(v) === null ? 1 : 0;
      samples.push(((performance.now() - t0) * 1e6) / batch);
    }
    // The fastest batch: on a shared machine most batches are stretched by preemption, and the
    // least disturbed one is the codec's own cost.
    parentPort.postMessage({ ns: Math.min(...samples), sink });
  });
}

// ---- main: build the codecs, alternate the repetitions, print ----------------------------------

/** Transpiles the codec's sources (read by `read(relPath)`) into a temp folder; returns the
 *  index module's URL. */
async function buildCodec(read, list, out) {
  const ts = (await import('typescript')).default;
  const files = [...list('bindings/codec').map((f) => `bindings/codec/${f}`), 'assembly/shared/layout.ts']
    .filter((f) => f.endsWith('.ts'));
  for (const rel of files) {
    const js = ts.transpileModule(read(rel), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    writeFileSync(join(out, rel.replace(/\.ts$/, '.js')), js);
  }
  writeFileSync(join(out, 'package.json'), '{"type":"module"}');
  return pathToFileURL(join(out, 'bindings/codec/index.js')).href;
}

async function main() {
  const { parseArgs } = await import('./lib/flags.mjs');
  const { Results } = await import('./lib/results.mjs');
  const { printTable } = await import('./lib/table.mjs');
  const argv = process.argv.slice(2);
  let baseline = null;
  const at = argv.indexOf('--baseline');
  if (at >= 0) {
    baseline = argv[at + 1];
    if (baseline === undefined || baseline.startsWith('--')) throw new TypeError('--baseline needs a git ref');
    argv.splice(at, 2);
  }
  const opts = parseArgs(argv);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tmp = mkdtempSync(join(tmpdir(), 'stealwork-codec-bench-'));
  try {
    const variants = [{
      name: 'working tree',
      url: await buildCodec((rel) => readFileSync(join(root, rel), 'utf8'), (dir) => readdirSync(join(root, dir)), join(tmp, 'current')),
    }];
    if (baseline !== null) {
      const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
      const commit = git('rev-parse', '--short', baseline).trim();
      variants.unshift({
        name: `${baseline} (${commit})`,
        url: await buildCodec((rel) => git('show', `${commit}:${rel}`),
          (dir) => git('ls-tree', '--name-only', `${commit}:${dir}`).split('\n').filter(Boolean), join(tmp, 'baseline')),
      });
    }
    for (const v of variants) v.worker = new Worker(new URL(import.meta.url), { workerData: { url: v.url } });
    for (const v of variants) {
      v.pending = null;
      v.worker.on('message', (m) => v.pending.resolve(m));
      v.worker.on('error', (e) => v.pending?.reject(e));
    }
    const ask = (v, m) => new Promise((resolve, reject) => {
      v.pending = { resolve, reject };
      v.worker.postMessage(m);
    });
    const ms = opts.quick ? 15 : 40;
    const names = Object.keys(VALUES);
    // Warm-up: every value on every variant, untimed.
    for (const name of names) for (const v of variants) await ask(v, { name, ms: 5 });
    const figures = new Map(); // `${name}\0${variant}` -> ns per rep
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const name of names) {
        for (const v of variants) {
          const key = `${name}\0${v.name}`;
          if (!figures.has(key)) figures.set(key, []);
          figures.get(key).push((await ask(v, { name, ms })).ns);
        }
      }
    }
    const res = new Results('codec', 'value round trip through a slot (writeSlot + readSlot + freeSlot), one thread', variants[0].name);
    const number = names[0];
    for (const name of names) {
      for (const v of variants) {
        const ns = figures.get(`${name}\0${v.name}`);
        res.add({ group: name, variant: v.name, metric: 'ns per round trip', better: 'lower', values: ns });
        if (name === number) continue;
        const base = figures.get(`${number}\0${v.name}`);
        res.add({ group: name, variant: v.name, metric: "x a number's (same rep)", better: 'lower', values: ns.map((x, i) => x / base[i]) });
      }
    }
    res.note(`${opts.reps} repetitions of ${ms} ms per value and variant; each the fastest batch (about 0.2 ms) of its repetition`);
    printTable(res, opts.reps);
    if (opts.json !== null) writeFileSync(opts.json, JSON.stringify(res.toJSON(), null, 2));
    for (const v of variants) await v.worker.terminate();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (isMainThread) await main();
