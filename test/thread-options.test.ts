// Scheduler options for the threads (workerData, env, argv, execArgv, resourceLimits) and moving
// ArrayBuffers into a task (with({ transfer })).
import { afterAll, describe, expect, test } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { workerExecArgv } from '../dist/bindings/runtime/host/platform.js';

const TASKS = new URL('./fixtures/thread-tasks.mjs', import.meta.url);
const open: Scheduler[] = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });

async function start(extra: Record<string, unknown>): Promise<Scheduler> {
  const s = await Scheduler.start({ tasks: TASKS, procs: 2, spareThreads: 0, ...extra });
  open.push(s);
  return s;
}

describe('thread options', () => {
  test('every thread gets workerData, env, argv and execArgv', async () => {
    const s = await start({ workerData: { n: 1, xs: ['a'] }, env: { SW_TAG: 'on' }, argv: ['--flag', 'v'], execArgv: ['--no-warnings'] });
    const infos = await Promise.all(Array.from({ length: 8 }, () => s.run('threadInfo')));
    for (const i of infos as Array<Record<string, unknown>>) {
      expect(i).toMatchObject({ workerData: { n: 1, xs: ['a'] }, tag: 'on', argv: ['--flag', 'v'], execArgv: ['--no-warnings'] });
    }
  });

  test('without them the threads see Node\'s defaults', async () => {
    const s = await start({});
    expect(await s.run('threadInfo')).toMatchObject({ workerData: undefined, argv: [] });
  });

  test('bad values are refused at start, naming the option', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ resourceLimits: 3 }, /options\.resourceLimits must be an object/],
      [{ resourceLimits: { maxOldGenerationSizeMb: -1 } }, /options\.resourceLimits\.maxOldGenerationSizeMb must be a positive number/],
      [{ resourceLimits: { heap: 1 } }, /options\.resourceLimits\.heap is not a limit/],
      [{ env: 'x' }, /options\.env must be an object/],
      [{ argv: '--x' }, /options\.argv must be an array/],
      [{ execArgv: [1] }, /options\.execArgv must be an array of strings/],
    ];
    for (const [o, re] of cases) await expect(Scheduler.start({ tasks: TASKS, ...o })).rejects.toThrow(re);
  });

  test('resourceLimits bound a thread\'s heap: a task over it fails with the thread\'s error, and a new thread takes over', async () => {
    const s = await start({ procs: 1, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 } });
    const err = await s.run('hog', 4000).then(() => null, (e: Error) => e);
    expect(err).toMatchObject({ code: 'ERR_WORKER_CRASHED' });
    expect((err as Error).cause).toMatchObject({ code: 'ERR_WORKER_OUT_OF_MEMORY' });
    expect(await s.run('byteSum', new ArrayBuffer(3))).toEqual({ length: 3, sum: 0 });
  });
});

describe('what a task posts on parentPort itself', () => {
  test('is not taken for the scheduler\'s own messages, whatever it is (null included), and the scheduler goes on', async () => {
    const s = await start({});
    const values = [null, undefined, 'text', 7, { type: 'progress' }, { type: 42 }, [1]];
    expect(await s.run('postRaw', ...values)).toBe(values.length);
    expect(await Promise.all(Array.from({ length: 4 }, () => s.run('postRaw', null)))).toEqual([1, 1, 1, 1]);
    expect(await s.run('byteSum', new Uint8Array([1, 2]).buffer)).toEqual({ length: 2, sum: 3 });
  });
});

describe('the execArgv a thread inherits', () => {
  test('TypeScript loaders and require hooks pass through; only the main program\'s entry flags are dropped', () => {
    const loaders = ['-r', 'ts-node/register', '--require=./hook.cjs', '--import', 'tsx', '--loader', 'ts-node/esm',
      '--experimental-loader=./l.mjs', '--experimental-strip-types', '--no-warnings'];
    // Nothing to drop: null, and the Worker inherits process.execArgv as it is.
    expect(workerExecArgv(loaders)).toBeNull();
    expect(workerExecArgv(['--input-type=module', ...loaders, '-e', 'code', '--print', '1'])).toEqual(loaders);
  });
});

describe('with({ transfer })', () => {
  test('the task sees the bytes; the caller\'s buffer is detached', async () => {
    const s = await start({});
    const buf = new Uint8Array([1, 2, 3, 4]).buffer;
    const r = await s.with({ transfer: [buf] }).run('byteSum', buf);
    expect(r).toEqual({ length: 4, sum: 10 });
    expect(buf.byteLength).toBe(0);
  });

  test('without transfer the caller keeps its buffer', async () => {
    const s = await start({});
    const buf = new Uint8Array([9]).buffer;
    expect(await s.run('byteSum', buf)).toEqual({ length: 1, sum: 9 });
    expect(buf.byteLength).toBe(1);
  });

  test('a failed encoding leaves the buffer attached', async () => {
    const s = await start({});
    const buf = new Uint8Array([9]).buffer;
    await expect(s.with({ transfer: [buf] }).run('byteSum', buf, () => 1)).rejects.toThrow(TypeError);
    expect(buf.byteLength).toBe(1);
  });

  test('bad transfer lists are refused', async () => {
    const s = await start({});
    const buf = new ArrayBuffer(2);
    expect(() => s.with({ transfer: buf as never })).toThrow(/options\.transfer must be an array/);
    expect(() => s.with({ transfer: [new Uint8Array(2)] as never })).toThrow(/options\.transfer\[0\] must be an ArrayBuffer/);
    expect(() => s.with({ transfer: [buf, buf] })).toThrow(/options\.transfer\[1\] appears twice/);
    expect(() => s.with({ transfer: [new SharedArrayBuffer(4)] as never })).toThrow(/must be an ArrayBuffer/);
  });
});
