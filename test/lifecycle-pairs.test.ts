// The thread life cycle as a state machine over real threads (DESIGN.md "Late results",
// "Threads that come and go", "Crashed workers", "Killing a task", "Resizing: procs at run
// time"): for every ordered pair of events (a crash of a thread whose task awaits a child
// elsewhere, a kill of a task on such a thread, idle exits, a shrink to one P, a grow back to
// two), a fresh scheduler with elastic threads (minThreads 0, idleTimeout 20) goes through the
// two events, lets late results land, and then must: report nothing outside a task (onError),
// not have failed, run new work with every task exactly once, and close. Both backends. Every
// wait is bounded as a hang detector only.

import { describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { within } from './helpers/runtime.js';

const TASKS = new URL('./lifecycle/recover-tasks.mjs', import.meta.url);
const HANG_MS = 30_000;
/** How long a child of a task that dies runs on: longer than a replacement thread takes to start
 *  and idle out (idleTimeout 20), so its result comes to a slot whose thread came and went. */
const CHILD_MS = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Event = 'crash' | 'kill' | 'idle' | 'shrink' | 'grow';
const EVENTS: Event[] = ['crash', 'kill', 'idle', 'shrink', 'grow'];

/** What an event leaves to check: the parent's outcome is WorkerCrashedError with its thread
 *  dead, or its child's value when the child ran on its own thread (one P in service). */
async function act(s: Scheduler, ev: Event, log: string[]): Promise<void> {
  const flags = new SharedArrayBuffer(16);
  switch (ev) {
    case 'crash': {
      const r = await within(s.run('awaitOther', flags, 'exit', CHILD_MS, 200).then(String, (e: Error) => e.name), HANG_MS, 'crash');
      log.push(`crash ${r}`);
      expect(['WorkerCrashedError', 'slow done']).toContain(r);
      break;
    }
    case 'kill': {
      const parent = s.run('awaitOther', flags, 'kill', CHILD_MS, 200).then(String, (e: Error) => e.name);
      const a = new Int32Array(flags);
      await within((async () => { while (Atomics.load(a, 1) === 0) await sleep(1); })(), HANG_MS, 'the parent awaiting');
      const hog = await within(s.with({ timeout: 30, kill: true }).run('hog', 10_000).then(String, (e: { code?: string }) => e.code), HANG_MS, 'hog');
      expect(hog).toBe('ERR_ABORTED');
      const r = await within(parent, HANG_MS, 'kill parent');
      log.push(`kill ${r}`);
      expect(['WorkerCrashedError', 'slow done']).toContain(r);
      break;
    }
    case 'idle':
      await sleep(80); // idleTimeout 20: the threads end
      break;
    case 'shrink':
      await within(s.resize(1), HANG_MS, 'resize(1)');
      break;
    case 'grow':
      await within(s.resize(2), HANG_MS, 'resize(2)');
      break;
  }
}

const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));

describe.each(['wasm', 'js'] as const)('every order of two life-cycle events (%s backend)', (backend) => {
  for (const a of EVENTS) {
    for (const b of EVENTS) {
      it(`${a} then ${b}`, async () => {
        const errors: Error[] = [];
        const s = await Scheduler.start({
          tasks: TASKS, backend, procs: 2, maxProcs: 2, minThreads: 0, idleTimeout: 20, spareThreads: 0,
          onError: (e: Error) => errors.push(e),
        });
        const log: string[] = [];
        try {
          await act(s, a, log);
          await act(s, b, log);
          await sleep(CHILD_MS + 150); // the children finish: their results come late, to slots whose threads have come and gone
          const n = 64;
          const marks = new SharedArrayBuffer(4 * n);
          const [ids, f] = await within(Promise.all([
            Promise.all(Array.from({ length: n }, (_, i) => s.run('mark', marks, i))),
            s.run('fibc', 14),
          ]), HANG_MS, 'work after the events');
          expect(ids).toEqual(Array.from({ length: n }, (_, i) => i));
          expect(f).toBe(fib(14));
          const m = new Int32Array(marks);
          expect(Array.from(m).filter((x) => x !== 1), 'tasks not run exactly once').toEqual([]);
          await within(s.close(), HANG_MS, 'close');
          expect(errors.map((e) => e.message), log.join(', ')).toEqual([]);
        } finally {
          await s.close({ force: true });
        }
      }, 4 * HANG_MS);
    }
  }
});
