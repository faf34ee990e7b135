// What the event trace costs: fibc(27) on 2 Ps with `trace: true` against without. Each round
// starts one scheduler of each kind (which goes first alternates, so drift hits both alike),
// warms it up, and times three runs of fibc(27), keeping their median (one run slowed by a GC
// or another process does not decide the round). Prints every round's time and the ratio of
// the medians over the rounds.
//
//   npm run build && node bench/trace-cost.mjs [--rounds N]

import { Scheduler } from '../dist/index.js';

const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 13;
const tasks = new URL('../examples/tasks.mjs', import.meta.url);
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const times = { off: [], on: [] };
for (let r = 0; r < rounds; r++) {
  for (const trace of r % 2 === 0 ? [false, true] : [true, false]) {
    const s = await Scheduler.start({ tasks, procs: 2, trace, traceEvents: 1 << 16 });
    for (let w = 0; w < 3; w++) await s.run('fibc', 22); // warm up the JITs
    const runs = [];
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      await s.run('fibc', 27);
      runs.push(performance.now() - t0);
    }
    times[trace ? 'on' : 'off'].push(median(runs));
    await s.close();
  }
}
console.log(`fibc(27) on 2 Ps, ${rounds} alternating rounds, median of 3 runs each (ms)`);
console.log(`  trace off: ${times.off.map((t) => t.toFixed(1)).join(' ')}  median ${median(times.off).toFixed(1)}`);
console.log(`  trace on:  ${times.on.map((t) => t.toFixed(1)).join(' ')}  median ${median(times.on).toFixed(1)}`);
console.log(`  cost of tracing: ${((median(times.on) / median(times.off) - 1) * 100).toFixed(1)}%`);
