// Programs that never call close() must end by themselves (DESIGN.md "What keeps the process
// alive"): each program of test/lifecycle/ runs as a child process, on this Node and on Deno and
// Bun (the engine matrix runs them on Node 22, 24 and 26 too), and must exit 0 with its output. The
// bound is a hang detector, not a wait the result depends on: each program takes about half a
// second; one still running after HANG_MS has stopped making progress, and fails.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGroup, type GroupOutcome } from './helpers/programs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 60_000;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;

function run(argv: string[]): Promise<GroupOutcome> {
  return runGroup(argv, { cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, hangMs: HANG_MS });
}

const NO_CLOSE = ['6765', 'late', 'root done', 'exit detached=1'];

const engines: Array<{ name: string; argv: (script: string) => string[]; present: boolean }> = [
  { name: 'node', argv: (s) => [process.execPath, s], present: true },
  { name: 'deno', argv: (s) => [bin('deno'), 'run', '--allow-read', '--allow-env', s], present: existsSync(bin('deno')) },
  { name: 'bun', argv: (s) => [bin('bun'), s], present: existsSync(bin('bun')) },
];

describe('a program that never closes its scheduler exits once nothing is pending', () => {
  for (const e of engines) {
    it.skipIf(!e.present)(`ESM, ${e.name}: after a timer-pending root, an idle pause and a detached child`, async () => {
      const r = await run(e.argv('test/lifecycle/no-close.mjs'));
      expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
      expect(r.stdout.trim().split('\n'), r.stderr).toEqual(NO_CLOSE);
      expect(r.code).toBe(0);
    });
  }

  for (const e of engines) {
    it.skipIf(!e.present)(`CommonJS, ${e.name}`, async () => {
      const r = await run(e.argv('test/lifecycle/no-close.cjs'));
      expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
      expect(r.stdout.trim().split('\n'), r.stderr).toEqual(NO_CLOSE);
      expect(r.code).toBe(0);
    });
  }

  it('stealwork/piscina without close(), node', async () => {
    const r = await run([process.execPath, 'test/lifecycle/piscina-no-close.mjs']);
    expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
    expect(r.stdout.trim().split('\n'), r.stderr).toEqual(['49', '2 3 4', 'exit']);
    expect(r.code).toBe(0);
  });
});
