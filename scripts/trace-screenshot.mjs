// Screenshot of a stealwork event trace opened in a real trace viewer (docs/trace-viewer.png in
// the README).
//
//   node scripts/trace-screenshot.mjs [trace.json] [out.png] [--window=FROM,TO] [--publish]
//
// trace.json: a file written by `sched.trace()` (Chrome Trace Event JSON); by default
// ./stealwork-trace.json, which `npm run trace-demo` writes. out.png defaults to the trace's name
// with .png (./stealwork-trace.png, not tracked); --publish writes docs/trace-viewer.png, the
// picture in the README, instead. The picture is 1400x800. --window sets the visible range in ms
// of the trace's own timestamps (ts / 1000); the default runs from the first slice to a few ms
// after the last M started its first task (and at least 20 ms past the first steal).
//
// Needs: Chromium (CHROMIUM_PATH, default /usr/bin/chromium; without one, Playwright's own
// browser) and the playwright-core dev dependency. No network: the viewer ships inside Chromium.
//
// The viewer is the Performance panel of Chromium's bundled DevTools front end. Chromium serves
// it on its remote-debugging port (/devtools/trace_app.html) and the panel fetches the trace
// through its `loadTimelineFromURL` parameter (answered here by request interception, same
// origin); the script then only drives the panel: it expands the M tracks, sets the visible
// window, selects the first task the thief ran after the first steal (the Summary tab shows that
// event) and saves the page. chrome://tracing is a disabled debug page in current Chromium and
// ui.perfetto.dev needs the network, so this is the viewer that works offline.
//
// What this panel draws of the Trace Event format: complete slices ("X": tasks, "parked"), one
// track per thread (M). It draws no instant events ("i": spawn, steal, unpark), and it binds a flow
// event ("s"/"f") only to an event with exactly the same ts, tid and cat, drawing the flow as an
// arrow to a selected slice from its initiator; flow events that bind to no slice are not drawn.

import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const positional = args.filter((a) => !a.startsWith('--'));
const windowArg = args.find((a) => a.startsWith('--window='))?.slice('--window='.length);

