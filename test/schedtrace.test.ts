// schedtrace prints Go's SCHED line format; the counters add up when the scheduler is quiet.
import { describe, it, expect } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { parseDebugEnv } from '../dist/bindings/runtime/observe/schedtrace.js';
import { procsDefault } from '../dist/bindings/runtime/host/cgroup.js';
import { until } from './helpers/runtime.js';

const tasks = new URL('./fixtures/tasks.mjs', import.meta.url);
const SCHED = /^SCHED (\d+)ms: gomaxprocs=(\d+) idleprocs=(\d+) threads=(\d+) spinningthreads=(\d+) needspinning=([01]) idlethreads=(\d+) runqueue=(\d+) \[((?:\d+ ?)*)\]( ncpu=\d+ cpulimit=(?:none|[\d.]+))?$/;

/** The first line's suffix: what the default procs is chosen from (test/cgroup.test.ts covers a
 *  machine with a limit). */
function procsSuffix(): string {
  const d = procsDefault();
  return ` ncpu=${d.ncpu} cpulimit=${d.limit === null ? 'none' : +d.limit.cpus.toFixed(3)}`;
}

describe('schedtrace', () => {
  it('prints SCHED lines in Go\'s format, first at 0ms', async () => {
    const lines: string[] = [];
    const s = await Scheduler.start({ tasks, procs: 2, schedtrace: 20, logger: (l: string) => lines.push(l) });
    await s.run('fibc', 22);
    await until(() => lines.length > 1, 20_000, 'a second SCHED line'); // every 20 ms, however late the timer
    await s.close();
    expect(lines.length).toBeGreaterThan(1);
    const first = SCHED.exec(lines[0]);
    expect(first, lines[0]).not.toBeNull();
    expect(first![1]).toBe('0');
    expect(first![10]).toBe(procsSuffix()); // the first line only
    for (const l of lines) {
      const m = SCHED.exec(l);
      expect(m, l).not.toBeNull();
      if (l !== lines[0]) expect(m![10], l).toBeUndefined();
      expect(Number(m![2])).toBe(2);
      expect(Number(m![4])).toBe(4); // M0, two Ms for the Ps, one spare (spareThreads: 1)
      // Two Ps, and the spare when the monitor lent it (a P descheduled by a busy machine for
      // 10 ms looks stuck).
      expect(m![9].split(' ').length, l).toBeGreaterThanOrEqual(2);
      expect(m![9].split(' ').length, l).toBeLessThanOrEqual(3);
    }
  });

  it('scheddetail adds one line per P and per M', async () => {
    const lines: string[] = [];
    const s = await Scheduler.start({ tasks, procs: 2, schedtrace: 1000, scheddetail: true, logger: (l: string) => lines.push(l) });
    await s.close();
    expect(lines[0]).toBe(lines[0].replace(/sysmonwait=false.*$/, 'sysmonwait=false') + procsSuffix());
    expect(lines[0]).toMatch(/^SCHED 0ms: gomaxprocs=2 .* runqueue=0 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=false ncpu=\d+ cpulimit=\S+$/);
    expect(lines.filter((l) => /^ {2}P\d+: status=\d schedtick=\d+ syscalltick=0 m=(nil|\d+) runqsize=\d+ gfreecnt=\d+ timerslen=0$/.test(l))).toHaveLength(2);
    expect(lines.filter((l) => /^ {2}M\d+: p=(nil|\d+) curg=(nil|\d+) .* spinning=(true|false) blocked=(true|false) lockedg=nil$/.test(l))).toHaveLength(4); // M0, two Ms, one spare
  });

  it('threads counts the threads running: after the idle ones ended, M0 and the one kept', async () => {
    const lines: string[] = [];
    const s = await Scheduler.start({
      tasks, procs: 4, minThreads: 1, spareThreads: 0, idleTimeout: 20, schedtrace: 20, logger: (l: string) => lines.push(l),
    });
    await until(() => s.stats().sched.liveThreads === 1, 20_000, 'the idle threads to end');
    const seen = lines.length;
    await until(() => lines.length > seen, 20_000, 'a SCHED line after they ended');
    await s.close();
    expect(Number(SCHED.exec(lines[seen])![4]), lines[seen]).toBe(2);
  });

  it('STEALWORK_DEBUG uses GODEBUG syntax', () => {
    expect(parseDebugEnv('schedtrace=1000,scheddetail=1')).toEqual({ schedtrace: 1000, scheddetail: true, trace: false, dumpsignal: null });
    expect(parseDebugEnv('scheddetail=0')).toEqual({ schedtrace: 0, scheddetail: false, trace: false, dumpsignal: null });
    expect(parseDebugEnv(undefined)).toEqual({ schedtrace: 0, scheddetail: false, trace: false, dumpsignal: null });
    // The task dump's signal (DESIGN.md "The task dump"): a name, or 1 for SIGUSR2; anything else is none.
    expect(parseDebugEnv('dumpsignal=SIGUSR1,trace=1')).toEqual({ schedtrace: 0, scheddetail: false, trace: true, dumpsignal: 'SIGUSR1' });
    expect(parseDebugEnv('dumpsignal=1').dumpsignal).toBe('SIGUSR2');
    expect(parseDebugEnv('dumpsignal=0').dumpsignal).toBeNull();
    expect(parseDebugEnv('dumpsignal=usr2').dumpsignal).toBeNull();
  });
});
