// The main job: a fine-grained and a skewed fork-join on both backends, with per-P counts of
// local runs and steals, so you can watch work stealing happen.
//
//   npm start            (builds first)
//   node examples/demo.mjs [--procs N]

import { Scheduler } from '../dist/index.js';
import { availableParallelism } from 'node:os';

const argv = process.argv.slice(2);
const procsArg = argv.indexOf('--procs');
const procs = procsArg >= 0 ? Number(argv[procsArg + 1]) : Math.max(2, availableParallelism());
const tasks = new URL('./tasks.mjs', import.meta.url);

function table(rows) {
  const keys = Object.keys(rows[0]);
  const w = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (vals) => vals.map((v, i) => String(v).padStart(w[i])).join('  ');
  console.log('    ' + line(keys));
  for (const r of rows) console.log('    ' + line(keys.map((k) => r[k])));
}

function perP(before, after) {
  return after.procs.map((p, i) => {
    const b = before.procs[i];
    return {
      P: p.id < procs ? p.id : `${p.id} (spare)`,
      executed: p.executed - b.executed,
      runnext: p.runnextHits - b.runnextHits,
      local: p.localHits - b.localHits,
      global: p.globalHits - b.globalHits,
      steals: p.stealOps - b.stealOps,
      stolen: p.stolen - b.stolen,
      'stolen from': p.stolenFrom - b.stolenFrom,
    };
  });
}

console.log(`stealwork demo: ${procs} Ps on a machine with ${availableParallelism()} CPUs\n` +
  `(the tables also list P${procs}, the spare P that the monitor lends to the work queued behind a P\n` +
  ` that has run one task for 10 ms; spareThreads: 1 by default)\n`);
for (const backend of ['wasm', 'js']) {
  const sched = await Scheduler.start({ tasks, procs, backend });
  try {
  console.log(`== backend '${backend}'`);

  await sched.run('fibc', 18); // warm up the JITs on every thread
  let s0 = sched.stats();
  let t0 = performance.now();
  const n = 25;
  const r = await sched.run('fibc', n);
  let ms = performance.now() - t0;
  let s1 = sched.stats();
  const calls = s1.totals.executed - s0.totals.executed;
  console.log(`  fibc(${n}) = ${r}: ${calls} Gs (task calls + join continuations) in ${ms.toFixed(1)} ms, ` +
    `${(calls / ms / 1000).toFixed(2)} M Gs/s`);
  table(perP(s0, s1));

  s0 = sched.stats();
  t0 = performance.now();
  const leaves = 400;
  const total = await sched.run('skewed', leaves, 100, 7);
  ms = performance.now() - t0;
  s1 = sched.stats();
  // A spare P the monitor lent (a P looked stuck for 10 ms: a long task, a GC pause, the OS)
  // ran too: count it, or the efficiency would read above 1.
  const ran = s1.procs.filter((p, i) => p.executed > s0.procs[i].executed).length;
  const efficiency = total / 1000 / (ran * ms);
  console.log(`\n  skewed: ${leaves} leaves (1 in 10 is 50x longer), ${(total / 1000).toFixed(1)} ms of work ` +
    `in ${ms.toFixed(1)} ms on ${ran} Ps${ran > procs ? ` (${ran - procs} lent by the monitor)` : ''}: efficiency ${efficiency.toFixed(2)}`);
  table(perP(s0, s1));
  console.log('');
  } finally {
    await sched.close();
  }
}
