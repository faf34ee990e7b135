// Errors that name their cause (DESIGN.md "Errors across threads"): a result that finds no room
// in the shared memory is ERR_OUT_OF_MEMORY naming maxMemoryMB, as an argument is; flags Node
// refuses for a worker thread name options.execArgv, not a thread limit; a task module whose
// load never settles is a typed error after startTimeout, and visible in stats() meanwhile.
// Both backends.

import { describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { within } from './helpers/runtime.js';

const TASKS = new URL('./lifecycle/recover-tasks.mjs', import.meta.url);

describe.each(['wasm', 'js'] as const)('errors that name their cause (%s backend)', (backend) => {
  it('a task module whose top-level await never settles: startTimeout rejects Scheduler.start naming it', async () => {
    const e = await within(Scheduler.start({ tasks: new URL('./lifecycle/hang/tasks.mjs', import.meta.url), backend, procs: 2, startTimeout: 300 }).then(
      async (s) => { await s.close({ force: true }); return null; }, (x: unknown) => x as Error & { code?: string }), 30_000, 'the start');
    expect(e?.code).toBe('ERR_WORKER_START');
    expect(e?.message).toMatch(/3 of 3 threads had not loaded the task module .*hang\/tasks\.mjs after startTimeout=300 ms/);
  });

  it('a synchronous start whose module does not load shows its threads starting in stats()', async () => {
    const s = Scheduler.startSync({ tasks: new URL('./lifecycle/hang/tasks.mjs', import.meta.url), backend, procs: 2, spareThreads: 0 });
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect(s.stats().sched.threadsStarting).toBe(2);
    } finally {
      await s.close({ force: true });
    }
  });

  it('a result over maxMemoryMB is ERR_OUT_OF_MEMORY naming it; the scheduler goes on', async () => {
    const s = await Scheduler.start({ tasks: TASKS, backend, procs: 1, maxMemoryMB: 16 });
    try {
      const e = await within(s.run('bigResult', 40).then(() => null, (x: unknown) => x as Error & { code?: string }), 30_000, 'the big result');
      expect(e?.name).toBe('StealworkError');
      expect(e?.code).toBe('ERR_OUT_OF_MEMORY');
      expect(e?.message).toMatch(/the result of task 'bigResult'.*maxMemoryMB=16/);
      expect(await within(s.run('fibc', 12), 30_000, 'a task after')).toBe(144);
    } finally {
      await s.close({ force: true });
    }
  });

  it('execArgv Node refuses for a worker names options.execArgv', async () => {
    const e = await Scheduler.start({ tasks: TASKS, backend, procs: 1, execArgv: ['--expose-gc'] }).then(
      async (s) => { await s.close({ force: true }); return null; }, (x: unknown) => x as Error & { code?: string; cause?: { code?: string } });
    expect(e?.code).toBe('ERR_WORKER_START');
    expect(e?.message).toMatch(/^options\.execArgv: Node refuses these flags/);
    expect(e?.cause?.code).toBe('ERR_WORKER_INVALID_EXEC_ARGV');
  });
});
