// Stranded callbacks (DESIGN.md "Stranded callbacks"): a timer or promise reaction that a
// synchronous task leaves behind runs while the thread is idle (not inside a later, unrelated
// task), and an error it throws is the scheduler's unhandled error (options.onError), never a
// task's failure. Both backends, one thread, so the later task runs where the callback waits.
import { describe, it, expect } from 'vitest';
import { StealworkError } from '../dist/bindings/index.js';
import { schedulers, until, within } from './helpers/runtime.js';

const start = schedulers();

describe.each(['wasm', 'js'] as const)('stranded callbacks (%s backend)', (backend) => {
  it('a timer and a promise reaction left by a synchronous task run while the thread is idle', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const sab = new SharedArrayBuffer(8);
    await within(s.run('leaveTimer', sab, 30), 20_000, 'leaveTimer');
    await within(s.run('leaveReaction', sab), 20_000, 'leaveReaction');
    // Nothing else runs on the scheduler: the thread is idle, and the callbacks must run anyway.
    await until(() => Atomics.load(new Int32Array(sab), 0) === 1 && Atomics.load(new Int32Array(sab), 1) === 1, 20_000, 'the stranded callbacks');
    await within(s.close(), 20_000, 'close');
  });

  it('an error thrown by a stranded timer goes to onError; an unrelated task later on the thread does not fail', async () => {
    const errors: Error[] = [];
    const s = await start(backend, 1, { spareThreads: 0, onError: (e: Error) => errors.push(e) });
    await within(s.run('leaveThrow', 20, 'stray'), 20_000, 'leaveThrow');
    expect(await within(s.run('sleep', 100, 'unrelated ok'), 20_000, 'the unrelated task')).toBe('unrelated ok');
    await until(() => errors.length === 1, 20_000, 'the stray error reported');
    const e = errors[0] as StealworkError;
    expect(e).toBeInstanceOf(StealworkError);
    expect(e.code).toBe('ERR_UNCAUGHT');
    expect(e.message).toMatch(/RangeError: stray/);
    expect((e.cause as Error).message).toBe('stray');
    expect(s.stats().sched.restarts).toBe(0); // the thread lives on
    expect(await within(s.run('fibc', 12), 20_000, 'fibc after')).toBe(144);
    await within(s.close(), 20_000, 'close');
  });
});
