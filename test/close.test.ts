// close() under adversarial use: a forced close ends a graceful one still waiting (also on a
// task that ignores its cancellation), close twice, close with nothing running, spawn after
// close. Both backends, real threads; every wait bounded, and a miss names what hung.
import { describe, it, expect } from 'vitest';
import { StealworkError, AbortError } from '../dist/bindings/index.js';
import { schedulers, within } from './helpers/runtime.js';

const start = schedulers();

describe.each(['wasm', 'js'] as const)('close (%s backend)', (backend) => {
  it('close({ force: true }) ends a close() still waiting for running tasks', async () => {
    const s = await start(backend, 2);
    const spinning = s.run('spin', 60_000).catch((e: unknown) => e); // runs on, holding close()
    await new Promise((r) => setTimeout(r, 30));
    let settled = false;
    const graceful = s.close().then(() => { settled = true; });
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false); // it waits for the task, as documented
    await within(s.close({ force: true }), 20_000, 'the forced close');
    await within(graceful, 20_000, 'the graceful close, once a forced close stopped the threads');
    expect(((await spinning) as StealworkError).code).toBe('ERR_CLOSED_FORCE');
  });

  it('a timed-out task that ignores its signal holds close(); a forced close ends both', async () => {
    const s = await start(backend, 1);
    const e = await within(s.with({ timeout: 20 }).run('spin', 60_000).catch((x: unknown) => x), 20_000, 'the timeout') as AbortError;
    expect(e).toBeInstanceOf(AbortError);
    const graceful = s.close();
    await new Promise((r) => setTimeout(r, 50));
    await within(s.close({ force: true }), 20_000, 'the forced close');
    await within(graceful, 20_000, 'the graceful close');
  });

  it('close with nothing running, close twice, spawn after close', async () => {
    const s = await start(backend, 2);
    const a = s.close();
    const b = s.close();
    expect(b).toBe(a);
    await within(a, 20_000, 'close of an idle scheduler');
    await within(s.close({ force: true }), 20_000, 'a forced close after close');
    const late = s.spawn('add1', 1);
    const err = await within(late.result().catch((x: unknown) => x), 20_000, 'spawn after close') as StealworkError;
    expect(err).toBeInstanceOf(StealworkError);
    expect(err.code).toBe('ERR_CLOSED');
    expect(((await s.run('add1', 1).catch((x: unknown) => x)) as StealworkError).code).toBe('ERR_CLOSED');
  });

  it('two forced closes, and a graceful one after a forced one, all settle', async () => {
    const s = await start(backend, 1);
    const p = s.run('spin', 60_000).catch((x: unknown) => x);
    await new Promise((r) => setTimeout(r, 20));
    const f1 = s.close({ force: true });
    const f2 = s.close({ force: true });
    const g = s.close();
    await within(Promise.all([f1, f2, g]), 20_000, 'every close');
    expect(((await p) as StealworkError).code).toBe('ERR_CLOSED_FORCE');
  });
});
