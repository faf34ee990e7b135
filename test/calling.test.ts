// Calling conventions (docs/DESIGN.md "Calling conventions"): the runtime's worker calls a task
// module's functions by the convention its options name; an adapter registers its own on the
// worker thread (threads/calling.ts), and the runtime imports no adapter. A thread started with
// a kind nobody registered there fails to start with ERR_WORKER_START naming the kind; the
// registry refuses a kind taken by another convention, and 'context', the runtime's own.

import { describe, expect, it } from 'vitest';
import { startResolved } from '../dist/bindings/runtime/scheduler.js';
import { resolveOptions } from '../dist/bindings/runtime/options.js';
import { callingConvention, registerCalling } from '../dist/bindings/runtime/threads/calling.js';

const tasks = new URL('./fixtures/tasks.mjs', import.meta.url).href;

describe('calling conventions', () => {
  it('a registered convention is found by its kind, on the thread that registered it', () => {
    const c = { table: () => ({ names: [], fns: [] }), reportStrayErrors: true };
    expect(callingConvention('test-kind')).toBeUndefined();
    registerCalling('test-kind', c);
    expect(callingConvention('test-kind')).toBe(c);
    registerCalling('test-kind', c); // the same convention again: a module loaded twice
    expect(() => registerCalling('test-kind', { ...c })).toThrow(TypeError);
    expect(() => registerCalling('context', c)).toThrow(/'context' is already registered/);
  });

  it("a thread started with a kind not registered on it fails to start, naming the kind", async () => {
    // Registered here on the main thread, which does nothing for the workers: the registry is per
    // thread, and the runtime's own worker entry registers no adapter.
    registerCalling('nowhere', { table: () => ({ names: [], fns: [] }), reportStrayErrors: true });
    const opts = resolveOptions({ tasks, procs: 1 });
    opts.calling = { kind: 'nowhere', shared: new SharedArrayBuffer(8) };
    const started = startResolved(opts);
    await expect(started).rejects.toMatchObject({ code: 'ERR_WORKER_START' });
    await expect(started).rejects.toThrow(/no calling convention 'nowhere'/);
  });

  it('the piscina entry starts its threads on its own worker, which registers its convention', async () => {
    const { Piscina } = await import('../dist/bindings/piscina/index.js');
    const pool = new Piscina({ filename: new URL('./fixtures/piscina-worker.mjs', import.meta.url).href, maxThreads: 1 });
    try {
      expect(await pool.run({ a: 2, b: 3 }, { name: 'add' })).toBe(5);
    } finally {
      await pool.destroy();
    }
  });
});
