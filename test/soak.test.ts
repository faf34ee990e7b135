// The fast soak in CI: 10 s of random trees, cancellations and worker kills on both backends,
// with elastic threads idling out between waves, random resizes and kill-armed runaways
// (test/soak/soak.mjs; `npm run soak -- --minutes N` runs the long one). It checks every tree
// itself (every tree, the free lists, the value heap, a run after the trees) and exits non-zero
// on any lost, duplicated or wrong task, leaked slot, error outside a task or scheduler failure.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('soak with chaos: nothing lost, nothing run twice, kills survived', { timeout: 120_000 }, () => {
  const script = fileURLToPath(new URL('./soak/soak.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script, '--seconds', '10'], { encoding: 'utf8', timeout: 100_000 });
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  const m = /(\d+) trees \((\d+) tasks\) checked, \d+ cancelled, \d+ failed with a killed thread, (\d+) kills survived, lost = 0, failures = 0/.exec(r.stdout);
  expect(m, r.stdout).not.toBeNull();
  expect(Number(m![2]), 'tasks checked').toBeGreaterThan(3_000); // fewer than before the life-cycle chaos: pauses, one P at times
  expect(Number(m![3]), 'kills survived').toBeGreaterThan(0);
  const life = /life cycle: (\d+) resizes, \d+ runaways killed, \d+ idle exits, (\d+) errors outside a task/.exec(r.stdout);
  expect(life, r.stdout).not.toBeNull();
  expect(Number(life![1]), 'resizes').toBeGreaterThan(0);
  expect(Number(life![2]), 'errors outside a task').toBe(0);
});
