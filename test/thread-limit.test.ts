// A thread limit, as a container's pids limit or a user's process limit sets one (DESIGN.md
// "Threads that come and go", "When the platform refuses a thread"): test/thread-limit/program.mjs
// runs as the user nobody under `ulimit -u` (root is not bound by it), takes every thread the
// limit leaves, and then needs one more. Without the handling a refused growth thread was an
// uncaught ERR_WORKER_INIT_FAILED that ended the process.
//
// The program and the build run from a copy in a temp folder that nobody can read. The bound is
// a hang detector, not a wait the result depends on: each run takes a second or two.

import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSkip } from '../scripts/test-status.mjs';
import { runGroup, type GroupOutcome } from './helpers/programs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 60_000;
/** Threads the user may have: enough for Node and a 4-P scheduler; the program fills the rest. */
const LIMIT = 48;
const SU = ['/usr/bin/su', '/bin/su'].find((p) => existsSync(p));
const why = process.getuid?.() !== 0 ? 'not root: cannot run a program as another user with a thread limit'
  : SU === undefined ? 'no su to run a program as another user'
    : !existsSync('/bin/bash') ? 'no bash, whose ulimit sets the thread limit (-u)' : null;

let dir = '';

/** Makes every folder and file under p readable (and folders enterable) by anybody. */
function openUp(p: string): void {
  chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
  if (statSync(p).isDirectory()) for (const f of readdirSync(p)) openUp(join(p, f));
}

function run(mode: string): Promise<GroupOutcome> {
  const script = `ulimit -u ${LIMIT} && cd '${dir}' && exec '${process.execPath}' program.mjs ${mode}`;
  return runGroup([SU!, 'nobody', '-s', '/bin/bash', '-c', script], { hangMs: HANG_MS });
}

describe.skipIf(why !== null)('a thread limit: the platform refuses a thread', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stealwork-thread-limit-'));
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    for (const f of ['program.mjs', 'tasks.mjs', 'filler.mjs']) cpSync(join(ROOT, 'test', 'thread-limit', f), join(dir, f));
    openUp(dir);
  });
  afterAll(() => { if (dir !== '') rmSync(dir, { recursive: true, force: true }); });

  it('a thread for a P without one is refused: the tasks run on the thread there is, a warning says so, and the Ps get threads once the limit allows', async () => {
    const r = await run('grow');
    expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
    expect(r.stdout.trim().split('\n'), r.stderr).toEqual([
      'filled: true', 'failed: 0', 'threads: 1', 'threads back: true', 'warnings: STEALWORK_THREAD_START',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ERR_WORKER_INIT_FAILED: EAGAIN/);
  });

  it('with no thread left to run them, the tasks fail with ERR_WORKER_START instead of waiting for ever', async () => {
    const r = await run('none');
    expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
    expect(r.stdout.trim().split('\n'), r.stderr).toEqual(['filled: true', 'rejected: 8', 'warnings: none']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('Scheduler.start rejects with ERR_WORKER_START and the process exits', async () => {
    const r = await run('start');
    expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
    expect(r.stdout.trim().split('\n'), r.stderr).toEqual(['filled: true', 'start rejected: ERR_WORKER_START']);
    expect(r.code, r.stderr).toBe(0);
  });
});

if (why !== null) reportSkip('vitest', `thread-limit.test.ts: ${why}`);
