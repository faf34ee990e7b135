// Runs the programs of test/output/ many times (default 100 each) and counts the runs whose
// output arrived whole and in order (DESIGN.md "Task output"); test/output.test.ts runs each a
// few times. Needs a build (dist/).
//   node scripts/output-runs.mjs [runs] [engine: node | deno | bun]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 100);
const engine = process.argv[3] ?? 'node';
const N = 10_000;
const argv = (script, ...a) => engine === 'node' ? [process.execPath, script, ...a]
  : engine === 'deno' ? [`${root}node_modules/.bin/deno`, 'run', '--allow-read', '--allow-env', script, ...a]
  : [`${root}node_modules/.bin/bun`, script, ...a];

const numbered = (tag, n) => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');
const programs = [
  { name: 'Scheduler, no close()', argv: argv('test/output/scheduler.mjs', String(N)), out: numbered('line', N), err: '' },
  { name: 'Scheduler, close()', argv: argv('test/output/scheduler.mjs', String(N), 'close'), out: numbered('line', N), err: '' },
  { name: 'two threads, stdout and stderr', argv: argv('test/output/mixed.mjs', String(N)), out: numbered('out', N), err: numbered('err', N) },
  { name: 'killed task', argv: argv('test/output/kill.mjs', String(N)), out: numbered('line', N), err: '' },
  ...(engine === 'node' ? [
    { name: 'stealwork/piscina, no close()', argv: argv('test/output/piscina.mjs', String(N)), out: numbered('line', N), err: '' },
    { name: 'stealwork/piscina, close()', argv: argv('test/output/piscina.mjs', String(N), 'close'), out: numbered('line', N), err: '' },
    { name: "piscina's console.log test", argv: argv('test/output/piscina-eval.cjs'), out: 'A\n', err: 'B\n' },
  ] : []),
];

function once(a) {
  return new Promise((resolve) => {
    const c = spawn(a[0], a.slice(1), { cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    c.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
    const timer = setTimeout(() => c.kill('SIGKILL'), 60_000); // a hang
    c.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

let failed = 0;
for (const p of programs) {
  let whole = 0;
  const bad = [];
  for (let k = 0; k < runs; k++) {
    const r = await once(p.argv);
    if (r.code === 0 && r.out === p.out && r.err === p.err) whole++;
    else bad.push(`exit ${r.code}, ${r.out.split('\n').length - 1} + ${r.err.split('\n').length - 1} lines`);
  }
  failed += runs - whole;
  console.log(`${engine}, ${p.name}: ${whole} of ${runs} whole and in order${bad.length ? ` (others: ${bad.slice(0, 5).join('; ')})` : ''}`);
}
process.exitCode = failed === 0 ? 0 : 1;
