// What `npm test` ran and what it skipped, said in one line at its end.
//
//   node scripts/test-status.mjs begin                   empty the status file (npm test's first step)
//   node scripts/test-status.mjs run STAGE -- CMD ARGS   run a stage; record that it ran or failed
//   node scripts/test-status.mjs end                     print the summary line (npm test's last step)
//
// Every stage of `npm test` is a `test:*` script that runs its command through `run`, so adding a
// stage is adding a script and its `npm run` to the chain; nothing here lists the stages. A stage
// that skips part of itself (no browser, no Bun binary) says so with `reportSkip` from this
// module: the line it appends reaches the summary.
//
// The status file, build/test-status.txt (not tracked), holds one line per report:
//   ran<TAB>STAGE<TAB>detail | failed<TAB>STAGE<TAB>detail | skipped<TAB>STAGE<TAB>why
//
// When a stage fails, `run` prints the summary so far (naming the failed stage) and exits with the
// stage's code, which stops the chain. At `end`, a skip fails the run under CI=true: CI installs
// everything the suite needs (.ci/run), so there a skip means something is broken.

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = fileURLToPath(new URL('../build/test-status.txt', import.meta.url));
const inCI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

function append(kind, stage, detail) {
  mkdirSync(dirname(FILE), { recursive: true });
  appendFileSync(FILE, `${kind}\t${stage}\t${String(detail).replace(/\s+/g, ' ').trim()}\n`);
}

/** Records that `stage` (or part of it) was skipped, and why. Any test file may call it. */
export function reportSkip(stage, why) {
  append('skipped', stage, why);
}

/** The reports so far, in order. */
function reports() {
  if (!existsSync(FILE)) return [];
  return readFileSync(FILE, 'utf8').split('\n').filter(Boolean).map((l) => {
    const [kind, stage, detail = ''] = l.split('\t');
    return { kind, stage, detail };
  });
}

/** The summary line: ran stages, then skips with their reasons, then a failure if any. */
export function summary() {
  const rs = reports();
  const ran = rs.filter((r) => r.kind === 'ran').map((r) => (r.detail ? `${r.stage} (${r.detail})` : r.stage));
  const skipped = rs.filter((r) => r.kind === 'skipped').map((r) => `${r.stage} (${r.detail})`);
  const failed = rs.filter((r) => r.kind === 'failed').map((r) => `${r.stage} (${r.detail})`);
  return `npm test: ${failed.length ? `FAILED ${failed.join(', ')}; ` : ''}ran ${ran.join(', ') || 'nothing'}; ` +
    `skipped ${skipped.length ? skipped.join('; ') : 'nothing'}`;
}

function main(argv) {
  const [cmd, stage, sep, ...command] = argv;
  if (cmd === 'begin') {
    mkdirSync(dirname(FILE), { recursive: true });
    writeFileSync(FILE, '');
    return 0;
  }
  if (cmd === 'run') {
    if (!stage || sep !== '--' || command.length === 0) throw new TypeError('usage: test-status.mjs run STAGE -- CMD [ARGS]');
    // shell: npm puts node_modules/.bin on PATH, and on Windows those are .cmd files.
    const before = reports().length;
    const r = spawnSync(command[0], command.slice(1), { stdio: 'inherit', shell: process.platform === 'win32' });
    if (r.status === 0) {
      // A stage that skipped itself as a whole (reportSkip with its own name) did not run.
      if (!reports().slice(before).some((x) => x.kind === 'skipped' && x.stage === stage)) append('ran', stage, '');
      return 0;
    }
    append('failed', stage, r.error ? r.error.message : `exit ${r.status ?? r.signal}`);
    console.log(`\n${summary()}`);
    return r.status || 1;
  }
  if (cmd === 'end') {
    const line = summary();
    console.log(`\n${line}`);
    const skips = reports().filter((r) => r.kind === 'skipped');
    if (inCI && skips.length) {
      console.log(`npm test: under CI=true nothing may be skipped (${skips.map((s) => s.stage).join(', ')})`);
      return 1;
    }
    return reports().some((r) => r.kind === 'failed') ? 1 : 0;
  }
  throw new TypeError(`test-status.mjs: unknown command ${cmd} (begin, run, end)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
