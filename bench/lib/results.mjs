// A suite's figures. A figure is a Row: one workload, one variant (a backend, a pool, a policy),
// one metric, the value of every repetition, and its ratio to the suite's baseline variant for
// that workload and metric, measured in the same run. Nothing here knows a number in advance.

import { median } from './stats.mjs';
import { watchdog, withWatchdog } from './guard.mjs';

/**
 * Collects the figures of one suite. `add` takes the per-repetition values; ratios are filled
 * in by `finish` against the baseline variant of the same workload and metric.
 */
export class Results {
  constructor(suite, title, baseline) {
    this.suite = suite;
    this.title = title;
    this.baseline = baseline;
    this.rows = [];
    this.notes = [];
    this.failures = [];
    this.extra = {};
  }

  /**
   * One figure. better: 'higher' | 'lower' | 'info' (a count that explains, neither good nor bad). group: the workload. values: one per repetition.
   * baseline: override the suite's baseline variant for this row's group. claim: the seed
   * article's figure to print beside ours. chart: this metric stands for its workload in the SVG.
   */
  add({ group, variant, metric, unit = '', better = 'higher', values, detail, baseline, claim, chart }) {
    const vs = values.filter((v) => Number.isFinite(v));
    const row = {
      group, variant, metric, unit, better, values,
      median: median(vs), min: Math.min(...vs), max: Math.max(...vs),
      baseline: baseline ?? this.baseline, ratio: NaN,
    };
    if (detail !== undefined) row.detail = detail;
    if (claim !== undefined) row.claim = claim;
    if (chart) row.chart = true;
    this.rows.push(row);
    return row;
  }

  note(s) {
    this.notes.push(s);
  }

  /**
   * Runs one workload's block; an error (a wrong result, a crashed worker) is recorded and
   * printed with the table instead of ending the suite, so the other workloads still report.
   */
  async attempt(name, fn, ms = watchdog()) {
    try {
      await withWatchdog(fn(), ms, `${this.suite}: ${name}`);
    } catch (e) {
      this.failures.push({ workload: name, error: String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ') });
      console.log(`  ! ${this.suite}: ${name} failed: ${e?.message ?? e}`);
    }
  }

  finish() {
    for (const r of this.rows) {
      const b = this.rows.find((x) => x.group === r.group && x.metric === r.metric && x.variant === r.baseline);
      r.ratio = b !== undefined && b.median !== 0 ? r.median / b.median : NaN;
    }
    return this;
  }

  toJSON() {
    return { suite: this.suite, title: this.title, baseline: this.baseline, rows: this.rows, notes: this.notes, failures: this.failures, ...this.extra };
  }
}
