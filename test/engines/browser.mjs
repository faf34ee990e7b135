// The matrix's Chromium leg: headless Debian Chromium, driven by playwright-core, loads
// test/engines/page.html from the cross-origin-isolated test server once per run; the page
// imports the workload (the README's main.js, or forkjoin.js) with `stealwork` mapped to the
// built bundle. A run's "stdout" is the page's console.log lines, its "stderr" the page errors
// and console errors, so run.mjs checks it exactly as it checks a process. Called by run.mjs only.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../browser/server.mjs';
import { root } from './engines.mjs';

const CHROMIUM = '/usr/bin/chromium';

/** Launches the browser and the server; resolves with `{ run(workload, hangMs), close() }`. */
export async function openBrowser() {
  const { chromium } = await import('playwright-core');
  const server = await startServer({ root });
  const profile = mkdtempSync(join(tmpdir(), 'stealwork-engines-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (e) {
    await server.close();
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }

  /** One page load; resolves with the same shape as a process run (run.mjs runProcess). */
  async function run(workload, hangMs) {
    const page = await context.newPage();
    const out = [];
    const err = [];
    page.on('console', (m) => (m.type() === 'error' ? err : out).push(m.text()));
    page.on('pageerror', (e) => err.push(`pageerror: ${e.stack ?? e.message}`));
    const t0 = performance.now();
    let hung = false;
    let code = 0;
    try {
      await page.goto(`${server.url}test/engines/page.html?run=${workload}`);
      await page.waitForFunction(() => globalThis.engineRun?.done === true, null, { timeout: hangMs, polling: 100 });
      const { error } = await page.evaluate(() => globalThis.engineRun);
      if (error !== null) { err.push(error); code = 1; }
      if (err.length !== 0) code = 1;
    } catch (e) {
      if (e?.name === 'TimeoutError') hung = true;
      else { err.push(String(e?.stack ?? e)); code = 1; }
    } finally {
      await page.close().catch(() => {});
    }
    return { code: hung ? null : code, signal: null, hung, stdout: out.join('\n') + '\n', stderr: err.join('\n'), ms: performance.now() - t0 };
  }

  async function close() {
    await context.close().catch(() => {});
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
  return { run, close };
}
