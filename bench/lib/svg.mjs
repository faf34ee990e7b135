// The SVG primitives every chart of the bench draws with (lib/chart-*.mjs): a canvas that
// collects elements, text escaped, numbers written short, colours by series, and the line that
// says which machine and run a chart's figures come from. No browser, no dependency: a chart
// is a string. Coordinates are checked as they are written, so a NaN from a missing figure
// fails where it is drawn instead of leaving an element a viewer silently drops.

export const FONT = 'font-family="Helvetica, Arial, sans-serif"';

/** One colour per series name, the same in every chart; others take the fallback in turn. */
export const COLORS = {
  wasm: '#2f6fb0', stealwork: '#2f6fb0', js: '#e08a2c', piscina: '#3a9a5b', tinypool: '#8a5bb8',
  Go: '#00a0b0', rayon: '#b7410e', ideal: '#999999',
};
export const FALLBACK = ['#2f6fb0', '#e08a2c', '#3a9a5b', '#8a5bb8', '#b04a4a', '#00a0b0', '#5a5a5a', '#c9a227', '#d45fa0', '#6b8e23'];

export const colorOf = (series, i) => COLORS[series] ?? FALLBACK[i % FALLBACK.length];

export const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A coordinate as written into the SVG; throws on a value that is not a finite number. */
function n(x) {
  if (!Number.isFinite(x)) throw new RangeError(`svg: a coordinate is ${x}`);
  return x.toFixed(1);
}

/** A number in at most 4 significant digits. */
export function short(x) {
  if (!Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a === 0) return '0';
  if (a >= 0.1) return x.toFixed(2);
  return x.toPrecision(2);
}

/**
 * A canvas: elements are appended in drawing order, toString(height) closes it. `point` marks an
 * element that stands for one data point (class="point"), which the tests count.
 */
export class Svg {
  constructor(width) {
    this.width = width;
    this.parts = [];
  }

  rect(x, y, w, h, fill, { point = false, title = null } = {}) {
    const cls = point ? ' class="point"' : '';
    const tip = title === null ? '/>' : `><title>${esc(title)}</title></rect>`;
    this.parts.push(`<rect${cls} x="${n(x)}" y="${n(y)}" width="${n(Math.max(0, w))}" height="${n(Math.max(0, h))}" fill="${fill}"${tip}`);
  }

  line(x1, y1, x2, y2, stroke = '#999', { width = 1, dash = null } = {}) {
    const d = dash === null ? '' : ` stroke-dasharray="${dash}"`;
    this.parts.push(`<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${stroke}" stroke-width="${width}"${d}/>`);
  }

  /** An open line through points [[x, y], ...]. */
  polyline(points, stroke, { width = 2, dash = null } = {}) {
    if (points.length < 2) return;
    const d = dash === null ? '' : ` stroke-dasharray="${dash}"`;
    this.parts.push(`<polyline points="${points.map(([x, y]) => `${n(x)},${n(y)}`).join(' ')}" fill="none" stroke="${stroke}" stroke-width="${width}"${d}/>`);
  }

  /** A data point's marker. */
  circle(x, y, r, fill, { title = null } = {}) {
    const tip = title === null ? '/>' : `><title>${esc(title)}</title></circle>`;
    this.parts.push(`<circle class="point" cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${fill}" stroke="#ffffff" stroke-width="1"${tip}`);
  }

  text(x, y, s, { size = 11, anchor = 'start', weight = 'normal', fill = '#222', rotate = false } = {}) {
    const rot = rotate ? ` transform="rotate(-90 ${n(x)} ${n(y)})"` : '';
    this.parts.push(`<text x="${n(x)}" y="${n(y)}" font-size="${size}" text-anchor="${anchor}" font-weight="${weight}" fill="${fill}"${rot} ${FONT}>${esc(s)}</text>`);
  }

  /** Lines of at most `chars` characters, broken at spaces. */
  static wrap(s, chars) {
    const out = [];
    let cur = '';
    for (const w of String(s).split(' ')) {
      if (cur && (cur + ' ' + w).length > chars) { out.push(cur); cur = w; } else cur = cur ? `${cur} ${w}` : w;
    }
    if (cur) out.push(cur);
    return out;
  }

