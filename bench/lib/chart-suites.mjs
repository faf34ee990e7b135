// Chart chart.svg: the suites that compare variants of one scheduler run, drawn from the merged
// results (run.mjs, lib/charts.mjs):
//   A. the scheduler suite: wasm vs js per workload, each workload normalised to its best;
//   B. the pools suite: stealwork vs piscina vs tinypool, the same way;
//   C. the policies: each variant against its table's baseline, on a log scale around 1;
// and the workloads that failed in the run. The run-queue operations, the real workloads'
// speed-ups and the scale counts have charts of their own (chart-wasm-ts.mjs,
// chart-speedup.mjs, chart-scale.mjs). Only rows marked `chart` are drawn. Everything is
// "higher is better": a lower-is-better metric (latency, time, CPU) is drawn as best / value,
// and its label says so.

import { COLORS, FALLBACK, Svg, short } from './svg.mjs';

const goodness = (r) => (r.better === 'lower' ? 1 / r.median : r.median);

/**
 * Panel of grouped vertical bars. groups: [{ label, rows }] where rows share one metric; each
 * bar is normalised to the best of its group. Returns the y below the panel.
 */
function barPanel(svg, y0, title, subtitle, groups, series) {
  const left = 50;
  const right = svg.width - 20;
  const plotH = 170;
  svg.text(left - 30, y0 + 16, title, { size: 15, weight: 'bold' });
  svg.text(left - 30, y0 + 33, subtitle, { size: 11, fill: '#555' });
  // legend
  let lx = left;
  const ly = y0 + 50;
  for (const [i, s] of series.entries()) {
    svg.rect(lx, ly - 10, 12, 12, COLORS[s] ?? FALLBACK[i % FALLBACK.length]);
    svg.text(lx + 16, ly, s, { size: 12 });
    lx += 24 + s.length * 7.5;
  }
  const top = y0 + 75;
  const base = top + plotH;
  // axis and grid
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const y = base - f * plotH;
    svg.line(left, y, right, y, f === 0 ? '#444' : '#e3e3e3');
    svg.text(left - 6, y + 4, `${Math.round(f * 100)}%`, { size: 10, anchor: 'end', fill: '#666' });
  }
  const gw = (right - left) / Math.max(1, groups.length);
  let maxLines = 0;
  for (const [gi, g] of groups.entries()) {
    const best = Math.max(...g.rows.map(goodness).filter(Number.isFinite));
    const present = series.filter((s) => g.rows.some((r) => r.variant === s));
    const bw = Math.min(34, (gw * 0.8) / Math.max(1, present.length));
    const x0 = left + gi * gw + (gw - bw * present.length) / 2;
    for (const [si, s] of present.entries()) {
      const r = g.rows.find((x) => x.variant === s);
      const f = best > 0 ? goodness(r) / best : 0;
      const h = Number.isFinite(f) ? f * plotH : 0;
      const x = x0 + si * bw;
      svg.rect(x + 1, base - h, bw - 2, h, COLORS[s] ?? FALLBACK[series.indexOf(s) % FALLBACK.length]);
      svg.text(x + bw / 2, base - h - 3, short(r.median), { size: 9, anchor: 'middle', fill: '#333' });
    }
    const lines = [...Svg.wrap(g.label, Math.max(12, Math.floor(gw / 6.2))), ...Svg.wrap(g.metric, Math.max(12, Math.floor(gw / 6.2)))];
    maxLines = Math.max(maxLines, lines.length);
    lines.forEach((l, i) => svg.text(left + gi * gw + gw / 2, base + 14 + i * 12, l, { size: 10, anchor: 'middle', fill: i < lines.length - 1 || lines.length === 1 ? '#222' : '#666' }));
  }
  return base + 20 + maxLines * 12;
}

/** The short name of a workload: its text up to the first colon. */
const shortGroup = (g) => g.split(':')[0];

/** Groups of chart rows by workload (one metric each) for panels A and B. */
function chartGroups(table) {
  const groups = [];
  for (const r of table.rows) {
    if (!r.chart) continue;
    let g = groups.find((x) => x.key === `${r.group}\0${r.metric}`);
    if (!g) {
      const unit = r.unit ? ` (${r.unit})` : '';
      g = { key: `${r.group}\0${r.metric}`, label: shortGroup(r.group), metric: `${r.metric}${unit}${r.better === 'lower' ? ', lower better' : ''}`, rows: [] };
      groups.push(g);
    }
    g.rows.push(r);
  }
  return groups;
}

