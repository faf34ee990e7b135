// Chart scale.svg: the scheduler's operations per task by procs (bench/scale.mjs --json,
// section 1), a panel per tree it ran, a line per counter: procs on a log2 axis, operations per
// task on a log10 axis (they span 10^-5 to 10). These are counts from the core's counters, not
// times: they do not depend on the machine's load. A counter that is 0 at some procs has no
// point there (a log axis has no 0); one that is 0 at every procs is listed under the panel.
// Drawn by run.mjs (lib/charts.mjs) from the scale suite's JSON.

import { Svg, FALLBACK, runLine, short, spreadLabels } from './svg.mjs';

/** What each counter counts, for the legend (bench/scale.mjs's COLUMNS). */
export const COUNTERS = {
  calls: 'core calls', cas: 'CAS on queue words', casFails: 'failed CAS', stealTries: 'steal attempts', steals: 'steals',
  probes: 'probes (other Ps\' queues read)', locks: 'sched.lock acquisitions', wakeups: 'wake-ups', parks: 'parks', spins: 'spins',
  retries: 'stopM retries', helps: 'fork joiners\' help calls', spinRungs: 'park ladder rungs', joinSleeps: 'joiners\' sleeps', joinWakes: 'joiners\' wake-ups',
};

/** The counter's colour and dash: ten colours, then the same dashed. */
const styleOf = (i) => ({ color: FALLBACK[i % FALLBACK.length], dash: i < FALLBACK.length ? null : '6 3' });

/** One tree's panel from y0; returns the y below it. */
function panel(svg, y0, name, tree) {
  const procs = tree.procs.map(Number).sort((a, b) => a - b);
  const cols = tree.columns ?? Object.keys(COUNTERS);
  const at = (p, k) => tree.byProcs[p]?.per?.[k];
  const drawn = cols.filter((k) => procs.some((p) => at(p, k) > 0));
  const zero = cols.filter((k) => !drawn.includes(k));
  const vals = drawn.flatMap((k) => procs.map((p) => at(p, k)).filter((v) => v > 0));
  const lo = 10 ** Math.floor(Math.log10(Math.min(...vals, 1)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...vals, 1)));
  const left = 80;
  const right = svg.width - 250;
  const top = y0 + 34;
  const base = top + 300;
  const tasks = tree.byProcs[procs[0]]?.tasks;
  svg.text(20, y0 + 16, `${tree.what}, ${tree.task}(${tree.args.join(', ')})${Number.isFinite(tasks) ? `: ${Math.round(tasks).toLocaleString('en-US')} tasks a run` : ''}`, { size: 14, weight: 'bold' });
  const pMin = Math.log2(procs[0]);
  const pMax = Math.log2(procs[procs.length - 1]);
  const xOf = (p) => (pMax === pMin ? (left + right) / 2 : left + ((Math.log2(p) - pMin) / (pMax - pMin)) * (right - left));
  const yOf = (v) => base - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)) * (base - top);
  for (let k = Math.log10(lo); k <= Math.log10(hi) + 1e-9; k++) {
    const v = 10 ** k;
    svg.line(left, yOf(v), right, yOf(v), k === Math.log10(lo) ? '#444' : '#e3e3e3');
    svg.text(left - 6, yOf(v) + 4, v >= 1 ? String(v) : v.toPrecision(1), { size: 10, anchor: 'end', fill: '#666' });
  }
  for (const p of procs) {
    svg.line(xOf(p), top, xOf(p), base, '#f0f0f0');
    svg.line(xOf(p), base, xOf(p), base + 4, '#444');
    svg.text(xOf(p), base + 16, String(p), { size: 10.5, anchor: 'middle', fill: '#444' });
  }
  svg.text((left + right) / 2, base + 31, 'procs (Ps, log scale)', { size: 11, anchor: 'middle', fill: '#444' });
  svg.text(28, (top + base) / 2, 'operations per task (log scale)', { size: 11, anchor: 'middle', fill: '#444', rotate: true });
  const labels = [];
  for (const k of drawn) {
    const { color, dash } = styleOf(cols.indexOf(k));
    // A zero breaks the line: each run of non-zero points is drawn on its own.
    let run = [];
    const flush = () => { svg.polyline(run, color, { width: 2, dash }); run = []; };
    for (const p of procs) {
      const v = at(p, k);
      if (v > 0) {
        run.push([xOf(p), yOf(v)]);
        svg.circle(xOf(p), yOf(v), 3, color, { title: `${name}, ${COUNTERS[k] ?? k}, procs ${p}: ${short(v)} per task` });
      } else flush();
    }
    flush();
    const last = [...procs].reverse().find((p) => at(p, k) > 0);
    labels.push({ y: yOf(at(last, k)) + 4, text: `${COUNTERS[k] ?? k} ${short(at(last, k))}${last === procs[procs.length - 1] ? '' : ` (procs ${last})`}`, color });
  }
  for (const l of spreadLabels(labels, 12, top, base + 4)) svg.text(right + 10, l.y, l.text, { size: 10.5, fill: l.color, weight: 'bold' });
  let y = base + 46;
  if (zero.length) {
    svg.text(left, y, `0 at every procs (not drawn): ${zero.map((k) => COUNTERS[k] ?? k).join(', ')}`, { size: 10.5, fill: '#666' });
    y += 16;
  }
  return y + 8;
}

/** The SVG text of the chart of the scale suite's JSON (bench/scale.mjs --json). */
export function drawScale(scale, run = {}) {
  const svg = new Svg(1000);
  let y = svg.heading(20, 8, 'Scheduler operations per task by procs (bench/scale.mjs)', [
    'Counted by the core (stats()), not timed: the same on a loaded or a quiet machine, and what a machine with as many cores as Ps would see the scheduler do. ' +
      'A task is a task function call (Gs the Ms started plus forks run inline). Each procs value in a fresh scheduler after a warm-up; the label at the right is the value at the largest procs.'
  ], runLine(scale, run));
  for (const [name, tree] of Object.entries(scale.counts ?? {})) y = panel(svg, y + 10, name, tree);
  return svg.toString(y + 6);
}
