// Errors are what they say: every error the scheduler documents is an instance of its class
// wherever it surfaces, the main thread or a task (a scheduler error that crossed threads gets
// its class back on the receiving side). Both backends.
import fs from 'node:fs';
import path from 'node:path';
import { describe, it, expect } from 'vitest';
import { StealworkError, WorkerCrashedError, AbortError } from '../dist/bindings/index.js';
import { reviveError } from '../dist/bindings/runtime/base/errors.js';
import { schedulers, until, within } from './helpers/runtime.js';

const start = schedulers();

describe('one module builds the errors', () => {
  it('no file of the runtime or the piscina entry but its errors.ts constructs an error', () => {
    const found: string[] = [];
    for (const dir of ['bindings/runtime', 'bindings/piscina']) {
      const abs = path.resolve(__dirname, '..', dir);
      for (const f of fs.readdirSync(abs).filter((n) => n.endsWith('.ts') && n !== 'errors.ts')) {
        const src = fs.readFileSync(path.join(abs, f), 'utf8');
        for (const m of src.matchAll(/\b(?:new\s+)?(?:[A-Z]\w*)?Error\s*\(/g)) {
          const before = src.slice(Math.max(0, m.index! - 20), m.index);
          if (/(function|class|extends)\s+$/.test(before) || /\.\s*$/.test(before)) continue; // a declaration, a method
          if (!/^new\s/.test(m[0]) && !/(throw|reject\(|return)\s+$/.test(before)) continue; // a builder's call
          found.push(`${dir}/${f}: ${m[0]}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

describe('reviveError', () => {
  it('gives a scheduler error its class back with its message, stack, code and own props', () => {
    const plain = Object.assign(new Error('worker M1 exited'), { code: 'ERR_WORKER_CRASHED', extra: 7 });
    Object.defineProperty(plain, 'name', { value: 'WorkerCrashedError', writable: true, configurable: true });
    plain.stack = 'WorkerCrashedError: worker M1 exited\n    at somewhere';
    const r = reviveError(plain) as WorkerCrashedError & { extra: number };
    expect(r).toBeInstanceOf(WorkerCrashedError);
    expect(r).toBeInstanceOf(StealworkError);
    expect(r.name).toBe('WorkerCrashedError');
    expect(r.message).toBe('worker M1 exited');
    expect(r.code).toBe('ERR_WORKER_CRASHED');
    expect(r.stack).toBe(plain.stack);
    expect(r.extra).toBe(7);
    const ab = Object.assign(new Error('cancelled'), { code: 'ERR_ABORTED', reason: 'why' });
    Object.defineProperty(ab, 'name', { value: 'AbortError' });
    const a = reviveError(ab) as AbortError;
    expect(a).toBeInstanceOf(AbortError);
    expect(a.reason).toBe('why');
    const other = new TypeError('x');
    expect(reviveError(other)).toBe(other);
    const lookalike = Object.assign(new Error('mine'), { name: 'AbortError' }); // no code: a user's own
    expect(reviveError(lookalike)).toBe(lookalike);
  });
});

describe.each(['wasm', 'js'] as const)('error classes (%s backend)', (backend) => {
  it('a crash rejects with a WorkerCrashedError, also after crossing into a task', async () => {
    const s = await start(backend, 2);
    const e = await within(s.run('crashExit').catch((x: unknown) => x), 20000, 'the crash') as WorkerCrashedError;
    expect(e).toBeInstanceOf(WorkerCrashedError);
    expect(e).toBeInstanceOf(StealworkError);
    expect(e.code).toBe('ERR_WORKER_CRASHED');
    const seen = await within(s.run('classOfCrashedChild', new SharedArrayBuffer(4)), 40_000, 'a task awaiting a crashed child');
    expect(seen).toEqual({ name: 'WorkerCrashedError', stealwork: true, crashed: true, abort: false, code: 'ERR_WORKER_CRASHED' });
    await within(s.close(), 20_000, 'close');
  });

  it('an unknown task name is a StealworkError ERR_UNKNOWN_TASK, on the main thread and in a task', async () => {
    const s = await start(backend, 1);
    const u = await s.run('nope' as never).catch((x: unknown) => x) as StealworkError;
    expect(u).toBeInstanceOf(StealworkError);
    expect(u.code).toBe('ERR_UNKNOWN_TASK');
    const uc = await s.run('unknownChild').catch((x: unknown) => x) as StealworkError;
    expect(uc).toBeInstanceOf(StealworkError); // thrown in a worker, rebuilt here
    expect(uc.code).toBe('ERR_UNKNOWN_TASK');
    const inTask = await s.run('classOfSpawnError', 'nope');
    expect(inTask).toEqual({ name: 'StealworkError', stealwork: true, crashed: false, abort: false, code: 'ERR_UNKNOWN_TASK' });
    await within(s.close(), 20_000, 'close');
  });

  it('a cancelled child is an AbortError in the task that awaits it', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const ac = new AbortController();
    const sab = new SharedArrayBuffer(16);
    const p = s.with({ signal: ac.signal }).run('classOfCancelledChild', sab).catch((e: unknown) => e);
    // Cancel once it runs (a task cancelled before it starts never runs: nothing to report).
    await until(() => Atomics.load(new Int32Array(sab), 3) === 1, 20_000, 'the task running');
    ac.abort();
    expect(await within(p, 20_000, 'the aborted root')).toBeInstanceOf(AbortError);
    await until(() => Atomics.load(new Int32Array(sab), 2) === 1, 20_000, 'the task reporting its child\'s error');
    expect(Array.from(new Int32Array(sab))).toEqual([1, 1, 1, 1]);
    await within(s.close(), 20_000, 'close');
  });
});
