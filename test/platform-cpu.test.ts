// process.cpuUsage() on a worker thread counts the whole process on every engine the package
// runs threads on: asyncPerThread's 'auto' relies on it to see whether the process leaves a CPU
// idle (docs/DESIGN.md "Async tasks: where they start"). The program (test/platform/
// cpu-usage.mjs) stops on CPU time, not on a clock; the bound only reports a hang.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT, runGroup } from './helpers/programs.js';

const PROGRAM = join(ROOT, 'test', 'platform', 'cpu-usage.mjs');
const ENGINES: Array<[string, string[]]> = [
  ['node', [process.execPath, PROGRAM]],
  ['deno', [join(ROOT, 'node_modules', '.bin', 'deno'), 'run', '--allow-read', '--allow-env', PROGRAM]],
  ['bun', [join(ROOT, 'node_modules', '.bin', 'bun'), PROGRAM]],
];

describe('process.cpuUsage() on a worker thread', () => {
  for (const [name, argv] of ENGINES) {
    it(`counts another thread's CPU time (${name})`, async () => {
      const o = await runGroup(argv, { hangMs: 120_000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' } });
      expect(o.hung, o.stderr).toBe(false);
      expect(o.code, o.stderr).toBe(0);
      const { delta } = JSON.parse(o.stdout.trim().split('\n').pop() ?? '{}') as { delta: number };
      // The main thread computed 200 ms of CPU time between the worker's two readings.
      expect(delta).toBeGreaterThanOrEqual(199);
    }, 150_000);
  }
});
