// Chart speedup.svg: the real workloads' speed-up by thread count (bench/workloads.mjs run with
// --threads 1,2,...: one table per thread count), a small panel per workload and one for the
// geometric mean. Each line is one implementation over its own one-thread code: stealwork (the
// form a user would pick: chunked UTS, ctx.fork elsewhere) and piscina over one plain JS
// thread, Go's goroutines over Go's sequential code, rayon over the same Rust run sequentially;
// the dashed grey line is the ideal (speed-up = threads). Every point's value is written beside
// it (the first thread count's to its left, the last's at the panel's right). Drawn by run.mjs
// (lib/charts.mjs).

import { Svg, colorOf, runLine, short, spreadLabels } from './svg.mjs';

/** The lines drawn, the summary field each reads, and the form's name the legend gives. */
const SERIES = [
  { name: 'stealwork', field: 'stealwork', label: 'stealwork (over one JS thread)' },
  { name: 'rayon', field: 'rayon', label: 'rayon (over Rust sequential)' },
  { name: 'Go', field: 'go', label: 'Go goroutines (over Go sequential)' },
  { name: 'piscina', field: 'piscina', label: 'piscina (over one JS thread)', dash: '5 3' },
];

const GEOMEAN = { stealwork: 'geomeanStealwork', rayon: 'geomeanRayon', go: 'geomeanGo' };

/**
 * The curves from the workloads suite's JSON: [{ workload, points: { series: [[threads,
 * speed-up], ...] } }], the geometric mean last. A table without `threads` (a suite run before
 * --threads) counts as the suite's --procs.
 */
export function speedupCurves(suite) {
  const tables = (suite.tables ?? []).filter((t) => t.summary?.workloads?.length);
  const byName = new Map();
  const geo = { workload: 'geometric mean', points: {} };
  for (const t of tables) {
    const p = t.summary.threads ?? t.threads ?? suite.options?.procs;
    for (const w of t.summary.workloads) {
      if (!byName.has(w.workload)) byName.set(w.workload, { workload: w.workload, points: {} });
      const c = byName.get(w.workload);
      for (const s of SERIES) if (Number.isFinite(w[s.field])) (c.points[s.name] ??= []).push([p, w[s.field]]);
    }
    for (const s of SERIES) {
      const v = t.summary[GEOMEAN[s.field]];
      if (Number.isFinite(v)) (geo.points[s.name] ??= []).push([p, v]);
    }
  }
  const out = [...byName.values()];
  if (Object.keys(geo.points).length) out.push(geo);
  for (const c of out) for (const k of Object.keys(c.points)) c.points[k].sort((a, b) => a[0] - b[0]);
  return out;
}

