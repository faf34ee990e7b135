// The table every suite prints: median and min..max over repetitions, and the ratio to the
// baseline.

/** A number in a short human form: 3 significant digits, no exponent. */
export function fmt(x) {
  if (!Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (a >= 1e4) return x.toFixed(0);
  if (a >= 100) return x.toFixed(1);
  if (a >= 10) return x.toFixed(2);
  if (a >= 1) return x.toFixed(3);
  if (a === 0) return '0';
  return x.toPrecision(3);
}

/** Prints a suite's table (a Results, finished here): median, min..max, ratio to the baseline. */
export function printTable(res, reps) {
  res.finish();
  console.log(`\n== ${res.suite}: ${res.title}`);
  if (res.rows.length === 0) {
    for (const f of res.failures) console.log(`   FAILED ${f.workload}: ${f.error}`);
    return;
  }
  console.log(`   median and [min .. max] over ${reps} repetitions; ratio = median / median of '${res.baseline}' (same workload, same run); ` +
    "better: which direction is good ('info': an explanatory count)");
  const cols = ['workload', 'variant', 'metric', 'better', 'median', 'min .. max', 'ratio'];
  const hasClaim = res.rows.some((r) => r.claim !== undefined);
  if (hasClaim) cols.push('seed claims');
  const lines = [];
  let last = null;
  for (const r of res.rows) {
    const line = [
      r.group === last ? '' : r.group,
      r.variant,
      r.unit ? `${r.metric} (${r.unit})` : r.metric,
      r.better,
      fmt(r.median),
      `${fmt(r.min)} .. ${fmt(r.max)}`,
      r.variant === r.baseline ? 'base' : Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}x` : '-',
    ];
    if (hasClaim) line.push(r.claim ?? '');
    last = r.group;
    lines.push(line);
  }
  for (const f of res.failures) console.log(`   FAILED ${f.workload}: ${f.error}`);
  const w = cols.map((c, i) => Math.max(c.length, ...lines.map((l) => String(l[i]).length)));
  const right = new Set([4, 5, 6]);
  const out = (l) => console.log('  ' + l.map((v, i) => (right.has(i) ? String(v).padStart(w[i]) : String(v).padEnd(w[i]))).join('  ').trimEnd());
  out(cols);
  out(w.map((n) => '-'.repeat(n)));
  for (const l of lines) out(l);
  for (const n of res.notes) console.log(`  * ${n}`);
}
