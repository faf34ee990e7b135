// npm run test:model: explores every protocol's scenarios on the real twin (each must pass),
// then on each seeded bug (each must be caught), and prints one line per protocol:
//   model: <protocol>: <N> interleavings, <K> seeded bugs caught
// Exits 1 on a failure of the real code or a seeded bug the explorer missed.
// `node test/model/run.mjs runq park` runs only those protocols. Test code only.

import { exploreScenario, ModelFailure } from './explore.mjs';

const ALL = ['runq', 'gfree', 'classq', 'park', 'mlife', 'join', 'forkq'];
const only = process.argv.slice(2);
let failed = false;

for (const name of only.length !== 0 ? only : ALL) {
  const mod = await import(`./protocols/${name}.mjs`);
  let n = 0;
  for (const sc of await mod.scenarios('real', [])) {
    try {
      n += exploreScenario(sc, sc.opts);
      // A scenario may name outcomes some schedule must reach: a model that never reaches its
      // race proves nothing.
      const missing = (sc.mustReach ?? []).filter((e) => !sc.reached.has(e));
      if (missing.length !== 0) {
        failed = true;
        console.error(`model: ${sc.name}: no schedule reached: ${missing.join('; ')}`);
      }
      if (process.env.MODEL_VERBOSE) {
        const st = sc.stats;
        console.error(`model: ${sc.name}: ${st.dfs} schedules with <= ${st.bound} preemptions (${st.exhausted ? 'all of them' : 'capped'}), then random ones`);
      }
    } catch (e) {
      failed = true;
      console.error(`model: ${name}: the real code fails: ${e instanceof ModelFailure ? e.message : e.stack}`);
    }
  }
  let caught = 0;
  for (const bug of mod.bugs) {
    let found = null;
    for (const sc of await mod.scenarios(bug.name, bug.edits)) {
      try {
        exploreScenario(sc, sc.opts);
      } catch (e) {
        if (!(e instanceof ModelFailure)) throw e;
        found = e;
        break;
      }
    }
    if (found) {
      caught++;
      if (process.env.MODEL_VERBOSE) console.error(`model: ${name}: seeded bug ${bug.name} caught: ${found.message.split('\n')[0]}`);
    } else {
      failed = true;
      console.error(`model: ${name}: seeded bug ${bug.name} was not caught`);
    }
  }
  console.log(`model: ${name}: ${n} interleavings, ${caught} seeded bugs caught`);
}
process.exit(failed ? 1 : 0);
