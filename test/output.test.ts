// What a task prints reaches the process's output, every line, in the order its thread wrote
// it, before the program ends (DESIGN.md "Task output"): each program of test/output/ runs as a
// child process, several times, with and without close(), on this Node and on Deno and Bun. The
// bound is a hang detector, not a wait the result depends on. `node scripts/output-runs.mjs`
// runs the same programs many more times.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGroup, type GroupOutcome } from './helpers/programs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 60_000;
const N = 10_000;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;

/** A test's own bound: each of its runs has HANG_MS. */
const bound = (times: number): number => times * HANG_MS;

function run(argv: string[]): Promise<GroupOutcome> {
  return runGroup(argv, { cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, hangMs: HANG_MS });
}

/** `${tag} 0` .. `${tag} n-1`, one a line. */
function numbered(tag: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += `${tag} ${i}\n`;
  return s;
}

/** Runs argv `times` times in turn; each run must exit 0 with exactly the output expected. */
async function repeat(argv: string[], times: number, stdout: string, stderr: string): Promise<void> {
  for (let k = 0; k < times; k++) {
    const r = await run(argv);
    expect(r.hung, `run ${k + 1} hung; stderr:\n${r.stderr.slice(0, 2000)}`).toBe(false);
    // Compared as counts first: a mismatch of 10,000 lines is unreadable.
    const got = { run: k + 1, code: r.code, stdoutLines: r.stdout.split('\n').length - 1, stderrLines: r.stderr.split('\n').length - 1 };
    expect(got).toEqual({ run: k + 1, code: 0, stdoutLines: stdout.split('\n').length - 1, stderrLines: stderr.split('\n').length - 1 });
    expect(r.stdout === stdout, `run ${k + 1}: stdout out of order`).toBe(true);
    expect(r.stderr === stderr, `run ${k + 1}: stderr out of order`).toBe(true);
  }
}

const engines: Array<{ name: string; argv: (script: string, ...args: string[]) => string[]; present: boolean; times: number }> = [
  { name: 'node', argv: (s, ...a) => [process.execPath, s, ...a], present: true, times: 10 },
  { name: 'deno', argv: (s, ...a) => [bin('deno'), 'run', '--allow-read', '--allow-env', s, ...a], present: existsSync(bin('deno')), times: 3 },
  { name: 'bun', argv: (s, ...a) => [bin('bun'), s, ...a], present: existsSync(bin('bun')), times: 3 },
];

describe('a task printing 10,000 lines: all of them arrive, in order', () => {
  for (const e of engines) {
    for (const close of ['', 'close']) {
      it.skipIf(!e.present)(`Scheduler, ${e.name}, ${close === '' ? 'without close()' : 'with close()'}, ${e.times} runs`, async () => {
        await repeat(e.argv('test/output/scheduler.mjs', String(N), close), e.times, numbered('line', N), '');
      }, bound(e.times));
    }
  }

  for (const close of ['', 'close']) {
    it(`stealwork/piscina, node, ${close === '' ? 'without close()' : 'with close()'}, 10 runs`, async () => {
      await repeat([process.execPath, 'test/output/piscina.mjs', String(N), close], 10, numbered('line', N), '');
    }, bound(10));
  }

  it("piscina's own console.log test (a run never awaited), stealwork/piscina, node, 10 runs", async () => {
    await repeat([process.execPath, 'test/output/piscina-eval.cjs'], 10, 'A\n', 'B\n');
  }, bound(10));
});

describe('two threads printing at once, one on stdout and one on stderr: each in order', () => {
  for (const e of engines) {
    for (const close of ['', 'close']) {
      it.skipIf(!e.present)(`${e.name}, ${close === '' ? 'without close()' : 'with close()'}, ${e.times} runs`, async () => {
        await repeat(e.argv('test/output/mixed.mjs', String(N), close), e.times, numbered('out', N), numbered('err', N));
      }, bound(e.times));
    }
  }
});

describe('a killed task: the lines it printed before the kill arrive', () => {
  for (const e of engines) {
    it.skipIf(!e.present)(`${e.name}, ${e.times} runs`, async () => {
      await repeat(e.argv('test/output/kill.mjs', String(N)), e.times, numbered('line', N), '');
    }, bound(e.times));
  }
});
