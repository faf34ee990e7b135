// Which charts a run's merged results (bench/results/latest.json) make: one SVG per subject,
// each drawn only when its suite is in the results and wrote figures. run.mjs writes them beside
// latest.json; a test draws them from a small fixed results object.
//
//   chart.svg       the scheduler, pools and policies suites (lib/chart-suites.mjs)
//   wasm-vs-ts.svg  the run-queue operations, Wasm core against the TypeScript twin (queue)
//   speedup.svg     the real workloads' speed-up by thread count against rayon and Go (workloads)
//   scale.svg       the scheduler's operations per task by procs (scale)

import { drawChart } from './chart-suites.mjs';
import { drawWasmVsTs } from './chart-wasm-ts.mjs';
import { drawSpeedup } from './chart-speedup.mjs';
import { drawScale } from './chart-scale.mjs';

/** The chart files of a merged results object: [{ file, svg }], in the order above. */
export function drawCharts(latest) {
  const s = latest.suites ?? {};
  const out = [];
  if (['scheduler', 'pools', 'policies'].some((k) => s[k]?.tables?.length)) out.push({ file: 'chart.svg', svg: drawChart(latest) });
  if (s.queue?.rows?.length) out.push({ file: 'wasm-vs-ts.svg', svg: drawWasmVsTs(s.queue, latest) });
  if (s.workloads?.tables?.some((t) => t.summary?.workloads?.length)) out.push({ file: 'speedup.svg', svg: drawSpeedup(s.workloads, latest) });
  if (Object.keys(s.scale?.counts ?? {}).length) out.push({ file: 'scale.svg', svg: drawScale(s.scale, latest) });
  return out;
}
