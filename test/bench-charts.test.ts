// The bench's chart writer (bench/lib/charts.mjs and the chart-*.mjs it calls) on a small fixed
// results object: every chart is well-formed XML with an <svg> root, draws one marked element
// per data point, and writes no NaN, Infinity or undefined into its coordinates. No benchmark
// runs here; what the figures are is bench/'s job.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JS module of the bench, no types
import { drawCharts } from '../bench/lib/charts.mjs';
// @ts-expect-error: idem
import { speedupCurves } from '../bench/lib/chart-speedup.mjs';
// @ts-expect-error: idem
import { Svg } from '../bench/lib/svg.mjs';

/**
 * Checks that `text` is well-formed XML (the subset an SVG writer emits: a declaration,
 * elements, attributes in double quotes, text with the five entities); returns the element
 * names in document order, or throws naming the first fault.
 */
function parseXml(text: string): string[] {
  const names: string[] = [];
  const open: string[] = [];
  let rootClosed = false;
  const body = text.replace(/^<\?xml [^?]*\?>\s*/, '');
  for (const tok of body.match(/<[^>]*>|[^<]+/g) ?? []) {
    if (!tok.startsWith('<')) {
      if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(tok)) throw new Error(`a bare & in text: ${tok}`);
      if (open.length === 0 && tok.trim() !== '') throw new Error(`text outside the root: ${tok}`);
      continue;
    }
    if (tok.startsWith('</')) {
      const name = tok.slice(2, -1).trim();
      const top = open.pop();
      if (top !== name) throw new Error(`</${name}> closes <${top}>`);
      if (open.length === 0) rootClosed = true;
      continue;
    }
    const m = /^<([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*="[^"<]*")*)\s*(\/?)>$/.exec(tok);
    if (m === null) throw new Error(`a malformed tag: ${tok}`);
    if (rootClosed) throw new Error(`an element after the root: ${tok}`);
    const attrs = [...m[2].matchAll(/([A-Za-z_:][\w:.-]*)="([^"]*)"/g)];
    const seen = new Set<string>();
    for (const [, k, v] of attrs) {
      if (seen.has(k)) throw new Error(`attribute ${k} twice: ${tok}`);
      seen.add(k);
      if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(v)) throw new Error(`a bare & in ${k}: ${tok}`);
    }
    names.push(m[1]);
    if (m[3] !== '/') open.push(m[1]);
    else if (open.length === 0) rootClosed = true;
  }
  if (open.length) throw new Error(`unclosed: ${open.join(' > ')}`);
  if (names[0] !== 'svg') throw new Error(`the root is <${names[0]}>, not <svg>`);
  return names;
}

/** The numbers of every coordinate-like attribute, to check they are all finite. */
function coordinates(svg: string): string[] {
  return [...svg.matchAll(/\s(?:x|y|x1|y1|x2|y2|cx|cy|r|width|height|points|viewBox)="([^"]*)"/g)].map((m) => m[1]);
}

const points = (svg: string): number => (svg.match(/class="point"/g) ?? []).length;

const machine = { cpus: 2, model: 'Test CPU', memoryMB: 1024, loadavg: [0.5, 0.4, 0.3], loadavgEnd: [0.6, 0.5, 0.4] };
const versions = { node: 'v20.0.0', deno: null };

/** A workloads table at `threads`: two workloads, four implementations each. */
function workloadsTable(threads: number, k: number) {
  const w = (workload: string, a: number) => ({ workload, stealwork: a * k, rayon: a * k * 1.1, go: a * k * 1.05, piscina: a * k * 0.9, self: NaN });
  return {
    suite: 'workloads', rows: [], failures: [],
    summary: { threads, workloads: [w('UTS T1', 0.95), w('merge sort', 1)], geomeanStealwork: k, geomeanRayon: k * 1.1, geomeanGo: k * 1.05 },
  };
}

