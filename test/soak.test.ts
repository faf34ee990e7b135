// The fast soak in CI: 10 s of random trees, cancellations and worker kills on both backends
// (test/soak/soak.mjs; `npm run soak -- --minutes N` runs the long one). It checks every tree
// itself (every tree, the free lists, the value heap) and exits non-zero on any lost, duplicated
// or wrong task or leaked slot.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('soak with chaos: nothing lost, nothing run twice, kills survived', { timeout: 120_000 }, () => {
  const script = fileURLToPath(new URL('./soak/soak.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script, '--seconds', '10'], { encoding: 'utf8', timeout: 100_000 });
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  const m = /(\d+) trees \((\d+) tasks\) checked, \d+ cancelled, \d+ failed with a killed thread, (\d+) kills survived, lost = 0, failures = 0/.exec(r.stdout);
  expect(m, r.stdout).not.toBeNull();
  expect(Number(m![2]), 'tasks checked').toBeGreaterThan(10_000);
  expect(Number(m![3]), 'kills survived').toBeGreaterThan(0);
});
