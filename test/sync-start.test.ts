// A synchronous start (DESIGN.md "A synchronous start"): Scheduler.startSync and the piscina
// entry's constructor return with their threads started, and a spawn is taken by a thread while
// the main thread blocks in Atomics.wait. Each program runs as a child process (its waits have
// no bound: a lost spawn would block it for ever); HANG_MS is a hang detector, not a wait any
// result depends on.

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

const engines: Array<{ name: string; argv: (script: string) => string[]; present: boolean }> = [
  { name: 'node', argv: (s) => [process.execPath, s], present: true },
  { name: 'deno', argv: (s) => [bin('deno'), 'run', '--allow-read', '--allow-env', s], present: existsSync(bin('deno')) },
  { name: 'bun', argv: (s) => [bin('bun'), s], present: existsSync(bin('bun')) },
];

describe('Scheduler.startSync: spawn, then block the main thread', () => {
  for (const e of engines) {
    it.skipIf(!e.present)(`${e.name}: two spawns start while the main thread waits for them`, async () => {
      const r = await run(e.argv('test/sync-start/scheduler-block.mjs'));
      expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
      expect(r.stdout.trim().split('\n'), r.stderr).toEqual(['names 0', 'both started', '0 1', 'ERR_UNKNOWN_TASK', 'exit']);
      expect(r.code).toBe(0);
    });
  }
});

describe('the piscina entry: run(), then block the main thread, beside piscina', () => {
  for (const lib of ['piscina', 'stealwork/piscina']) {
    it(lib, async () => {
      const r = await run([process.execPath, 'test/sync-start/piscina-block.mjs', lib]);
      expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
      expect(r.stdout.trim().split('\n'), r.stderr).toEqual(['threads 2', 'first started', 'first', 'both started', 'b c', 'exit']);
      expect(r.code).toBe(0);
    });
  }
});

describe('started synchronously and never used: the program ends by itself', () => {
  for (const lib of ['piscina', 'stealwork']) {
    it(lib, async () => {
      const r = await run([process.execPath, 'test/sync-start/unused.mjs', lib]);
      expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
      expect(r.stdout.trim().split('\n').pop(), r.stderr).toBe('end of program');
      expect(r.code).toBe(0);
    });
  }
});
