// Unobserved failures (DESIGN.md "Unobserved failures"): a child task that fails while nobody
// will await or join it reaches options.onUnobservedError, once, with its error's class, on both
// backends and in either order (failed after its parent detached it, or before); observed
// failures and a cancelled tree's aborts do not. Without the hook it is a process warning naming
// the task, in a real child process.
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Scheduler, type UnobservedInfo } from '../dist/bindings/index.js';
import { until, within } from './helpers/runtime.js';

const TASKS = new URL('./fixtures/unobserved-tasks.mjs', import.meta.url);

interface Heard { error: unknown; info: UnobservedInfo }

async function start(backend: 'wasm' | 'js', extra: Record<string, unknown> = {}): Promise<{ s: Scheduler; heard: Heard[] }> {
  const heard: Heard[] = [];
  const s = await Scheduler.start({ tasks: TASKS, procs: 2, backend, onUnobservedError: (error: unknown, info: UnobservedInfo) => heard.push({ error, info }), ...extra });
  return { s, heard };
}

/** The numbers i of the `boom i` errors heard, sorted. */
const booms = (heard: Heard[]): number[] => heard.map((h) => Number(/boom (\d+)/.exec((h.error as Error).message)?.[1])).sort((a, b) => a - b);

describe.each(['wasm', 'js'] as const)('unobserved failures (%s backend)', (backend) => {
  it('every detached child that fails is heard once, with its class; its siblings that succeed are not', async () => {
    const { s, heard } = await start(backend);
    const n = 200;
    expect(await s.run('detachMany', n)).toBe(n);
    await until(() => heard.length >= n, 30_000, `${n} reports`);
    expect(await s.run('detachAfterFail', new SharedArrayBuffer(4 * 20), 20)).toBe(20); // failed before its parent detached it
    await until(() => heard.length >= n + 20, 30_000, `${n + 20} reports`);
    await within(s.close(), 30_000, 'close');
    expect(booms(heard)).toEqual([...Array.from({ length: n }, (_, i) => i), ...Array.from({ length: 20 }, (_, i) => i)].sort((a, b) => a - b));
    for (const h of heard) {
      expect(h.error).toBeInstanceOf(RangeError);
      expect(h.info.task).toMatch(/^boom(Flag)?$/);
      expect(h.info.thread).toBeGreaterThanOrEqual(1);
    }
    expect(s.stats().sched.heapLiveBlocks).toBe(0); // every error block was freed
  }, 120_000);

  it('observed failures are not heard; a grandchild detached by a detached child is', async () => {
    const { s, heard } = await start(backend);
    expect(await s.run('observed')).toBe(1);
    await expect(s.run('joinedFail')).rejects.toThrow('boom 101');
    expect(await s.run('detachNested')).toBe(0);
    await until(() => heard.length >= 1, 30_000, 'the grandchild\'s report');
    await within(s.close(), 30_000, 'close');
    expect(booms(heard)).toEqual([0]);
  }, 120_000);

  it('children run inline at capacity are heard too', async () => {
    const { s, heard } = await start(backend, { maxTasks: 1024, initialTasks: 1024 });
    const n = 3000;
    expect(await s.run('inlineMany', n)).toBe(n);
    await until(() => heard.length >= n, 60_000, `${n} reports`);
    await within(s.close(), 30_000, 'close');
    expect(booms(heard)).toEqual(Array.from({ length: n }, (_, i) => 1000 + i));
    expect(s.stats().sched.heapLiveBlocks).toBe(0);
  }, 120_000);

  it("a cancelled tree's aborted children are not heard", async () => {
    const { s, heard } = await start(backend);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal }).run('cancelledTree');
    setTimeout(() => ac.abort(), 50);
    await expect(t).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await within(s.close(), 30_000, 'close');
    expect(heard).toEqual([]);
  }, 120_000);
});

describe('options.onUnobservedError', () => {
  it('must be a function', async () => {
    await expect(Scheduler.start({ tasks: TASKS, onUnobservedError: 'log' } as never)).rejects.toThrow(/options\.onUnobservedError must be a function, got string/);
  });
});

describe('without the hook', () => {
  it('a process warning names the task, and the program exits as usual', async () => {
    const dist = new URL('../dist/bindings/index.js', import.meta.url).href;
    const src = `import { Scheduler } from ${JSON.stringify(dist)};
const s = await Scheduler.start({ tasks: new URL(${JSON.stringify(TASKS.href)}), procs: 2 });
console.log(await s.run('detachMany', 3));
await s.close();`;
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', src], { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 60_000 },
        (e, stdout, stderr) => resolve({ code: e === null ? 0 : (e as { code?: number }).code ?? -1, stdout, stderr }));
    });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('3\n');
    const warnings = out.stderr.split('\n').filter((l) => l.includes('STEALWORK_UNOBSERVED'));
    expect(warnings.length, out.stderr).toBe(3);
    for (const w of warnings) expect(w).toMatch(/task 'boom' failed and nobody awaited or joined it .*RangeError: boom \d/);
  }, 90_000);
});
