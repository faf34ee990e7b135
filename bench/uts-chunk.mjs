// The chunked UTS's cost over the plain walk: UTS T1 or T3 walked by one plain JS thread (the
// kernel's own loop, bench/kernels/uts.mjs) and by workload-tasks.mjs's utsChunk on a
// scheduler of --procs Ps (no spare thread), and the walk as one task on a worker ('one task'),
// alternating run by run. Prints, per variant, the
// median wall time and the median CPU time of the whole process (every thread, process.cpuUsage)
// per run, and per repetition the CPU ratio to the plain walk: the work the chunked form adds.
// On a machine shared with other work the wall times (and speed-ups) are not the scheduler's,
// but the CPU ratio still is. With --baseline <dir> (another checkout), its task module's
// utsChunk runs too, on this build's runtime: the A/B for a change to the task.
//
//   npm run build && node bench/uts-chunk.mjs [--tree T1|T3] [--procs 1] [--chunk 256]
//     [--reps 5] [--baseline <dir>]

import process from 'node:process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadStealwork } from './lib/package.mjs';
import { rootState, walk } from './kernels/uts.mjs';
import { TREE_LIST, TREE_NAMES } from './kernels/trees.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const int = (name, dflt) => {
  const v = Number(arg(name, dflt));
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${arg(name, dflt)}`);
  return v;
};
const tree = arg('--tree', 'T3');
if (!['T1', 'T3', 'S1', 'S3'].includes(tree)) throw new RangeError(`--tree must be T1, T3, S1 or S3, got ${tree}`);
const P = int('--procs', 1);
const chunk = int('--chunk', 256);
const reps = int('--reps', 5);
const base = arg('--baseline', null) === null ? null : resolve(arg('--baseline'));
if (base !== null && !existsSync(`${base}/bench/workload-tasks.mjs`)) throw new TypeError(`--baseline must name a checkout (no ${base}/bench/workload-tasks.mjs)`);

const { Scheduler } = await loadStealwork();
const ti = TREE_NAMES.indexOf(tree);
const t = TREE_LIST[ti];
const root6 = Int32Array.from([...rootState(t.seed), 0]);
const want = t.nodes ?? walk(t, root6)[0];
const opts = { procs: P, spareThreads: 0 };
const sched = await Scheduler.start({ tasks: new URL('./workload-tasks.mjs', import.meta.url), ...opts });
const schedBase = base === null ? null : await Scheduler.start({ tasks: pathToFileURL(`${base}/bench/workload-tasks.mjs`), ...opts });
const variants = {
  'one JS thread': async () => walk(t, root6),
  'one task': () => sched.run('utsWalk', ti, root6), // the walk itself, on a worker
  utsChunk: () => sched.run('utsChunk', ti, root6, chunk),
};
if (schedBase !== null) variants['baseline utsChunk'] = () => schedBase.run('utsChunk', ti, root6, chunk);
const names = Object.keys(variants);
const out = new Map(names.map((v) => [v, { wall: [], cpu: [] }]));
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
try {
  for (const v of names) for (let i = 0; i < 2; i++) await variants[v](); // warm every thread's JIT
  for (let r = 0; r < reps; r++) {
    for (const v of names) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const res = await variants[v]();
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (res[0] !== want) throw new Error(`${v} counted ${res[0]} nodes, want ${want}`);
      out.get(v).wall.push(wall);
      out.get(v).cpu.push((c.user + c.system) / 1000);
    }
  }
} finally {
  await sched.close();
  await schedBase?.close();
}
const seq = out.get('one JS thread');
console.log(`UTS ${tree} (${want.toLocaleString('en-US')} nodes), chunk ${chunk}, ${P} P${P > 1 ? 's' : ''} (spareThreads 0), ${reps} reps; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const v of names) {
  const x = out.get(v);
  const cpuRatio = median(x.cpu.map((c, i) => c / seq.cpu[i]));
  const speed = median(x.wall.map((w, i) => seq.wall[i] / w));
  console.log(`  ${v.padEnd(18)} wall ${median(x.wall).toFixed(0).padStart(6)} ms  cpu ${median(x.cpu).toFixed(0).padStart(6)} ms  cpu / one thread's ${cpuRatio.toFixed(3)}  speed-up ${speed.toFixed(3)}`);
}