/** Panel C: every non-baseline chart row as a ratio to its baseline, log2 scale around 1. */
function ratioPanel(svg, y0, title, subtitle, tables) {
  svg.text(20, y0 + 16, title, { size: 15, weight: 'bold' });
  svg.text(20, y0 + 33, subtitle, { size: 11, fill: '#555' });
  const items = [];
  for (const t of tables) {
    for (const r of t.rows) {
      if (!r.chart || r.variant === r.baseline) continue;
      const b = t.rows.find((x) => x.group === r.group && x.metric === r.metric && x.variant === r.baseline);
      if (!b) continue;
      const ratio = r.better === 'lower' ? b.median / r.median : r.median / b.median;
      const name = t.suite.replace(/^policies: /, '');
      items.push({ label: `${name}: ${r.variant} vs ${r.baseline}`, metric: `${shortGroup(r.group)}, ${r.metric}`, ratio, raw: `${short(r.median)} vs ${short(b.median)}${r.unit ? ` ${r.unit}` : ''}` });
    }
  }
  const labelW = 430;
  const left = 20 + labelW;
  const right = svg.width - 160;
  const mid = (left + right) / 2;
  const span = 5; // log2: 1/32 .. 32
  const xOf = (ratio) => mid + (Math.max(-span, Math.min(span, Math.log2(ratio))) / span) * ((right - left) / 2);
  const top = y0 + 55;
  const rowH = 27;
  for (const k of [-4, -2, 0, 2, 4]) {
    const x = xOf(2 ** k);
    svg.line(x, top - 8, x, top + items.length * rowH, k === 0 ? '#444' : '#e3e3e3');
    svg.text(x, top - 12, k === 0 ? '1x (baseline)' : k < 0 ? `1/${2 ** -k}x` : `${2 ** k}x`, { size: 10, anchor: 'middle', fill: '#666' });
  }
  for (const [i, it] of items.entries()) {
    const y = top + i * rowH;
    svg.text(20, y + 11, it.label, { size: 11 });
    svg.text(20, y + 22, it.metric, { size: 9.5, fill: '#666' });
    const x = xOf(it.ratio);
    const even = Math.abs(Math.log2(it.ratio)) < 0.03; // within 2%: neither better nor worse
    const good = it.ratio >= 1;
    svg.rect(Math.min(mid, x), y + 4, Math.abs(x - mid), rowH - 9, even ? '#999999' : good ? '#3a9a5b' : '#c0504d');
    svg.text(right + 8, y + 11, `${it.ratio >= 10 || it.ratio < 0.1 ? it.ratio.toPrecision(2) : it.ratio.toFixed(2)}x`,
      { size: 11, weight: 'bold', fill: even ? '#555555' : good ? '#2d7a47' : '#a03c3a' });
    svg.text(right + 8, y + 22, it.raw, { size: 9.5, fill: '#666' });
  }
  return top + items.length * rowH + 20;
}

/** The chart of a merged results object (bench/results/latest.json) as SVG text. */
export function drawChart(latest) {
  const svg = new Svg(1000);
  const m = latest.machine;
  const v = latest.versions;
  svg.text(20, 24, 'stealwork benchmarks', { size: 18, weight: 'bold' });
  svg.text(20, 42, `${latest.date}: ${m.cpus} CPUs (${m.model}), ${m.memoryMB} MiB, node ${v.node}${v.deno ? `, deno ${v.deno}` : ''}; ` +
    `${latest.options.quick ? 'quick' : 'full'} run, ${latest.options.reps} repetitions, medians; load average at start ${m.loadavg.map((x) => x.toFixed(1)).join(' ')}`, { size: 11, fill: '#555' });
  let y = 55;
  const sched = latest.suites.scheduler?.tables?.[0];
  if (sched) {
    const series = [...new Set(sched.rows.filter((r) => r.chart).map((r) => r.variant))];
    y = barPanel(svg, y, `A. Backends: wasm vs js (${latest.options.procs} Ps)`,
      'each workload normalised to its best variant; the bar label is the median; higher is better (lower-better metrics drawn as best / value)', chartGroups(sched), series);
  }
  const pools = latest.suites.pools?.tables?.[0];
  if (pools) {
    const series = [...new Set(pools.rows.filter((r) => r.chart).map((r) => r.variant))];
    y = barPanel(svg, y + 10, `B. Against worker pools (${latest.options.procs} threads each)`,
      'root tasks from the main thread only (pools cannot run tasks that spawn tasks); normalised to the best per workload', chartGroups(pools), series);
  }
  const pol = latest.suites.policies?.tables;
  if (pol?.length) {
    y = ratioPanel(svg, y + 10, 'C. Policies against their baselines',
      'ratio of medians, oriented so that right of 1x is better (for lower-better metrics: baseline / variant); log scale', pol);
  }
  // Workloads that failed (a wrong result, a hang) are named, so a missing bar is explained.
  const failed = [];
  for (const [name, suite] of Object.entries(latest.suites)) {
    if (suite?.failed) failed.push(`${name}: the suite wrote no figures (exit ${suite.exit})`);
    for (const t of suite?.tables ?? []) {
      for (const f of t.failures ?? []) failed.push(`${t.suite}: ${f.workload}: ${String(f.error).split(/ \| |; schedulers/)[0]}`);
    }
  }
  if (failed.length) {
    svg.text(20, y + 14, 'Failed in this run (left out above):', { size: 12, weight: 'bold', fill: '#a03c3a' });
    failed.forEach((line, i) => svg.text(20, y + 30 + i * 14, line.slice(0, 160), { size: 10.5, fill: '#a03c3a' }));
    y += 36 + failed.length * 14;
  }
  return svg.toString(Math.ceil(y + 10));
}
