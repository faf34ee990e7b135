// Runs small programs as their authors run them: each in a fresh folder outside the repository
// (its own package.json, so its own module type and no tsconfig of ours), whose node_modules
// links to the repository's copies of what it imports (piscina, this package as `stealwork`,
// ts-node, tsx, TypeScript and Node's types). A program written against piscina runs a second
// time with its import switched to stealwork/piscina; the two runs are compared.
//
// A program must exit by itself: one still running after the deadline is killed and reported
// as a hang, which fails the test that ran it.
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The packages a program's folder can import, linked from the repository's node_modules (and
 *  `stealwork`, this package: its exports map points at dist/). */
const LINKED = ['piscina', 'ts-node', 'tsx', 'typescript', '@types/node'];

/** What a program did. */
export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  /** It was still running at the deadline, and was killed. */
  hang: boolean;
}

/**
 * A fresh folder holding the files of `source` (a folder of the repository), with a
 * package.json of module type `type` and the node_modules links. With `lib` 'stealwork/piscina',
 * every `'piscina'` / `"piscina"` module specifier in the copied files reads 'stealwork/piscina'
 * instead: the one change a program makes to switch. Removed by `dispose()`.
 */
export function programFolder(source: string, opts: { type: 'commonjs' | 'module'; lib: 'piscina' | 'stealwork/piscina' }): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'stealwork-program-'));
  cpSync(source, dir, { recursive: true });
  if (opts.lib !== 'piscina') {
    for (const f of readdirSync(dir, { recursive: true }) as string[]) {
      if (!/\.(c|m)?(j|t)s$/.test(f)) continue;
      const file = join(dir, f);
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replace(/(['"])piscina\1/g, `$1${opts.lib}$1`));
    }
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'program', private: true, type: opts.type }, null, 2));
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  for (const name of LINKED) symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  symlinkSync(ROOT, join(dir, 'node_modules', 'stealwork'), 'dir');
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `cmd args` in `cwd` to its exit, or kills it at `deadlineMs` (a hang). */
export function runProgram(cmd: string, args: string[], cwd: string, deadlineMs = 120_000, env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 16 << 20, timeout: deadlineMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const killed = child.killed || (err as { signal?: string } | null)?.signal === 'SIGKILL';
      resolve({ code: child.exitCode, stdout, stderr, hang: killed });
    });
  });
}

/** An outcome as a test compares it: exit code and output, or the hang. */
export function shown(o: Outcome): { code: number | null; stdout: string } | { hang: true; stdout: string; stderr: string } {
  return o.hang ? { hang: true, stdout: o.stdout, stderr: o.stderr } : { code: o.code, stdout: o.stdout };
}

/** What runGroup saw: as Outcome, with `hung` for a program killed at its hang bound. */
export interface GroupOutcome { code: number | null; hung: boolean; stdout: string; stderr: string }

/**
 * Runs argv in a process group of its own and, should it still run after `hangMs`, kills the
 * whole group (SIGKILL): a program that starts others (su, a shell) leaves none behind. The
 * bound is a hang detector; the program's result never depends on it.
 */
export function runGroup(argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; hangMs: number }): Promise<GroupOutcome> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, env: opts.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone already */ }
    }, opts.hangMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, hung, stdout, stderr }); });
  });
}
