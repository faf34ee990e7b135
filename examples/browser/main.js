// The browser example: a fork-join on module Workers, the main thread free all along.
// The page must be cross-origin isolated (SharedArrayBuffer needs it); serve it with
//   Cross-Origin-Opener-Policy: same-origin
//   Cross-Origin-Embedder-Policy: require-corp
// e.g. `node test/browser/server.mjs`, then open the URL it prints.
//
// The outcome goes into the page and into window.stealworkExample, which the browser test reads.

import { Scheduler } from 'stealwork';

const out = document.getElementById('out');
const log = (line) => { out.textContent += line + '\n'; };
const N = 24; // fibc(24): 225,073 Gs (calls and joins), long enough to watch the main thread keep ticking
const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));

/** Runs `work` while a 10 ms timer ticks on the main thread: how many ticks ran before it
 *  settled (a main thread held by the scheduler would run none), and the longest gap between
 *  two (how long the page was held at most; on a loaded machine it includes the time the
 *  operating system ran something else). */
async function longestStall(work) {
  let last = performance.now();
  let worst = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    worst = Math.max(worst, t - last);
    last = t;
    ticks++;
  }, 10);
  try {
    return { value: await work(), stallMs: worst, ticks };
  } finally {
    clearInterval(timer);
  }
}

async function main() {
  const result = { ok: false, crossOriginIsolated: globalThis.crossOriginIsolated === true, runs: [] };
  window.stealworkExample = result;
  log(`crossOriginIsolated: ${result.crossOriginIsolated}`);
  let sched;
  try {
    sched = await Scheduler.start({ tasks: new URL('./tasks.js', import.meta.url), procs: 2 });
  } catch (e) {
    result.error = { name: e.name, code: e.code, message: e.message };
    log(`${e.name} ${e.code}: ${e.message}`);
    result.done = true;
    return;
  }
  try {
    for (const backend of ['wasm', 'js']) {
      if (backend !== sched.backend) {
        await sched.close();
        sched = await Scheduler.start({ tasks: new URL('./tasks.js', import.meta.url), procs: 2, backend });
      }
      const t0 = performance.now();
      const { value: fibc, stallMs, ticks } = await longestStall(() => sched.run('fibc', N));
      const ms = performance.now() - t0;
      const fibAsync = await sched.run('fib', 12);
      const sab = new SharedArrayBuffer(1024 * 4);
      const marked = await sched.run('markRange', sab, 0, 1024);
      const leaves = new Int32Array(sab);
      const once = leaves.every((v) => v === 1);
      const err = await sched.run('fail', 'boom').catch((e) => e);
      const totals = sched.stats().totals;
      const run = {
        backend, procs: sched.procs, fibc, fibAsync, marked, once, ms, stallMs, ticks,
        error: [err.name, err.message], executed: totals.executed, stolen: totals.stolen,
      };
      result.runs.push(run);
      log(`${backend}: fibc(${N}) = ${fibc} (expected ${fib(N)}) in ${ms.toFixed(1)} ms on ${sched.procs} Ps; ` +
        `${ticks} timer ticks meanwhile, the longest main-thread stall ${stallMs.toFixed(1)} ms\n` +
        `    fib(12) = ${fibAsync}; ${marked} leaves marked, each once: ${once}; ` +
        `${totals.executed} Gs run, ${totals.stolen} stolen`);
    }
    result.ok = result.runs.every((r) => r.fibc === fib(N) && r.fibAsync === fib(12) && r.marked === 1024 && r.once);
  } catch (e) {
    result.error = { name: e.name, code: e.code, message: e.message, stack: e.stack };
    log(`failed: ${e.stack ?? e}`);
  } finally {
    await sched.close();
    result.done = true;
    log(result.ok ? 'ok' : 'not ok');
  }
}

main();
