// Crashed workers (docs/DESIGN.md "Crashed workers"): a thread that dies outside the
// scheduler's control fails the task it was running and the async tasks pinned to it with
// WorkerCrashedError; a new thread takes over its slot and P, and every queued task still runs
// exactly once. Both backends, real threads; every wait bounded.
import { describe, expect, it } from 'vitest';
import { schedulers, until, within } from './helpers/runtime.js';

const start = schedulers();

const fibSeq = (n: number): number => (n < 2 ? n : fibSeq(n - 1) + fibSeq(n - 2));

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await within(p, 20000, 'the crashing task');
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe.each(['wasm', 'js'] as const)('crashed workers (%s backend)', (backend) => {
  it('process.exit in a task fails that task with WorkerCrashedError; the scheduler carries on', async () => {
    const s = await start(backend, 2);
    const e = await rejection(s.run('crashExit'));
    expect(e.name).toBe('WorkerCrashedError');
    expect(e.message).toMatch(/worker M\d exited/);
    expect(await within(s.run('fibc', 18), 20000, 'fibc after the crash')).toBe(fibSeq(18));
    await until(() => s.stats().sched.restarts === 1, 20_000, 'one restart');
    await within(s.close(), 20_000, 'close');
  });

  it('the queue of the dead thread\'s P survives: every child runs exactly once', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const n = 600; // more than a ring holds: some spill to the global queue
    const sab = new SharedArrayBuffer(4 * (n + 1));
    const e = await rejection(s.run('crashAfterSpawn', sab, n));
    expect(e.name).toBe('WorkerCrashedError');
    const a = new Int32Array(sab);
    await until(() => Atomics.load(a, 0) === n, 20000, `${n} children run after the crash`);
    await within(s.close(), 20_000, 'close');
    const wrong: number[] = [];
    for (let i = 1; i <= n; i++) if (a[i] !== 1) wrong.push(i);
    expect(wrong.slice(0, 10), 'children not run exactly once').toEqual([]);
  });

  it('async tasks pinned to the dead thread fail with it; others are untouched', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const pinned = s.run('pinnedForever');
    await new Promise((r) => setTimeout(r, 20));
    const [e1, e2] = await Promise.all([rejection(pinned), rejection(s.run('crashExit'))]);
    expect(e1.name).toBe('WorkerCrashedError');
    expect(e2.name).toBe('WorkerCrashedError');
    expect(await within(s.run('add1', 41), 20000, 'a task after the crash')).toBe(42);
    expect(s.stats().sched.restarts).toBe(1);
    await within(s.close(), 20_000, 'close');
  });

  it('with the core\'s transition checks on (debug), a pinned task is failed from G_WAITING, not G_RUNNING', async () => {
    // Recovery once failed every casualty from G_RUNNING; a pinned one is G_WAITING, and the
    // debug core aborted the recovery (found by the soak's kill-armed runaways).
    const s = await start(backend, 1, { spareThreads: 0, debug: true });
    const pinned = s.run('pinnedForever');
    await new Promise((r) => setTimeout(r, 20));
    const [e1, e2] = await Promise.all([rejection(pinned), rejection(s.run('crashExit'))]);
    expect(e1.name).toBe('WorkerCrashedError');
    expect(e2.name).toBe('WorkerCrashedError');
    expect(await within(s.run('add1', 41), 20000, 'a task after the crash')).toBe(42);
    await within(s.close(), 20_000, 'close');
  });

  it('an error thrown outside any task is reported and the thread lives on; the awaiting task is not failed', async () => {
    const errors: Error[] = [];
    const s = await start(backend, 2, { onError: (e: Error) => errors.push(e) });
    expect(await within(s.run('crashLater', 5), 20000, 'crashLater')).toBe('ok');
    await until(() => errors.length === 1, 20_000, 'the stray error reported');
    expect(errors[0].message).toMatch(/thrown outside any task/);
    expect(s.stats().sched.restarts).toBe(0);
    const many = await within(Promise.all(Array.from({ length: 40 }, (_, i) => s.run('fibc', i % 15))), 20000, '40 roots');
    expect(many).toEqual(Array.from({ length: 40 }, (_, i) => fibSeq(i % 15)));
    await within(s.close(), 20_000, 'close');
  });
});
