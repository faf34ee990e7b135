// Root Tasks (what sched.spawn returns on the main thread) are native Promises of their result:
// await, Promise.all and Promise.resolve adopt them as they are (no thenable job), they may be
// awaited any number of times, before or after they settle, and a failure still reaches every
// observer. The unobserved-failure rules are in misuse.test.ts ('unobserved failures').
import { describe, it, expect } from 'vitest';
import { RootTask, StealworkError } from '../dist/bindings/index.js';
import { schedulers, within } from './helpers/runtime.js';

const start = schedulers();

for (const backend of ['wasm', 'js'] as const) {
  describe(`root Tasks (${backend})`, () => {
    it('a root Task is a Promise that PromiseResolve adopts as it is; then/catch/finally give plain Promises', async () => {
      const s = await start(backend, 2);
      const t = s.spawn('add1', 41);
      expect(t).toBeInstanceOf(Promise);
      expect(t).toBeInstanceOf(RootTask);
      expect(Promise.resolve(t)).toBe(t); // a thenable would be wrapped in a new promise
      expect(t.result()).toBe(t);
      expect(t.name).toBe('add1');
      expect(Object.prototype.toString.call(t)).toBe('[object Task]');
      const d = t.then((v) => v + 1);
      expect(d).not.toBeInstanceOf(RootTask);
      expect(d.constructor).toBe(Promise);
      expect(await within(d, 20_000, 'then')).toBe(43);
      expect(await t.finally(() => undefined)).toBe(42);
      expect(s.run('add1', 1)).toBeInstanceOf(Promise);
    });

    it('a Task awaited many times, before and after it settles, gives every awaiter the result', async () => {
      const s = await start(backend, 2);
      const t = s.spawn('sleep', 30, 'late');
      const early = [t, t.result(), t.then((v) => v), Promise.all([t, t])];
      expect(await within(Promise.all(early), 20_000, 'early awaiters')).toEqual(['late', 'late', 'late', ['late', 'late']]);
      expect(await t).toBe('late'); // settled: awaited again
      expect(await Promise.race([t, new Promise(() => {})])).toBe('late');
      const quick = s.spawn('add1', 1);
      await within(s.run('sleep', 20, 0), 20_000, 'a wait past the quick task');
      expect(await quick).toBe(2); // first awaited after it settled
      expect(await quick).toBe(2);
    });

    it('a failed Task rejects every observer with the same error', async () => {
      const s = await start(backend, 1);
      const t = s.spawn('fail', 'boom');
      const a = t.catch((e: Error) => e);
      const b = t.then(() => 'no', (e: Error) => e);
      const [ea, eb] = await within(Promise.all([a, b]), 20_000, 'observers of a failure');
      expect(ea).toBeInstanceOf(Error);
      expect(ea.message).toBe('boom');
      expect(eb).toBe(ea);
      await expect(t).rejects.toBe(ea);
      await expect(Promise.all([s.spawn('add1', 1), t])).rejects.toBe(ea);
      const unknown = s.spawn('nope' as never);
      await expect(unknown).rejects.toBeInstanceOf(StealworkError);
      await expect(unknown).rejects.toThrow(/unknown task 'nope'/);
    });

    it("the README's idiom: Promise.all over spawned Tasks, 20,000 at once, each result in its place", async () => {
      const s = await start(backend, 2);
      const items = Array.from({ length: 20_000 }, (_, i) => i);
      const rs = await within(Promise.all(items.map((x) => s.spawn('add1', x))), 30_000, 'Promise.all of 20,000 Tasks');
      expect(rs.length).toBe(items.length);
      for (let i = 0; i < rs.length; i++) if (rs[i] !== i + 1) expect(rs[i]).toBe(i + 1);
    });
  });
}
