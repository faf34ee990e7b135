// Watch the scheduler: a skewed fork-join with schedtrace on, and an event trace written to a
// file you can open in ui.perfetto.dev or chrome://tracing.
//
//   npm run build && node examples/trace-demo.mjs [out.json]

import { Scheduler } from '../dist/index.js';
import { writeFileSync } from 'node:fs';

const out = process.argv[2] ?? 'stealwork-trace.json';
const sched = await Scheduler.start({
  tasks: new URL('./tasks.mjs', import.meta.url),
  procs: 2,
  schedtrace: 25,               // Go's SCHED line every 25 ms (same as STEALWORK_DEBUG=schedtrace=25)
  trace: true,                  // record spawns, task starts, steals, parks and wake-ups
  logger: (line) => console.log(line),
});
try {
  const t0 = performance.now();
  const total = await sched.run('skewed', 300, 200, 42);
  console.log(`skewed: ${(total / 1000).toFixed(1)} ms of work in ${(performance.now() - t0).toFixed(1)} ms on 2 Ps`);
} finally {
  await sched.close();
}
const trace = sched.trace();
writeFileSync(out, JSON.stringify(trace));
const steals = trace.traceEvents.filter((e) => e.name === 'steal' && e.ph === 'i').length;
console.log(`wrote ${out}: ${trace.traceEvents.length} events, ${steals} steals; open it in ui.perfetto.dev`);