const WIDTH = 1400;
const HEIGHT = 800;
const SCALE = 1.25; // device pixels per CSS pixel: larger text and tracks in the same 1400x800
const DETAILS = 360; // CSS px of the Summary tab below the tracks
const publish = args.includes('--publish');
const unknown = args.filter((a) => a.startsWith('--') && a !== '--publish' && !a.startsWith('--window='));
if (unknown.length) throw new TypeError(`unknown flag ${unknown[0]} (flags: --window=FROM,TO, --publish)`);
const tracePath = resolve(positional[0] ?? 'stealwork-trace.json');
if (!existsSync(tracePath)) {
  throw new Error(`${tracePath} does not exist: write one with \`npm run trace-demo\` (or sched.trace()), or name a trace file`);
}
const out = resolve(positional[1] ?? (publish ? join(root, 'docs', 'trace-viewer.png') : tracePath.replace(/(\.json)?$/, '.png')));
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const temp = mkdtempSync(join(tmpdir(), 'stealwork-trace-screenshot-'));
try {
  const traceText = readFileSync(tracePath, 'utf8');
  const trace = JSON.parse(traceText);
  const events = (Array.isArray(trace) ? trace : trace.traceEvents).filter((e) => e.ph !== 'M');

  const slices = events.filter((e) => e.ph === 'X').sort((a, b) => a.ts - b.ts);
  if (slices.length === 0) throw new Error(`${tracePath} has no slices`);
  const tasks = slices.filter((e) => e.cat !== 'park');
  const firstSteal = events.filter((e) => e.name === 'steal' && e.ph === 'i').sort((a, b) => a.ts - b.ts)[0];
  const firstTaskOn = new Map();
  for (const e of tasks) if (!firstTaskOn.has(e.tid)) firstTaskOn.set(e.tid, e.ts);
  const end = Math.max(...slices.map((e) => e.ts + (e.dur ?? 0)));
  let from = slices[0].ts / 1000;
  let to = Math.min(end, Math.max(...firstTaskOn.values(), (firstSteal?.ts ?? 0) + 20_000, slices[0].ts + 25_000) + 8_000) / 1000;
  if (windowArg) [from, to] = windowArg.split(',').map(Number);
  if (!(to > from)) throw new Error(`bad --window=${windowArg}`);
  // Selected: the thief's first task after the first steal (else the first task).
  const pick = (firstSteal && tasks.find((e) => e.tid === firstSteal.tid && e.ts >= firstSteal.ts)) ?? tasks[0];

  const profile = join(temp, 'profile');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: existsSync(chromiumPath) ? chromiumPath : undefined,
    headless: true,
    args: ['--remote-debugging-port=0', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    viewport: { width: Math.round(WIDTH / SCALE), height: Math.round(HEIGHT / SCALE) },
    deviceScaleFactor: SCALE,
    colorScheme: 'light',
  });
  try {
    // Chromium writes the debugging port it picked into the profile.
    let port;
    for (let i = 0; i < 100 && !port; i++) {
      try { port = readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]; } catch { await new Promise((r) => setTimeout(r, 100)); }
    }
    if (!port) throw new Error('Chromium did not open its remote-debugging port');
    const origin = `http://127.0.0.1:${port}`;
    const traceUrl = `${origin}/stealwork-trace.json`; // same origin as the front end, which its CSP allows
    const page = context.pages()[0] ?? await context.newPage();
    await page.route(traceUrl, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: traceText }));
    await page.addInitScript(() => localStorage.setItem('hide-shortcuts-dialog-for-test', 'true')); // the first-run shortcuts popup
    page.on('pageerror', (e) => console.error('viewer:', e.message));
    await page.goto(`${origin}/devtools/trace_app.html?loadTimelineFromURL=${encodeURIComponent(traceUrl)}`);

    // Wait until the panel has parsed the trace and built its tracks.
    const loaded = () => page.evaluate(async () => {
      try {
        const { TimelinePanel } = await import('./panels/timeline/timeline.js');
        const panel = TimelinePanel.TimelinePanel.instance();
        return panel.hasActiveTrace() && (panel.flameChart.getMainFlameChart().timelineData()?.groups?.length ?? 0) > 0;
      } catch { return false; }
    });
    for (let i = 0; !(await loaded()); i++) {
      if (i > 150) throw new Error('the Performance panel did not load the trace');
      await page.waitForTimeout(200);
    }
    await page.waitForTimeout(500);

    const sidebar = page.getByRole('button', { name: /hide sidebar/i }); // Insights / Annotations
    if (await sidebar.count()) await sidebar.first().click();

    const shown = await page.evaluate(async ({ from, to, details, pick }) => {
      const { TimelinePanel, TimelineSelection } = await import('./panels/timeline/timeline.js');
      const { TraceBounds } = await import('./services/trace_bounds/trace_bounds.js');
      const Trace = await import('./models/trace/trace.js');
      const panel = TimelinePanel.TimelinePanel.instance();
      const chart = panel.flameChart.getMainFlameChart();
      const groups = chart.timelineData().groups;
      for (let i = 0; i < groups.length; i++) if (!groups[i].expanded) chart.expandGroup(i, true);
      const provider = panel.flameChart.getMainDataProvider();
      const n = provider.timelineData().entryStartTimes.length;
      for (let i = 0; i < n && pick; i++) {
        const e = provider.eventByIndex(i);
        if (e && e.ts === pick.ts && e.tid === pick.tid && e.name === pick.name) {
          panel.select(TimelineSelection.selectionFromEvent(e));
          break;
        }
      }
      TraceBounds.BoundsManager.instance().setTimelineVisibleWindow(
        Trace.Helpers.Timing.traceWindowFromMilliSeconds(from, to), { shouldAnimate: false });
      panel.flameChart.detailsSplitWidget?.setSidebarSize?.(details);
      return groups.map((g) => g.name);
    }, { from, to, details: DETAILS, pick: pick && { ts: pick.ts, tid: pick.tid, name: pick.name } });
    await page.waitForTimeout(800);

    mkdirSync(dirname(out), { recursive: true });
    await page.screenshot({ path: out });
    console.log(`wrote ${out} (${WIDTH}x${HEIGHT}, ${statSync(out).size} bytes): tracks ${shown.join(', ')}; ` +
      `window ${from.toFixed(1)}-${to.toFixed(1)} ms; selected ${pick?.name} at ${pick?.ts} us on tid ${pick?.tid}`);
  } finally {
    await context.close();
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
