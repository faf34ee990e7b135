// What a user gets wrong on the first try, and what they should see: a relative task module
// path, a misspelt option, a class exported beside the tasks, a value nested too deep, a
// program run with --input-type=module -e, and a failed Task nobody awaits.
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Scheduler, StealworkError } from '../dist/bindings/index.js';
import { FIXTURE_TASKS, schedulers, within } from './helpers/runtime.js';

const start = schedulers();
const INDEX = new URL('../dist/bindings/index.js', import.meta.url).href;

/** Runs `code` as `node --input-type=module -e code`; resolves with its stdout (rejects with its
 *  stderr on a non-zero exit). */
function nodeEval(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`exit ${String(err.code)}: ${stderr}`)); else resolve(stdout);
    });
  });
}

describe('options', () => {
  it('a relative tasks path is refused with what to pass instead; an absolute path works', async () => {
    const e = await Scheduler.start({ tasks: './tasks.js' }).catch((x: unknown) => x) as Error;
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/options\.tasks: '\.\/tasks\.js' is a relative path.*new URL\('\.\/tasks\.js', import\.meta\.url\)/);
    await expect(Scheduler.start({ tasks: '../x.mjs' })).rejects.toThrow(/relative path/);
    const s = await Scheduler.start({ tasks: fileURLToPath(FIXTURE_TASKS), procs: 1 });
    try {
      expect(await within(s.run('add1', 1), 20_000, 'a task from an absolute path')).toBe(2);
    } finally {
      await s.close({ force: true });
    }
  });

  it("stealThreshold: a wrong string names 'load' too", async () => {
    await expect(Scheduler.start({ tasks: FIXTURE_TASKS, stealThreshold: 'heavy' as never })).rejects.toThrow(/options\.stealThreshold must be an integer \(1\.\.256\) or 'load', got "heavy"/);
    await expect(Scheduler.start({ tasks: FIXTURE_TASKS, stealThreshold: 0 })).rejects.toThrow(RangeError);
  });
});

describe('task modules', () => {
  it('an exported class is not a task', async () => {
    const s = await Scheduler.start({ tasks: new URL('./fixtures/class-tasks.mjs', import.meta.url), procs: 1 });
    try {
      expect(s.taskNames).toEqual(['add1']);
      const e = await s.run('Helper' as never).catch((x: unknown) => x) as StealworkError;
      expect(e.code).toBe('ERR_UNKNOWN_TASK');
      expect(await within(s.run('add1', 41), 20_000, 'add1')).toBe(42);
    } finally {
      await s.close({ force: true });
    }
  });

  it('node --input-type=module -e can start the scheduler (workers do not inherit the flag)', async () => {
    const out = await nodeEval(`import { Scheduler } from '${INDEX}';
      const s = await Scheduler.start({ tasks: new URL('${FIXTURE_TASKS.href}'), procs: 1 });
      console.log(await s.run('add1', 1));
      await s.close();`);
    expect(out.trim()).toBe('2');
  });
});

describe('values', () => {
  it('a value nested too deep: the reason comes first and the path is shortened', async () => {
    const s = await start('wasm', 1);
    let v: unknown = 1;
    for (let i = 0; i < 1500; i++) v = { child: v };
    const e = await s.run('echo', v).catch((x: unknown) => x) as TypeError;
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(/^spawn\('echo'\): argument 1 is nested more than 1000 levels deep; at \.child/);
    expect(e.message.length).toBeLessThan(400);
    await within(s.close(), 20_000, 'close');
  });
});

describe('unobserved failures', () => {
  it('a failed Task nobody awaits is an unhandledRejection, as a Promise would be; a forced close abandons quietly', async () => {
    const out = await nodeEval(`import { Scheduler } from '${INDEX}';
      const seen = [];
      process.on('unhandledRejection', (e) => seen.push('unhandled ' + e.message));
      process.on('rejectionHandled', () => seen.push('handled later'));
      // Waits for what it orders (the reports, the task's start), not for fixed pauses: on a
      // busy machine 300 ms did not always see the failures come back. The child's own timeout
      // bounds a wait for an event that never comes.
      const until = async (done) => { while (!done()) await new Promise((r) => setTimeout(r, 5)); };
      const s = await Scheduler.start({ tasks: new URL('${FIXTURE_TASKS.href}'), procs: 1 });
      s.spawn('fail', 'thrown, never awaited');
      s.spawn('nope');
      const late = s.spawn('fail', 'awaited late');
      const awaited = s.spawn('fail', 'awaited at once').catch(() => {});
      await awaited;
      await until(() => seen.length === 3); // the three unobserved failures reported
      await late.catch(() => {});
      await until(() => seen.includes('handled later'));
      const started = new SharedArrayBuffer(12);
      s.spawn('onSignal', started, 5000);
      await until(() => Atomics.load(new Int32Array(started), 2) === 1); // running when the close comes
      await s.close({ force: true });
      await new Promise((r) => setTimeout(r, 50));
      console.log(JSON.stringify(seen.sort()));`);
    const seen = JSON.parse(out) as string[];
    expect(seen.length).toBe(4);
    expect(seen.slice(0, 3)).toEqual(['handled later', 'unhandled awaited late', 'unhandled thrown, never awaited']);
    expect(seen[3]).toMatch(/^unhandled unknown task 'nope'/);
  });
});
