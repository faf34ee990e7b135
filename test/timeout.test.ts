// Long timeouts: setTimeout keeps its delay in 32 bits, so 2^31 ms or more would fire after
// 1 ms; a task's timeout chains timers instead (bindings/runtime/host/timer.ts). And the values
// with() refuses. An AbortSignal shared by many spawns has one listener (no warning).
import { describe, it, expect, vi, afterEach } from 'vitest';
import { AbortError } from '../dist/bindings/index.js';
import { longTimeout, MAX_TIMER_MS } from '../dist/bindings/runtime/host/timer.js';
import { schedulers, within } from './helpers/runtime.js';

const start = schedulers();

describe('longTimeout', () => {
  afterEach(() => { vi.useRealTimers(); });

  it('fires once after a delay past 2^31 ms, not before', () => {
    vi.useFakeTimers();
    const fired: number[] = [];
    const t0 = Date.now();
    longTimeout(() => fired.push(Date.now() - t0), 2 ** 31 + 1000, () => Date.now());
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([2 ** 31 + 1000]);
    vi.advanceTimersByTime(MAX_TIMER_MS * 2);
    expect(fired.length).toBe(1);
  });

  it('cancels at any link of the chain', () => {
    vi.useFakeTimers();
    let fired = 0;
    const stop = longTimeout(() => { fired++; }, 3 * MAX_TIMER_MS, () => Date.now());
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    stop();
    vi.advanceTimersByTime(4 * MAX_TIMER_MS);
    expect(fired).toBe(0);
  });
});

describe.each(['wasm', 'js'] as const)('task timeouts (%s backend)', (backend) => {
  it('a timeout of 2^31 ms or more does not fire early', async () => {
    const s = await start(backend, 1);
    for (const timeout of [2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      expect(await within(s.with({ timeout }).run('sleep', 30, 'done'), 20_000, `timeout ${timeout}`)).toBe('done');
    }
    await within(s.close(), 20_000, 'close');
  });

  it('with() refuses a timeout that is not a positive finite number', async () => {
    const s = await start(backend, 1);
    for (const bad of [0, -1, NaN, Infinity, -Infinity]) {
      expect(() => s.with({ timeout: bad })).toThrow(RangeError);
      expect(() => s.with({ timeout: bad })).toThrow(/options\.timeout/);
    }
    expect(() => s.with({ timeout: '10' as never })).toThrow(TypeError);
    await within(s.close(), 20_000, 'close');
  });

  it('one AbortSignal shared by many spawns: no MaxListenersExceededWarning; abort reaches all', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => { warnings.push(`${w.name}: ${w.message}`); };
    process.on('warning', onWarning);
    try {
      const s = await start(backend, 2);
      const ac = new AbortController();
      const done = await within(Promise.all(Array.from({ length: 30 }, (_, i) => s.with({ signal: ac.signal }).run('add1', i))), 20_000, '30 tasks');
      expect(done[29]).toBe(30);
      const waiting = Array.from({ length: 30 }, () => s.with({ signal: ac.signal }).run('waitCancel', 5000).catch((e: unknown) => e));
      ac.abort('stop');
      for (const e of await within(Promise.all(waiting), 20_000, 'the aborted tasks')) {
        expect(e).toBeInstanceOf(AbortError);
        expect((e as AbortError).reason).toBe('stop');
      }
      await within(s.close(), 20_000, 'close');
      await new Promise((r) => setTimeout(r, 10)); // warnings are emitted on a later tick
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
