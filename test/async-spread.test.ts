// Async tasks spread over the threads: a thread that starts an async task and leaves it awaiting
// must not take every other task too, and a continuation that computes for long must not keep
// the tasks queued behind it from the other thread. Each program of test/fixtures/async/ runs as
// a child process (on 2 threads: a Scheduler of procs 2, or stealwork/piscina with maxThreads 2)
// and prints what its tasks counted in shared memory: which threads ran them, and the most each
// thread had in flight at once (an async task from its first line to its settlement). Nothing
// here asserts on wall-clock time; HANG_MS only bounds a hang.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runGroup } from './helpers/programs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HANG_MS = 60_000;

interface Thread { threadId: number; tasks: number; maxInFlight: number; inFlight: number }

/** Runs test/fixtures/async/<program> with args; its one JSON line. */
async function program<T>(name: string, ...args: string[]): Promise<T> {
  const r = await runGroup([process.execPath, `test/fixtures/async/${name}`, ...args], { cwd: root, hangMs: HANG_MS });
  expect(r.hung, `hung; output so far:\n${r.stdout}\n${r.stderr}`).toBe(false);
  expect(r.code, r.stderr).toBe(0);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as T;
}

interface Stall { tiny: number; answers: boolean; doneWhileComputing: number; endedBeforeLong: number; longThread: number; tinyThreads: number[]; threads: Thread[] }

describe('tiny roots spawned behind a long continuation finish before it ends', () => {
  // Both threads started (minThreads 2) and warmed by 20 tiny roots; then the long task awaits
  // 5 ms and computes until the 10 tiny roots have finished (5 s at most). They are spawned once
  // it computes, so only the other thread, idle, can run them meanwhile.
  for (const kind of ['scheduler', 'piscina'] as const) {
    it(kind === 'scheduler' ? 'Scheduler, procs 2' : 'stealwork/piscina, maxThreads 2', async () => {
      const r = await program<Stall>('stall.mjs', kind);
      expect(r.tiny).toBe(10);
      expect(r.answers).toBe(true);
      expect({ doneWhileComputing: r.doneWhileComputing, endedBeforeLong: r.endedBeforeLong }, JSON.stringify(r))
        .toEqual({ doneWhileComputing: 10, endedBeforeLong: 10 });
      expect(r.tinyThreads, 'no tiny root ran on the computing thread').not.toContain(r.longThread);
    });
  }
});

interface ReadHash { tasks: number; right: number; threads: Thread[] }

describe('100 async readFile + SHA-256 tasks run on every thread', () => {
  it('Scheduler, procs 2 (default options): both threads run tasks', async () => {
    const r = await program<ReadHash>('readhash.mjs', 'scheduler');
    expect({ tasks: r.tasks, right: r.right }).toEqual({ tasks: 100, right: 100 });
    expect(r.threads.reduce((a, t) => a + t.tasks, 0)).toBe(100);
    expect(r.threads.length, JSON.stringify(r.threads)).toBeGreaterThanOrEqual(2);
  });

  it('Scheduler, procs 2, asyncPerThread 2: both threads, at most 2 in flight on each', async () => {
    const r = await program<ReadHash>('readhash.mjs', 'scheduler', JSON.stringify({ asyncPerThread: 2 }));
    expect({ tasks: r.tasks, right: r.right }).toEqual({ tasks: 100, right: 100 });
    expect(r.threads.reduce((a, t) => a + t.tasks, 0)).toBe(100);
    expect(r.threads.length, JSON.stringify(r.threads)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...r.threads.map((t) => t.maxInFlight)), JSON.stringify(r.threads)).toBeLessThanOrEqual(2);
  });

  for (const perWorker of [undefined, 2]) {
    const cap = perWorker ?? 1;
    it(`stealwork/piscina, maxThreads 2, concurrentTasksPerWorker ${perWorker ?? '(default 1)'}: both threads, at most ${cap} in flight on each`, async () => {
      const opts = perWorker === undefined ? {} : { concurrentTasksPerWorker: perWorker };
      const r = await program<ReadHash>('readhash.mjs', 'piscina', JSON.stringify(opts));
      expect({ tasks: r.tasks, right: r.right }).toEqual({ tasks: 100, right: 100 });
      expect(r.threads.reduce((a, t) => a + t.tasks, 0)).toBe(100);
      expect(r.threads.length, JSON.stringify(r.threads)).toBeGreaterThanOrEqual(2);
      expect(Math.max(...r.threads.map((t) => t.maxInFlight)), JSON.stringify(r.threads)).toBeLessThanOrEqual(cap);
    });
  }
});

interface Tree { files: number; listed: number; right: number; hits: number[]; threads: Thread[] }

describe('a task per directory spawning a task per file (ctx.spawn)', () => {
  it('hashes every file exactly once, on more than one thread', async () => {
    const r = await program<Tree>('tree.mjs');
    expect({ listed: r.listed, right: r.right }).toEqual({ listed: r.files, right: r.files });
    expect(r.hits).toEqual(Array(r.files).fill(1));
    expect(r.threads.reduce((a, t) => a + t.tasks, 0)).toBe(r.files + 4); // and the 4 directory tasks
    expect(r.threads.length, JSON.stringify(r.threads)).toBeGreaterThan(1);
  });
});