  /** A title, under it wrapped grey lines, then the run line (runLine) whole; returns the y below. */
  heading(x, y, title, lines, run, chars = 165) {
    this.text(x, y + 18, title, { size: 17, weight: 'bold' });
    let yy = y + 36;
    for (const l of lines.flatMap((s) => Svg.wrap(s, chars))) {
      this.text(x, yy, l, { size: 11, fill: '#555' });
      yy += 14;
    }
    this.text(x, yy, run, { size: 10.5, fill: '#555' });
    return yy + 14;
  }

  /**
   * A row of legend entries from (x, y), wrapped at the canvas's edge: items [{ label, color,
   * dash?, bar? }], a bar's swatch a box, a line's a stroke. Returns the y below the row.
   */
  legend(x, y, items) {
    let lx = x;
    let ly = y;
    for (const it of items) {
      const w = 38 + it.label.length * 6.6;
      if (lx + w > this.width - 10) { lx = x; ly += 18; }
      if (it.bar) this.rect(lx + 3, ly - 10, 14, 12, it.color);
      else this.line(lx, ly - 4, lx + 20, ly - 4, it.color, { width: 3, dash: it.dash ?? null });
      this.text(lx + 25, ly, it.label, { size: 12 });
      lx += w;
    }
    return ly + 10;
  }

  toString(height) {
    return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${this.width}" height="${Math.ceil(height)}" viewBox="0 0 ${this.width} ${Math.ceil(height)}">\n` +
      `<rect x="0" y="0" width="${this.width}" height="${Math.ceil(height)}" fill="#ffffff"/>\n${this.parts.join('\n')}\n</svg>\n`;
  }
}

/**
 * The line that says where a chart's figures come from: the date, the machine, the runtime,
 * the run's size and repetitions, and the load average around the suite (a shared machine's load
 * is part of what a figure means).
 * `suite` is a suite's JSON (lib/output.mjs) or the queue's; `run` the merged file's fields.
 */
export function runLine(suite, run = {}) {
  // A suite's own facts first: the merged file's are another run's when the suite was
  // published alone. The queue suite writes cpus, node and loadavg at its top level.
  const m = suite.machine ?? {};
  const date = String(suite.date ?? run.date ?? '').replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const cpus = m.cpus ?? suite.cpus ?? run.machine?.cpus;
  const model = (m.model ?? suite.model) ? ` (${m.model ?? suite.model})` : '';
  const node = suite.versions?.node ?? suite.node;
  const quick = suite.options?.quick ?? suite.quick;
  const reps = suite.options?.reps;
  const la = (xs) => xs.map((x) => x.toFixed(1)).join(' ');
  // run.mjs records the load before and after each suite (`load`); a suite's own JSON has the
  // load when it wrote it, at its end.
  const load = suite.load ? `${la(suite.load.start)} at the start, ${la(suite.load.end)} at the end`
    : Array.isArray(m.loadavg ?? suite.loadavg) ? `${la(m.loadavg ?? suite.loadavg)} at the end` : 'not recorded';
  return `${date}: ${cpus} CPUs${model}${node ? `, node ${node}` : ''}; ${quick ? 'quick' : 'full'} run` +
    `${reps ? `, ${reps} repetition${reps === 1 ? '' : 's'}, medians` : ''}; load average (1, 5, 15 min) ${load}`;
}

/**
 * Labels at the right of a plot, one per line end, moved apart to at least `gap` px in the order
 * of their y and kept within lo .. hi: [{ y, ... }] -> the same objects, y adjusted, sorted by y.
 */
export function spreadLabels(labels, gap, lo, hi) {
  const ls = [...labels].sort((a, b) => a.y - b.y);
  for (let i = 1; i < ls.length; i++) ls[i].y = Math.max(ls[i].y, ls[i - 1].y + gap);
  const over = ls.length ? ls[ls.length - 1].y - hi : 0;
  if (over > 0) for (const l of ls) l.y -= over;
  for (let i = ls.length - 2; i >= 0; i--) ls[i].y = Math.min(ls[i].y, ls[i + 1].y - gap);
  if (ls.length && ls[0].y < lo) for (const l of ls) l.y += lo - ls[0].y;
  return ls;
}
