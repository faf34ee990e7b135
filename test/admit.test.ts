// asyncPerThread's 'auto' policy (bindings/runtime/threads/admit.ts) on a clock and a CPU count
// the test drives: a sample with the loop idle grows the limit by one only while the process
// left a CPU idle; a busy loop halves it; a fixed number never moves. Timers are vitest's fake
// ones (the sampling timer fires on time unless the test holds the "loop"); the process's CPU
// time is a number the test sets.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const cpu = { ms: 0 };
vi.mock('../bindings/runtime/host/platform.js', () => ({
  now: () => performance.now(),
  processCPU: () => cpu.ms,
  unrefTimer: <T>(t: T) => t,
}));

const { Admission } = await import('../bindings/runtime/threads/admit.js');

function admission(option: number | 'auto', ncpu: number) {
  const u32 = new Uint32Array(4);
  let grew = 0;
  const a = new Admission(option, () => { grew++; }, { u32 } as never, 0, ncpu);
  return { a, word: () => u32[0], grew: () => grew };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  cpu.ms = 0;
});
afterEach(() => { vi.useRealTimers(); });

describe("asyncPerThread 'auto'", () => {
  it('grows by one per idle sample while the process leaves a CPU idle', () => {
    const { a, word, grew } = admission('auto', 2);
    expect(a.limit).toBe(1);
    a.blocked();
    vi.advanceTimersByTime(20); // the loop idle: each 5 ms tick on time
    cpu.ms += 10; // the process used half a CPU over 20 ms of 2 CPUs
    a.settled();
    expect(a.limit).toBe(2);
    expect(word()).toBe(2);
    expect(grew()).toBe(1);
  });

  it('does not grow while the other threads keep every CPU busy, and does not shrink either', () => {
    const { a, grew } = admission('auto', 2);
    a.blocked();
    vi.advanceTimersByTime(20);
    cpu.ms += 38; // 2 CPUs x 20 ms, less 2 ms: not a whole CPU idle
    a.settled();
    expect(a.limit).toBe(1);
    expect(grew()).toBe(0);
    // Later a CPU frees up: it grows again.
    vi.advanceTimersByTime(20);
    cpu.ms += 15;
    a.settled();
    expect(a.limit).toBe(2);
  });

  it('halves when the loop was held (continuations compute), whatever the CPUs do', () => {
    const { a } = admission('auto', 4);
    for (let i = 0; i < 3; i++) { a.blocked(); vi.advanceTimersByTime(20); cpu.ms += 5; a.settled(); }
    expect(a.limit).toBe(4);
    a.blocked();
    // The loop held for 40 ms: the clock moves on and the 5 ms timer has not fired.
    const t0 = performance.now();
    const held = vi.spyOn(performance, 'now').mockReturnValue(t0 + 40);
    a.settled();
    held.mockRestore();
    expect(a.limit).toBe(2);
  });

  it('a fixed limit never moves', () => {
    const { a } = admission(3, 2);
    a.blocked();
    vi.advanceTimersByTime(20);
    a.settled();
    expect(a.limit).toBe(3);
  });
});
