// What an idle thread costs in memory: the process's resident set size with a scheduler of 1 P
// and of 1 + K Ps (every thread idle, parked), and the same for piscina with 1 and 1 + K
// threads, each in a fresh process. The difference over K is the cost of one idle thread.
//
//   node bench/idle-memory.mjs [--threads K]      (after npm run build)
//
// It decides whether thread counts that shrink when idle would be worth their complexity: an
// idle M is parked in Atomics.wait (no CPU), so memory is its only cost.

import { execFileSync } from 'node:child_process';
import process from 'node:process';

const self = new URL(import.meta.url);

async function child(kind, n) {
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  if (kind === 'stealwork') {
    const { Scheduler } = await import('../dist/bindings/index.js');
    const s = await Scheduler.start({ tasks: new URL('./tasks.mjs', self), procs: n, spareThreads: 0 });
    await Promise.all(Array.from({ length: 4 * n }, (_, i) => s.run('inc', i)));
    await settle();
    globalThis.gc?.();
    console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
    await s.close();
  } else if (kind === 'piscina') {
    const { Piscina } = await import('piscina');
    const p = new Piscina({ filename: new URL('./pool-worker.mjs', self).href, minThreads: n, maxThreads: n, idleTimeout: 60_000 });
    await Promise.all(Array.from({ length: 4 * n }, (_, i) => p.run(i)));
    await settle();
    globalThis.gc?.();
    console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
    await p.destroy();
  }
}

function measure(kind, n) {
  const out = execFileSync(process.execPath, ['--expose-gc', self.pathname, '--child', kind, String(n)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()).rss;
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await child(args[1], Number(args[2]));
} else {
  const k = args[0] === '--threads' ? Number(args[1]) : 8;
  const reps = 3;
  const mb = (x) => (x / 1048576).toFixed(1);
  for (const kind of ['stealwork', 'piscina']) {
    const per = [];
    for (let r = 0; r < reps; r++) {
      const one = measure(kind, 1);
      const many = measure(kind, 1 + k);
      per.push((many - one) / k);
    }
    per.sort((a, b) => a - b);
    console.log(`${kind.padEnd(9)}: RSS per idle thread ${mb(per[1])} MB (median of ${reps}; ${per.map(mb).join(', ')} MB), 1 vs ${1 + k} threads`);
  }
}