const RESULTS = {
  date: '2026-01-01T00:00:00.000Z', machine, versions,
  options: { quick: true, reps: 3, procs: 2, suites: ['scheduler', 'queue', 'workloads', 'scale'] },
  suites: {
    scheduler: {
      tables: [{
        suite: 'scheduler', failures: [], rows: [
          { group: 'fib', variant: 'wasm', metric: 'calls/s', unit: 'M', better: 'higher', median: 6.5, chart: true },
          { group: 'fib', variant: 'js', metric: 'calls/s', unit: 'M', better: 'higher', median: 4.1, chart: true },
          { group: 'burst', variant: 'wasm', metric: 'p99', unit: 'ms', better: 'lower', median: 250, chart: true },
          { group: 'burst', variant: 'js', metric: 'p99', unit: 'ms', better: 'lower', median: 260, chart: true },
        ],
      }],
    },
    queue: {
      date: '2026-01-01T00:00:00.000Z', node: 'v20.0.0', cpus: 2, quick: true, loadavg: [0.5, 0.4, 0.3],
      rows: [
        { op: 'runqPut+runqGet', wasmNsPerOp: 12.8, tsNsPerOp: 28.5 },
        { op: 'steal half of 128', wasmNsPerOp: 49.5, tsNsPerOp: 119 },
        { op: 'contended: per G stolen, 2 thieves / 1 owner', wasmNsPerOp: 201, tsNsPerOp: 384 },
      ],
    },
    workloads: {
      date: '2026-01-01T00:00:00.000Z', machine, versions, options: { quick: true, reps: 3, procs: 2, threads: [1, 2] },
      load: { start: [3, 2, 1], end: [4, 3, 2] },
      tables: [workloadsTable(1, 0.9), workloadsTable(2, 1.7)],
    },
    scale: {
      date: '2026-01-01T00:00:00.000Z', machine, versions, options: { quick: true, procs: [2, 8, 64] },
      counts: {
        coarse: {
          what: 'coarse fork-join', task: 'fibcut', args: [30, 18], columns: ['calls', 'probes', 'casFails', 'retries'], procs: [2, 8, 64],
          byProcs: {
            2: { tasks: 1129, per: { calls: 2.66, probes: 0.03, casFails: 0, retries: 0 } },
            8: { tasks: 1129, per: { calls: 2.69, probes: 0.62, casFails: 0.0035, retries: 0 } },
            64: { tasks: 1129, per: { calls: 2.69, probes: 4.5, casFails: 0.00044, retries: 0 } },
          },
        },
      },
    },
  },
};

describe('bench charts', () => {
  const charts: { file: string; svg: string }[] = drawCharts(RESULTS);
  const chart = (file: string): string => {
    const c = charts.find((x) => x.file === file);
    if (c === undefined) throw new Error(`no ${file} among ${charts.map((x) => x.file).join(', ')}`);
    return c.svg;
  };

  it('draws one chart per suite that has figures', () => {
    expect(charts.map((c) => c.file)).toEqual(['chart.svg', 'wasm-vs-ts.svg', 'speedup.svg', 'scale.svg']);
    const none: { file: string }[] = drawCharts({ ...RESULTS, suites: { queue: RESULTS.suites.queue } });
    expect(none.map((c) => c.file)).toEqual(['wasm-vs-ts.svg']);
  });

  it('writes well-formed XML with finite coordinates and the run line', () => {
    for (const { file, svg } of charts) {
      expect(() => parseXml(svg), file).not.toThrow();
      expect(svg, file).not.toMatch(/NaN|Infinity|undefined/);
      for (const c of coordinates(svg)) {
        for (const num of c.split(/[\s,]+/)) expect(Number.isFinite(Number(num)), `${file}: ${c}`).toBe(true);
      }
    }
    // The machine and date line: the figures say where they came from.
    expect(chart('speedup.svg')).toContain('2 CPUs (Test CPU)');
    expect(chart('speedup.svg')).toContain('load average (1, 5, 15 min) 3.0 2.0 1.0 at the start, 4.0 3.0 2.0 at the end');
    expect(chart('scale.svg')).toContain('load average (1, 5, 15 min) 0.5 0.4 0.3 at the end');
  });

  it('the XML check itself rejects what is not well-formed', () => {
    expect(() => parseXml('<svg><g></svg>')).toThrow();
    expect(() => parseXml('<svg><text>a & b</text></svg>')).toThrow();
    expect(() => parseXml('<svg x="1" x="2"/>')).toThrow();
    expect(parseXml('<svg><rect x="1"/><text>a &amp; b</text></svg>')).toEqual(['svg', 'rect', 'text']);
  });

  it('draws one element per data point', () => {
    // queue: a bar per operation and backend.
    expect(points(chart('wasm-vs-ts.svg'))).toBe(3 * 2);
    // workloads: per workload 4 implementations x 2 thread counts; the geometric mean 3 x 2.
    expect(points(chart('speedup.svg'))).toBe(2 * 4 * 2 + 3 * 2);
    // scale: the non-zero counts (calls 3, probes 3, failed CAS 2; retries all 0, listed instead).
    const scale = chart('scale.svg');
    expect(points(scale)).toBe(3 + 3 + 2);
    expect(scale).toContain('0 at every procs (not drawn): stopM retries');
  });

  it('reads one curve per workload from the tables of each thread count', () => {
    const curves = speedupCurves(RESULTS.suites.workloads);
    expect(curves.map((c: { workload: string }) => c.workload)).toEqual(['UTS T1', 'merge sort', 'geometric mean']);
    expect(curves[1].points.stealwork).toEqual([[1, 0.9], [2, 1.7]]);
    expect(curves[2].points.rayon.map(([t]: number[]) => t)).toEqual([1, 2]);
    expect(curves[2].points.piscina).toBeUndefined();
  });

  it('refuses a coordinate that is not a finite number', () => {
    const svg = new Svg(100);
    expect(() => svg.rect(0, Number.NaN, 10, 10, '#000')).toThrow(RangeError);
    expect(() => svg.circle(Number.POSITIVE_INFINITY, 0, 3, '#000')).toThrow(RangeError);
  });
});
