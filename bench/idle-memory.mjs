// What an idle thread costs, and what a scheduler that shed its idle threads costs and gains:
//   1. RSS per idle thread: the process's resident set size with a scheduler of 1 P and of
//      1 + K Ps (every thread idle, parked, and kept: idleTimeout Infinity), and the same for
//      piscina with 1 and 1 + K threads, each in a fresh process; the difference over K.
//   2. A shrunk scheduler (DESIGN.md "Threads that come and go"): procs 1 + K with minThreads 1
//      and a short idleTimeout, after its threads idled out, against procs 1 (both with the one
//      spare thread); its RSS difference, and what the first tasks after the shrink take: a task
//      the kept thread runs, and a task that finds no thread at all (minThreads 0, no spare: the
//      cost of starting one).
//
//   node bench/idle-memory.mjs [--threads K]      (after npm run build)

import { execFileSync } from 'node:child_process';
import process from 'node:process';

const self = new URL(import.meta.url);

/** Resolves once cond() holds, looking every 10 ms. */
async function until(cond) {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}

async function child(kind, n) {
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  const report = (extra = {}) => {
    globalThis.gc?.();
    console.log(JSON.stringify({ rss: process.memoryUsage().rss, ...extra }));
  };
  if (kind === 'stealwork' || kind === 'shrunk' || kind === 'kept' || kind === 'empty') {
    const { Scheduler } = await import('../dist/index.js');
    const opts = kind === 'stealwork' ? { spareThreads: 0, idleTimeout: Infinity }
      : kind === 'kept' ? { idleTimeout: Infinity }
      : kind === 'empty' ? { minThreads: 0, spareThreads: 0, idleTimeout: 100 }
      : { minThreads: 1, idleTimeout: 100 };
    const s = await Scheduler.start({ tasks: new URL('./tasks.mjs', self), procs: n, ...opts });
    await Promise.all(Array.from({ length: 4 * n }, (_, i) => s.run('inc', i)));
    if (kind === 'shrunk' || kind === 'empty') {
      const live = kind === 'empty' ? 0 : 2; // minThreads and the spare's
      await until(() => s.stats().sched.liveThreads === live);
      await settle();
      report();
      const t0 = performance.now();
      await s.run('inc', 1);
      const first = performance.now() - t0;
      const t1 = performance.now();
      await s.run('inc', 2);
      report({ first, second: performance.now() - t1, starts: s.stats().sched.threadStarts });
    } else {
      await settle();
      report();
    }
    await s.close();
  } else if (kind === 'piscina') {
    const { Piscina } = await import('piscina');
    const p = new Piscina({ filename: new URL('./pool-worker.mjs', self).href, minThreads: n, maxThreads: n, idleTimeout: 60_000 });
    await Promise.all(Array.from({ length: 4 * n }, (_, i) => p.run(i)));
    await settle();
    report();
    await p.destroy();
  }
}

function measure(kind, n) {
  const out = execFileSync(process.execPath, ['--expose-gc', self.pathname, '--child', kind, String(n)], { encoding: 'utf8' });
  return out.trim().split('\n').map((l) => JSON.parse(l));
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await child(args[1], Number(args[2]));
} else {
  const k = args[0] === '--threads' ? Number(args[1]) : 7;
  const reps = 3;
  const mb = (x) => (x / 1048576).toFixed(1);
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  for (const kind of ['stealwork', 'piscina']) {
    const per = [];
    for (let r = 0; r < reps; r++) per.push((measure(kind, 1 + k)[0].rss - measure(kind, 1)[0].rss) / k);
    console.log(`${kind.padEnd(9)}: RSS per idle thread ${mb(med(per))} MB (median of ${reps}; ${per.map(mb).join(', ')} MB), 1 vs ${1 + k} threads`);
  }
  const diff = [];
  const first = [];
  const second = [];
  const cold = [];
  for (let r = 0; r < reps; r++) {
    const one = measure('kept', 1)[0].rss;
    const [shrunk, after] = measure('shrunk', 1 + k);
    diff.push(shrunk.rss - one);
    first.push(after.first);
    second.push(after.second);
    cold.push(measure('empty', 1 + k)[1].first);
  }
  console.log(`shrunk   : procs ${1 + k}, minThreads 1, after its idle threads ended: RSS ${mb(med(diff))} MB above procs 1 (median of ${reps}; ${diff.map(mb).join(', ')} MB)`);
  console.log(`           first task after the shrink ${med(first).toFixed(2)} ms, the next ${med(second).toFixed(2)} ms; with no thread left (minThreads 0) the first task starts one: ${med(cold).toFixed(1)} ms (medians of ${reps})`);
}