/** One panel at (x0, y0), w x h: axes, the ideal line, a line and markers per series. */
function panel(svg, x0, y0, w, h, curve, threads, yMax) {
  const left = x0 + 40;
  const right = x0 + w - 92;
  const top = y0 + 22;
  const base = y0 + h - 34;
  svg.text(x0 + w / 2 - 30, y0 + 12, curve.workload, { size: 13, weight: 'bold', anchor: 'middle' });
  const tMin = threads[0];
  const tMax = threads[threads.length - 1];
  // The points sit inside the axes: room on the left for the first point's labels.
  const x0p = left + 46;
  const x1p = right - 6;
  const xOf = (t) => (tMax === tMin ? (x0p + x1p) / 2 : x0p + ((t - tMin) / (tMax - tMin)) * (x1p - x0p));
  const yOf = (v) => base - (Math.min(v, yMax) / yMax) * (base - top);
  const step = yMax <= 2 ? 0.5 : yMax <= 5 ? 1 : 2;
  for (let v = 0; v <= yMax + 1e-9; v += step) {
    svg.line(left, yOf(v), right, yOf(v), v === 0 ? '#444' : v === 1 ? '#aaa' : '#e8e8e8');
    svg.text(left - 5, yOf(v) + 4, `${v}x`, { size: 10, anchor: 'end', fill: '#666' });
  }
  for (const t of threads) {
    svg.line(xOf(t), base, xOf(t), base + 4, '#444');
    svg.text(xOf(t), base + 16, String(t), { size: 10, anchor: 'middle', fill: '#444' });
  }
  svg.text((left + right) / 2, base + 29, 'threads', { size: 10.5, anchor: 'middle', fill: '#444' });
  svg.text(x0 + 10, (top + base) / 2, 'speed-up', { size: 10.5, anchor: 'middle', fill: '#444', rotate: true });
  // The ideal: the speed-up equal to the thread count.
  svg.polyline(threads.map((t) => [xOf(t), yOf(t)]), colorOf('ideal', 0), { width: 1.5, dash: '4 4' });
  const labels = [];
  const firsts = [];
  for (const [i, s] of SERIES.entries()) {
    const pts = curve.points[s.name];
    if (!pts?.length) continue;
    const c = colorOf(s.name, i);
    svg.polyline(pts.map(([t, v]) => [xOf(t), yOf(v)]), c, { width: 2.5, dash: s.dash ?? null });
    for (const [t, v] of pts) svg.circle(xOf(t), yOf(v), 4, c, { title: `${curve.workload}, ${s.name}, ${t} thread${t === 1 ? '' : 's'}: ${short(v)}x` });
    // Each point's value beside it (the first to the left, the others to the right).
    const [tl, vl] = pts[pts.length - 1];
    labels.push({ y: yOf(vl) + 4, text: `${s.name} ${short(vl)}x`, color: c, x: xOf(tl) });
    if (pts.length > 1) {
      const [t0, v0] = pts[0];
      firsts.push({ y: yOf(v0) + 4, text: `${short(v0)}x`, color: c, x: xOf(t0) });
    }
  }
  for (const l of spreadLabels(firsts, 11, top + 4, base)) svg.text(l.x - 8, l.y, l.text, { size: 9.5, anchor: 'end', fill: l.color, weight: 'bold' });
  for (const l of spreadLabels(labels, 12, top + 4, base)) svg.text(right + 8, l.y, l.text, { size: 10.5, fill: l.color, weight: 'bold' });
}

/** The SVG text of the chart of the workloads suite's JSON. */
export function drawSpeedup(suite, run = {}) {
  const curves = speedupCurves(suite);
  const threads = [...new Set(curves.flatMap((c) => Object.values(c.points).flatMap((ps) => ps.map(([t]) => t))))].sort((a, b) => a - b);
  const values = curves.flatMap((c) => Object.values(c.points).flatMap((ps) => ps.map(([, v]) => v)));
  const yMax = Math.max(2, Math.ceil(Math.max(...values, ...threads) * 2) / 2);
  const svg = new Svg(1000);
  let y = svg.heading(20, 8, 'Real workloads: speed-up by thread count against rayon and Go (bench/workloads.mjs)', [
    'Each implementation over its own one-thread code: stealwork (chunked UTS, ctx.fork elsewhere) and piscina over one plain JS thread running the same kernel, ' +
      'Go\'s goroutines over Go sequential, rayon over the same Rust sequentially. Dashed grey: speed-up = threads. Higher is better.'
  ], runLine(suite, run));
  y = svg.legend(20, y + 14, [
    ...SERIES.map((s, i) => ({ label: s.label, color: colorOf(s.name, i), dash: s.dash })),
    { label: 'ideal', color: colorOf('ideal', 0), dash: '4 4' },
  ]);
  const cols = 3;
  const pw = 320;
  const ph = 210;
  for (const [i, c] of curves.entries()) panel(svg, 15 + (i % cols) * (pw + 8), y + 8 + Math.floor(i / cols) * (ph + 12), pw, ph, c, threads, yMax);
  return svg.toString(y + 8 + Math.ceil(curves.length / cols) * (ph + 12) + 6);
}
