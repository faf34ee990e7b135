// Cancellation without killing threads: a queued task that is aborted never starts, a running
// one sees ctx.cancelled / ctx.signal, its children are cancelled with it, and the Task rejects
// with an AbortError carrying the reason. Both backends.
import { describe, it, expect, afterAll } from 'vitest';
import { Scheduler, AbortError } from '../dist/bindings/index.js';
import { holdAP, until } from './helpers/runtime.js';

const tasks = new URL('./fixtures/tasks.mjs', import.meta.url);
const open: Array<{ close(o?: { force?: boolean }): Promise<void> }> = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });

function within<T>(p: PromiseLike<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    Promise.resolve(p).finally(() => clearTimeout(timer)),
    new Promise<never>((_, rej) => { timer = setTimeout(() => rej(new Error(`hang: ${what} did not finish within ${ms} ms`)), ms); }),
  ]);
}

describe.each(['wasm', 'js'] as const)('cancellation (%s backend)', (backend) => {
  it('a queued task that is aborted never starts; the promise rejects with the reason', async () => {
    const s = await Scheduler.start({ tasks, procs: 1, backend });
    open.push(s);
    const sab = new SharedArrayBuffer(16);
    // Holds the only P until opened: the task below queues behind it whatever the load (a
    // 150 ms spin after a 30 ms pause bet that the pause ended first).
    const { blocker, open: release } = await holdAP(s, sab);
    const ac = new AbortController();
    const queued = s.with({ signal: ac.signal }).run('markAndSpin', sab, 1, 0).catch((e: unknown) => e);
    ac.abort(new Error('changed my mind'));
    const e = await within(queued, 20_000, 'aborted task') as AbortError;
    expect(e).toBeInstanceOf(AbortError);
    expect(e.code).toBe('ERR_ABORTED');
    expect((e.reason as Error).message).toBe('changed my mind');
    release();
    await within(blocker, 20_000, 'blocker');
    await within(s.close(), 20_000, 'close');
    expect(new Int32Array(sab)[1]).toBe(0); // never started
    const st = s.stats();
    expect(st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0)).toBe(st.sched.gcap - 1); // its G was freed
  });

  it('an already aborted signal rejects at once; a timeout cancels', async () => {
    const s = await Scheduler.start({ tasks, procs: 1, backend });
    open.push(s);
    const e1 = await s.with({ signal: AbortSignal.abort('nope') }).run('add1', 1).catch((e: unknown) => e) as AbortError;
    expect(e1.code).toBe('ERR_ABORTED');
    expect(e1.reason).toBe('nope');
    const e2 = await within(s.with({ timeout: 20 }).run('waitCancel', 5000).catch((e: unknown) => e), 20_000, 'timeout') as AbortError;
    expect(e2.code).toBe('ERR_ABORTED');
    expect(e2.message).toMatch(/timed out after 20 ms/);
    expect(() => s.with({ timeout: -1 })).toThrow(RangeError);
    expect(() => s.with({ signal: 42 } as never)).toThrow(TypeError);
    await within(s.close(), 20_000, 'close');
  });

  it('a running task sees ctx.signal abort; its children see ctx.cancelled', async () => {
    const s = await Scheduler.start({ tasks, procs: 2, backend });
    open.push(s);
    const ac = new AbortController();
    const sab = new SharedArrayBuffer(16);
    const running = s.with({ signal: ac.signal }).spawn('onSignal', sab, 60_000);
    const tree = s.with({ signal: ac.signal }).spawn('cancelTree', sab, 6);
    // Abort once the running task and all six children have started (sab[2], sab[3]): a fixed
    // delay let a loaded machine abort the tree before it started, and then it never runs.
    const i32 = new Int32Array(sab);
    await until(() => Atomics.load(i32, 2) === 1 && Atomics.load(i32, 3) === 6, 30_000, 'the tasks to start');
    ac.abort();
    expect(((await running.result().catch((e: unknown) => e)) as AbortError).code).toBe('ERR_ABORTED');
    expect(((await tree.result().catch((e: unknown) => e)) as AbortError).code).toBe('ERR_ABORTED');
    // The tasks themselves go on to their checkpoints; close waits for them.
    await within(s.close(), 20_000, 'close after cancel');
    expect(new Int32Array(sab)[0]).toBe(6); // every child saw ctx.cancelled
    expect(new Int32Array(sab)[1]).toBe(1); // the running task's ctx.signal aborted
  });

  it('tasks without a signal are not affected by another tree\'s cancellation', async () => {
    const s = await Scheduler.start({ tasks, procs: 2, backend });
    open.push(s);
    const ac = new AbortController();
    const cancelled = s.with({ signal: ac.signal }).run('waitCancel', 3000).catch((e: unknown) => e);
    const free = s.run('waitCancel', 100);
    ac.abort();
    expect(((await cancelled) as AbortError).code).toBe('ERR_ABORTED');
    expect(await within(free, 20_000, 'unrelated task')).toBe('timeout');
    await within(s.close(), 20_000, 'close');
  });
});
