// scripts/stress.mjs, which runs the vitest stage of `npm test` beside busy loops under CI: it
// exits with its command's status, adds loops under --ci-loops only when CI is set, and leaves no
// loop spinning when it is killed. Each run is a child process; one that does not exit within
// the bound is a hang, and fails.
import { execFile, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { until } from './helpers/runtime.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 30_000;

interface Ran { code: number | null; stdout: string; stderr: string }

function stress(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/stress.mjs', ...args], {
      cwd: ROOT, encoding: 'utf8', timeout: HANG_MS, killSignal: 'SIGKILL', env: { ...process.env, CI: '', ...env },
    }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }));
  });
}

/** The pids of pid's child processes (Linux: /proc). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    out.push(...readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  }
  return out;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); // a zombie has ended
  } catch {
    return false;
  }
};

describe('scripts/stress.mjs', () => {
  it('exits with its command\'s status, beside the loops it was asked for', async () => {
    const r = await stress(['--loops', '2', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^stress: 2 busy loops running beside: /);
    expect(r.stdout).toMatch(/ended with 3 beside 2 busy loops\n$/);
  });

  it('--ci-loops: loops only when CI is set', async () => {
    const quiet = await stress(['--ci-loops', '2', '--', process.execPath, '-e', 'console.log("ran")']);
    expect(quiet).toEqual({ code: 0, stdout: 'ran\n', stderr: '' });
    const ci = await stress(['--ci-loops', '2', '--', process.execPath, '-e', 'console.log("ran")'], { CI: 'true' });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout).toMatch(/^stress: 2 busy loops running beside: .*\nran\n/);
  });

  it('refuses an unknown option or a count that is not a whole number, naming it', async () => {
    const unknown = await stress(['--loop', '2']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/TypeError: unknown option --loop/);
    const bad = await stress(['--ci-loops', '-1']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/RangeError: --ci-loops must be a whole number, got -1/);
  });

  it.skipIf(process.platform !== 'linux')('killed, it leaves no loop spinning: each ends once its parent is gone', async () => {
    const s = spawn(process.execPath, ['scripts/stress.mjs', '--loops', '2', '--', process.execPath, '-e', 'setInterval(() => {}, 1000)'], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    s.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    const exited = new Promise((r) => s.on('exit', r));
    let kids: number[] = [];
    const loops = (): number[] => kids.filter((p) => /const parent/.test(readFileSync(`/proc/${p}/cmdline`, 'utf8')));
    try {
      await until(() => out.includes('running beside'), HANG_MS, 'the loops started');
      await until(() => (kids = children(s.pid!)).length === 3, HANG_MS, 'two loops and the command running');
      const spinning = loops();
      expect(spinning.length).toBe(2);
      s.kill('SIGKILL');
      await exited;
      await until(() => spinning.every((p) => !alive(p)), HANG_MS, 'the loops ending by themselves');
    } finally {
      for (const p of kids) if (alive(p)) process.kill(p, 'SIGKILL'); // the command, and loops left by a failure
    }
  });
});
