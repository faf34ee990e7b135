// npm run test:spin: checks docs/model/park.pml (the park/wake protocol in Promela) with spin,
// and checks that its seeded bug (stopM rechecking before it leaves nmspinning) is caught.
// Needs spin and a C compiler (Debian: spin, gcc; .ci/run installs them). Prints one line:
//   spin: park: <S> states, 0 errors; seeded bug BUG_RECHECK_FIRST caught
// Exits 1 otherwise. Test code only.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MODEL = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/model/park.pml');

/** Generates, compiles and runs the verifier for `defines`; returns { errors, states, out }. */
function verify(defines) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stealwork-spin-'));
  try {
    fs.copyFileSync(MODEL, path.join(dir, 'park.pml'));
    execFileSync('spin', [...defines.map((d) => `-D${d}`), '-a', 'park.pml'], { cwd: dir, stdio: 'pipe' });
    execFileSync(process.env.CC ?? 'cc', ['-O2', '-DSAFETY', '-o', 'pan', 'pan.c'], { cwd: dir, stdio: 'pipe' });
    let out;
    try {
      out = execFileSync('./pan', [], { cwd: dir, encoding: 'utf8' });
    } catch (e) {
      out = String(e.stdout ?? '');
    }
    const errors = /errors: (\d+)/.exec(out);
    const states = /(\d+) states, stored/.exec(out);
    if (errors === null || states === null) throw new Error(`spin: unexpected verifier output:\n${out}`);
    return { errors: Number(errors[1]), states: Number(states[1]), out };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const real = verify([]);
const bug = verify(['BUG_RECHECK_FIRST']);
let ok = true;
if (real.errors !== 0) {
  ok = false;
  console.error(`spin: park: the model fails:\n${real.out}`);
}
if (bug.errors === 0) {
  ok = false;
  console.error('spin: park: seeded bug BUG_RECHECK_FIRST was not caught');
}
console.log(`spin: park: ${real.states} states, ${real.errors} errors; seeded bug BUG_RECHECK_FIRST ${bug.errors !== 0 ? 'caught' : 'missed'}`);
process.exit(ok ? 0 : 1);
