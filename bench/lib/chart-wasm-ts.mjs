// Chart wasm-vs-ts.svg: each run-queue and core operation of bench/queue.mjs, the Wasm core
// against its pure-TypeScript twin, ns per operation on a log axis (the operations span 10 ns to
// a few hundred), the value on every bar and the ratio TS / Wasm beside each pair. Drawn by
// run.mjs (lib/charts.mjs) from the queue suite's JSON; any caller may draw it.

import { Svg, colorOf, runLine, short } from './svg.mjs';

const SERIES = [['wasm', 'Wasm core', 'wasmNsPerOp'], ['js', 'TypeScript twin', 'tsNsPerOp']];

/** Tick values 1, 2, 5 x 10^k from lo to hi. */
export function logTicks(lo, hi) {
  const out = [];
  for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** k;
      if (v >= lo && v <= hi) out.push(v);
    }
  }
  return out;
}

/** The SVG text of the chart of `queue` (the queue suite's JSON: { rows: [{ op, wasmNsPerOp, tsNsPerOp }] }). */
export function drawWasmVsTs(queue, run = {}) {
  const rows = queue.rows.filter((r) => Number.isFinite(r.wasmNsPerOp) && Number.isFinite(r.tsNsPerOp));
  const svg = new Svg(1000);
  let y = svg.heading(20, 8, 'Run-queue operations: Wasm core against its TypeScript twin (bench/queue.mjs)', [
    'ns per operation, lower is better; log scale. Single-threaded rows: the median tinybench sample divided by its batch, each backend in a worker of its own. ' +
      'Contended rows: wall time per G stolen, 2 or 4 thief threads against one owner.'
  ], runLine(queue, run));
  const colors = SERIES.map(([key], i) => colorOf(key, i));
  y = svg.legend(20, y + 12, SERIES.map(([, label], i) => ({ label, color: colors[i], bar: true })));
  const left = 300;
  const right = 850;
  const all = rows.flatMap((r) => [r.wasmNsPerOp, r.tsNsPerOp]);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all, 10)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all, 10) * 1.5));
  const xOf = (v) => left + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (right - left);
  const top = y + 8;
  const barH = 15;
  const rowH = 2 * barH + 18;
  const bottom = top + rows.length * rowH;
  for (const t of logTicks(lo, hi)) {
    svg.line(xOf(t), top - 4, xOf(t), bottom, t === lo ? '#444' : '#e3e3e3');
    svg.text(xOf(t), bottom + 14, `${t}`, { size: 10, anchor: 'middle', fill: '#666' });
  }
  svg.text((left + right) / 2, bottom + 30, 'ns per operation (log scale)', { size: 11, anchor: 'middle', fill: '#444' });
  svg.text(right + 20, top + 2, 'TS / Wasm', { size: 11, weight: 'bold', fill: '#444' });
  for (const [i, r] of rows.entries()) {
    const ry = top + 6 + i * rowH;
    const label = r.op.replace(/^contended: /, 'contended: ');
    Svg.wrap(label, 40).forEach((l, j) => svg.text(left - 10, ry + 13 + j * 13, l, { size: 11.5, anchor: 'end' }));
    for (const [s, [, name, key]] of SERIES.entries()) {
      const v = r[key];
      const by = ry + s * barH;
      svg.rect(left, by, xOf(v) - left, barH - 2, colors[s], { point: true, title: `${r.op}, ${name}: ${short(v)} ns` });
      svg.text(xOf(v) + 4, by + barH - 5, `${short(v)} ns`, { size: 10, fill: '#333' });
    }
    const ratio = r.tsNsPerOp / r.wasmNsPerOp;
    svg.text(right + 20, ry + barH + 4, `${ratio.toFixed(2)}x`, { size: 12, weight: 'bold', fill: ratio >= 1 ? '#2d7a47' : '#a03c3a' });
  }
  return svg.toString(bottom + 44);
}
