// Killing a task (docs/DESIGN.md "Killing a task"): with `kill: true`, a cancelled task whose
// code still runs on a thread is stopped by terminating that thread; crash recovery replaces it,
// every other task runs exactly once, and the Task rejects with its AbortError marked
// `killed: true`. Both backends, and the piscina entry beside piscina itself. The tests wait for
// the tasks' own marks in shared memory, never for a clock; every wait is bounded only to report
// a hang.
import { afterAll, describe, expect, it } from 'vitest';
import { Piscina as RealPiscina } from 'piscina';
import { AbortError, Scheduler, WorkerCrashedError } from '../dist/bindings/index.js';
import { Piscina as OurPiscina } from '../dist/bindings/piscina/index.js';
import { until, within } from './helpers/runtime.js';
import { freshCore } from './helpers/core.js';
import * as L from '../assembly/shared/layout.js';
import { Views } from '../dist/bindings/runtime/memory/values.js';
import { CancelTokens } from '../dist/bindings/runtime/tasks/cancel.js';
import { KillGuard, Killer } from '../dist/bindings/runtime/tasks/kill.js';
import { mAddr } from '../dist/bindings/runtime/memory/mblock.js';

const TASKS = new URL('./fixtures/kill-tasks.mjs', import.meta.url);
const PISCINA_WORKER = new URL('./fixtures/piscina-kill-worker.mjs', import.meta.url).href;

const open: Array<{ close(o?: { force?: boolean }): Promise<void> }> = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });

async function start(backend: 'wasm' | 'js', procs: number, extra: Record<string, unknown> = {}): Promise<Scheduler> {
  const s = await Scheduler.start({ tasks: TASKS, procs, backend, spareThreads: 0, ...extra });
  open.push(s);
  return s;
}

/** Waits until the task that owns slot i of a has marked its start. */
function started(a: Int32Array, i: number, what: string): Promise<void> {
  return until(() => Atomics.load(a, i) !== 0, 20000, `${what} started`);
}

async function rejection(p: Promise<unknown>, what: string): Promise<Error & { killed?: unknown; reason?: unknown; code?: unknown }> {
  try {
    await within(p, 20000, what);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${what}: expected a rejection`);
}

/** The free lists hold every G and no value block is live (after close: nothing leaked). */
function whole(s: Scheduler): void {
  const st = s.stats();
  expect(st.sched.gfreeGlobal + st.procs.reduce((n, p) => n + p.gfreecnt, 0), 'free Gs').toBe(st.sched.gcap - 1);
  expect(st.sched.heapLiveBlocks, 'live value blocks').toBe(0);
}

describe.each(['wasm', 'js'] as const)('kill (%s backend)', (backend) => {
  it('an infinite loop is killed when its timeout fires, its thread replaced', async () => {
    const s = await start(backend, 1);
    const sab = new SharedArrayBuffer(16);
    const a = new Int32Array(sab);
    expect(await s.run('record', sab, 3)).toBe(3); // the thread is up
    // The timeout counts from the spawn: a task not started by then never runs, and nothing is
    // killed. Longer timeouts until one finds it running (the first, but for a starved machine).
    for (let timeout = 100; ; timeout *= 2) {
      const before = s.stats().sched.restarts;
      const e = await rejection(s.with({ timeout, kill: true }).run('spinForever', sab, 0), 'the runaway');
      expect(e).toBeInstanceOf(AbortError);
      expect(e.code).toBe('ERR_ABORTED');
      expect(e.killed).toBe(true);
      expect(e.message).toMatch(/timed out after \d+ ms and was killed/);
      if (Atomics.load(a, 0) === 1) {
        await until(() => s.stats().sched.restarts === before + 1, 20000, 'the thread replaced');
        break;
      }
    }
    expect(await within(s.run('record', sab, 2), 20000, 'a task after the kill')).toBe(2);
    await within(s.close(), 20000, 'close after a kill');
    whole(s);
  });

  it('a catastrophic regular expression is killed by its signal; the Task rejects at once; close() works after', async () => {
    const s = await start(backend, 2);
    const sab = new SharedArrayBuffer(32);
    const a = new Int32Array(sab);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal, kill: true }).run('badRegex', sab, 0);
    await started(a, 0, 'the regex');
    ac.abort('enough');
    const e = await rejection(t, 'the regex');
    expect(e).toBeInstanceOf(AbortError);
    expect(e.killed).toBe(true);
    expect(e.reason).toBe('enough');
    expect(e.message).toMatch(/was aborted and killed/);
    await until(() => s.stats().sched.restarts === 1, 20000, 'the thread replaced');
    const after = await within(Promise.all([1, 2, 3, 4].map((i) => s.run('record', sab, i))), 20000, 'tasks after the kill');
    expect(after).toEqual([1, 2, 3, 4]);
    await within(s.close(), 20000, 'close after a kill');
    expect(s.stats().sched.restarts).toBe(1);
    whole(s);
  });

  it('1,000 tasks queued behind a killed infinite loop all run, exactly once', async () => {
    const s = await start(backend, 1); // one P and no spare: everything waits behind the loop
    const n = 1000;
    const sab = new SharedArrayBuffer(4 * (n + 1));
    const a = new Int32Array(sab);
    const ac = new AbortController();
    const runaway = s.with({ signal: ac.signal, kill: true }).run('spinForever', sab, 0);
    // Same turn: the P's ring takes a batch of them with the loop, the rest wait in the global queue.
    const queued = Array.from({ length: n }, (_, i) => s.run('record', sab, i + 1));
    await started(a, 0, 'the runaway');
    ac.abort();
    expect((await rejection(runaway, 'the runaway')).killed).toBe(true);
    const results = await within(Promise.all(queued), 30000, 'the queued tasks');
    const seen = new Set(results);
    expect(seen.size, 'duplicate results').toBe(n);
    const missing: number[] = [];
    for (let i = 1; i <= n; i++) if (!seen.has(i)) missing.push(i);
    expect(missing.slice(0, 10), 'missing results').toEqual([]);
    const wrong: number[] = [];
    for (let i = 1; i <= n; i++) if (a[i] !== 1) wrong.push(i);
    expect(wrong.slice(0, 10), 'tasks not run exactly once').toEqual([]);
    expect(s.stats().sched.restarts).toBe(1);
    await within(s.close(), 20000, 'close');
    whole(s);
  });

  it('tasks that finish just as they are killed: every task settles once, nothing is lost or leaked', async () => {
    const s = await start(backend, 2);
    const waves = 40;
    const per = 3; // kill-armed tasks per wave, racing their timeouts
    const plain = 25; // ordinary tasks per wave, on the same threads
    const n = waves * (per + plain);
    const sab = new SharedArrayBuffer(4 * n);
    const a = new Int32Array(sab);
    let killed = 0;
    let finished = 0;
    for (let w = 0; w < waves; w++) {
      const armed = Array.from({ length: per }, (_, k) => {
        const i = w * (per + plain) + k;
        // Timeouts of 1 to 4 ms around tasks of about as long: some finish first, some do not.
        const p = s.with({ timeout: 1 + ((w + k) % 4), kill: true }).run('busy', sab, i, 100_000 * (1 + ((w * per + k) % 5)));
        return { i, p: p.then((v) => ({ ok: true, v }), (e: unknown) => ({ ok: false, v: e })) }; // observed now: each settles once
      });
      const others = Array.from({ length: plain }, (_, k) => {
        const i = w * (per + plain) + per + k;
        return { i, p: s.run('record', sab, i) };
      });
      for (const { i, p } of armed) {
        const r = await within(p, 20000, `busy ${i}`);
        if (r.ok) {
          expect(r.v).toBe(i);
          expect(Atomics.load(a, i), `busy ${i} counted`).toBe(1);
          finished++;
        } else {
          expect(r.v).toBeInstanceOf(AbortError);
          // killed only when a thread was ended for it: not when the task had not started yet,
          // or returned as the kill came (then its thread went on).
          expect([true, undefined]).toContain((r.v as AbortError).killed);
          killed++;
        }
      }
      expect(await within(Promise.all(others.map((o) => o.p)), 20000, `wave ${w}`)).toEqual(others.map((o) => o.i));
      for (const { i } of others) expect(Atomics.load(a, i), `task ${i} run exactly once`).toBe(1);
    }
    for (let i = 0; i < n; i++) expect(Atomics.load(a, i), `slot ${i}`).toBeLessThanOrEqual(1);
    expect(killed + finished).toBe(waves * per);
    await within(s.close(), 20000, 'close');
    whole(s);
  });

  it('a task that returns just as the kill comes: the kill either finds it running or does nothing; the tasks queued behind run once', async () => {
    const s = await start(backend, 1); // one P: the queued tasks run on the racer's thread right after it
    const rounds = 60;
    const behind = 5;
    const sab = new SharedArrayBuffer(4 * rounds * (3 + behind));
    const a = new Int32Array(sab);
    let killed = 0;
    for (let r = 0; r < rounds; r++) {
      const base = r * (3 + behind);
      const ac = new AbortController();
      const racer = s.with({ signal: ac.signal, kill: true }).run('untilFlag', sab, base)
        .then((v) => ({ ok: true, v }), (e: unknown) => ({ ok: false, v: e }));
      // The first is long: a thread ended late (after its racer had returned and gone on) would
      // end inside it, and it would fail.
      const queued = Array.from({ length: behind }, (_, k) => (k === 0 ? s.run('busy', sab, base + 3, 3_000_000) : s.run('record', sab, base + 3 + k)));
      await started(a, base, `racer ${r}`);
      // Let it return, then kill it a fraction of a microsecond later: its return and the
      // claim meet (a spin on this thread's clock aims the race; nothing waits on it).
      Atomics.store(a, base + 1, 1);
      const until = performance.now() + (r % 6) * 0.0002;
      while (performance.now() < until) { /* aim */ }
      ac.abort();
      const out = await within(racer, 20000, `racer ${r}`);
      if (!out.ok) {
        expect(out.v).toBeInstanceOf(AbortError);
        expect([true, undefined]).toContain((out.v as AbortError).killed); // true only when its thread was ended
        killed++;
      } else {
        expect(out.v).toBe(base);
      }
      expect(Atomics.load(a, base + 2), `racer ${r} counted at most once`).toBeLessThanOrEqual(1);
      expect(await within(Promise.all(queued), 20000, `the tasks behind racer ${r}`)).toEqual(queued.map((_, k) => base + 3 + k));
      for (let k = 0; k < behind; k++) expect(Atomics.load(a, base + 3 + k), `task ${k} behind racer ${r}`).toBe(1);
    }
    // A claim that won kept the racer from finishing (its Task rejected); a rejected racer whose
    // return came first restarted nothing. Every restart is done: the tasks behind ran after it.
    expect(s.stats().sched.restarts).toBeLessThanOrEqual(killed);
    await within(s.close(), 20000, 'close');
    whole(s);
  });

  it('an async task pinned to the killed thread fails with WorkerCrashedError; the kill is its cause', async () => {
    // Both on the one thread: with room for two async tasks there, the runaway starts beside the
    // pinned one (at the default, a thread with an async task in flight leaves the next to others).
    const s = await start(backend, 1, { asyncPerThread: 2 });
    const sab = new SharedArrayBuffer(16);
    const a = new Int32Array(sab);
    const pinned = s.run('pinned', sab, 0);
    await started(a, 0, 'the pinned task');
    const ac = new AbortController();
    const runaway = s.with({ signal: ac.signal, kill: true }).run('spinForever', sab, 1);
    await started(a, 1, 'the runaway');
    ac.abort();
    const killedErr = await rejection(runaway, 'the runaway');
    expect(killedErr.killed).toBe(true);
    const e = await rejection(pinned, 'the pinned task');
    expect(e).toBeInstanceOf(WorkerCrashedError);
    expect(e.message).toMatch(/was terminated to stop task 'spinForever' \(kill: true\)/);
    // The error crossed threads (the pinned G's result slot): the kill's error, copied.
    expect(e.cause).toMatchObject({ name: 'AbortError', code: 'ERR_ABORTED', message: killedErr.message, killed: true });
    expect(await within(s.run('record', sab, 2), 20000, 'a task after the kill')).toBe(2);
    await within(s.close(), 20000, 'close');
  });

  it('a fork run on its joiner\'s stack is killed with its tree', async () => {
    const s = await start(backend, 1);
    const sab = new SharedArrayBuffer(16);
    const a = new Int32Array(sab);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal, kill: true }).run('forkSpin', sab, 0);
    await started(a, 0, 'the forked runaway');
    ac.abort();
    const e = await rejection(t, 'the fork tree');
    await until(() => s.stats().sched.restarts === 1, 20000, 'the thread replaced');
    expect(e.killed, 'a thread was ended for it').toBe(true);
    expect(await within(s.run('record', sab, 2), 20000, 'a task after the kill')).toBe(2);
    await within(s.close(), 20000, 'close');
    whole(s);
  });

  it('a runaway inside the runtime\'s code when it is cancelled stops its thread on the way back', async () => {
    const s = await start(backend, 1);
    const sab = new SharedArrayBuffer(16);
    const a = new Int32Array(sab);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal, kill: true }).run('spinInSpawn', sab, 0);
    await started(a, 0, 'the getter'); // the thread runs the codec's copy: nothing to claim now
    ac.abort();
    const e = await rejection(t, 'the runaway');
    await until(() => s.stats().sched.restarts === 1, 20000, 'the thread stopping itself');
    // Nothing was claimed at the abort: the error says killed once the thread stopped itself.
    expect(e.killed, 'the thread ended on its way back').toBe(true);
    expect(e.message).toMatch(/was aborted and killed/);
    expect(Atomics.load(a, 1), 'the task went on after the spawn').toBe(0);
    expect(await within(s.run('record', sab, 2), 20000, 'a task after the kill')).toBe(2);
    await within(s.close(), 20000, 'close');
    whole(s);
  });

  it('a runaway looping through fork and join is killed wherever the cancellation finds it', async () => {
    const s = await start(backend, 2);
    const sab = new SharedArrayBuffer(16);
    const a = new Int32Array(sab);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal, kill: true }).run('spinForking', sab, 0);
    await started(a, 0, 'the runaway');
    ac.abort();
    const e = await rejection(t, 'the runaway');
    // The claim ends every thread it finds in the tree's code: the runaway's, and the other one
    // too when it was running a fork it stole (the OS can leave it there, descheduled, for as
    // long as it likes). So one or two threads are replaced, not always exactly one.
    await until(() => s.stats().sched.restarts >= 1, 20000, 'the thread replaced');
    await until(() => e.killed === true, 20000, 'the error saying killed');
    expect(await within(s.run('record', sab, 2), 20000, 'a task after the kill')).toBe(2);
    await within(s.close(), 20000, 'close');
    expect(s.stats().sched.restarts).toBeLessThanOrEqual(2);
    whole(s);
  });

  it('an async task past its first await cannot be killed: its error does not say killed, its thread runs on', async () => {
    const s = await start(backend, 1);
    const sab = new SharedArrayBuffer(16);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal, kill: true }).run('pinned', sab, 0);
    await started(new Int32Array(sab), 0, 'the awaiting task');
    ac.abort();
    const e = await rejection(t, 'the awaiting task');
    expect(e).toBeInstanceOf(AbortError);
    expect(e.killed).toBeUndefined();
    expect(e.message).not.toMatch(/killed/);
    expect(await within(s.run('record', sab, 2), 20000, 'the next task')).toBe(2);
    expect(s.stats().sched.restarts).toBe(0);
    await within(s.close({ force: true }), 20000, 'close');
  });

  it('without kill, a cancelled running task keeps its thread (kill is never the default)', async () => {
    const s = await start(backend, 1);
    const sab = new SharedArrayBuffer(16);
    const a = new Int32Array(sab);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal }).run('holdUntil', sab, 0);
    await started(a, 0, 'the held task');
    ac.abort();
    const e = await rejection(t, 'the held task');
    expect(e).toBeInstanceOf(AbortError);
    expect(e.killed).toBeUndefined();
    Atomics.store(a, 1, 1);
    Atomics.notify(a, 1);
    expect(await within(s.run('record', sab, 2), 20000, 'the next task')).toBe(2); // after the held one, on the one P
    expect(s.stats().sched.restarts).toBe(0);
    await within(s.close(), 20000, 'close');
  });
});

describe('kill: options', () => {
  it('kill without a timeout or a signal, or not a boolean, is a TypeError naming the option', async () => {
    const s = await start('js', 1);
    expect(() => s.with({ kill: true })).toThrow(TypeError);
    expect(() => s.with({ kill: true })).toThrow(/with: options\.kill needs a timeout or a signal/);
    expect(() => s.with({ timeout: 10, kill: 1 as unknown as boolean })).toThrow(/with: options\.kill must be a boolean, got number/);
    expect(() => s.with({ signal: new AbortController().signal, kill: 'yes' as unknown as boolean })).toThrow(TypeError);
    expect(() => s.with({ kill: false })).not.toThrow();
    expect(() => s.with({ kills: true } as never)).toThrow(/known options: signal, timeout, kill, priority, transfer/);
    await s.close();
  });
});

type AnyPool = {
  run(task: unknown, o?: unknown): Promise<unknown>;
  on(ev: string, f: (...a: unknown[]) => void): unknown;
  destroy(): Promise<void>;
};

describe('kill: the piscina entry beside piscina', () => {
  for (const [lib, Pool] of [['piscina', RealPiscina], ['stealwork/piscina', OurPiscina]] as const) {
    it(`${lib}: aborting a running infinite loop rejects with AbortError, ends its thread, and the pool runs on`, async () => {
      const pool = new (Pool as unknown as new (o: object) => AnyPool)({ filename: PISCINA_WORKER, maxThreads: 1, minThreads: 1 });
      const errors: unknown[] = [];
      pool.on('error', (e) => errors.push(e));
      const sab = new SharedArrayBuffer(16);
      const a = new Int32Array(sab);
      const running = new AbortController();
      const queuedAc = new AbortController();
      const runaway = pool.run({ sab, i: 0 }, { name: 'spin', signal: running.signal });
      await started(a, 0, 'the runaway');
      const queued = pool.run({ sab, i: 1 }, { name: 'spin', signal: queuedAc.signal }); // waits behind it
      queuedAc.abort('not now');
      running.abort('stop');
      for (const [p, reason] of [[runaway, 'stop'], [queued, 'not now']] as const) {
        const e = await rejection(p, `${lib}: an aborted run`);
        expect(e.name).toBe('AbortError');
        expect(e.message).toBe('The task has been aborted');
        expect(e.cause).toBe(reason);
      }
      expect(await within(pool.run(7, { name: 'square' }), 20000, `${lib}: a run after the abort`)).toBe(49);
      expect(Atomics.load(a, 1), 'the queued run never started').toBe(0);
      expect(errors).toEqual([]);
      await pool.destroy();
    });
  }
});

// The protocol itself (DESIGN.md "Killing a task"), its two sides driven from one thread over a
// core's memory, each step in a chosen order: a thread's halt throws here instead of waiting.
describe('kill: the protocol, one thread', () => {
  const HALT = new Error('halted');
  class TestGuard extends KillGuard {
    halts = 0;
    protected override halt(): never {
      this.halts++;
      throw HALT;
    }
  }

  async function setup(): Promise<{ guard: TestGuard; killer: Killer; tokens: CancelTokens; word: () => number; selfClaims: number[] }> {
    const h = await freshCore('js', { nprocs: 2, maxMs: 3 });
    const views = new Views(h.memory);
    const tokens = new CancelTokens(views, h.core);
    const selfClaims: number[] = [];
    const host = { mid: 1 } as never; // the guarded host's calls are not made here
    const guard = new TestGuard(views, 1, host, (t: number) => selfClaims.push(t));
    const killer = new Killer(views, 3);
    const w = (mAddr(views, 1) + L.MR_KILLABLE) >>> 2;
    return { guard, killer, tokens, word: () => Atomics.load(views.i32, w), selfClaims };
  }
  const why = { task: 't', err: new Error('why') };

  it('a kill claims the thread only while the tree\'s code runs; a claimed thread never comes back to the runtime', async () => {
    const { guard, killer, tokens, word } = await setup();
    const t = tokens.take(true);
    expect(t).toBeGreaterThanOrEqual(0x8000); // the kill-armed half
    expect(killer.claim(t, why)).toEqual([]); // nothing of the tree runs
    let inside: number[] = [];
    expect(() => guard.call(() => {
      expect(word()).toBe(t); // step 1: the mark is up while the code runs
      tokens.cancel(t);
      inside = killer.claim(t, why); // step 3: claimed while it runs
      return 'done';
    }, { token: t } as never, [])).toThrow(HALT); // step 4: its return finds the claim and halts
    expect(inside).toEqual([1]);
    expect(guard.halts).toBe(1);
    expect(word()).toBe(t | L.KILL_CLAIMED);
    killer.reset(1);
    expect(word()).toBe(0);
  });

  it('code that returned first leaves nothing to claim', async () => {
    const { guard, killer, tokens, word } = await setup();
    const t = tokens.take(true);
    expect(guard.call((_ctx: unknown, x: unknown) => x, { token: t } as never, [42])).toBe(42);
    expect(word()).toBe(0); // step 2: the mark is down again
    tokens.cancel(t);
    expect(killer.claim(t, why)).toEqual([]);
    expect(guard.halts).toBe(0);
  });

  it('a tree cancelled just before its code starts does not start, and nothing halts', async () => {
    const { guard, tokens, word } = await setup();
    const t = tokens.take(true);
    tokens.cancel(t);
    let ran = false;
    expect(() => guard.call(() => { ran = true; }, { token: t } as never, [])).toThrow(AbortError);
    expect(ran).toBe(false);
    expect(word()).toBe(0);
    expect(guard.halts).toBe(0);
  });

  it('back from the runtime into a tree cancelled meanwhile, the thread claims itself and halts', async () => {
    const { guard, killer, tokens, word, selfClaims } = await setup();
    const t = tokens.take(true);
    expect(() => guard.call(() => {
      guard.around(() => {
        expect(word()).toBe(0); // the runtime's code: not killable
        tokens.cancel(t);
        expect(killer.claim(t, why)).toEqual([]); // step 3 finds nothing
      });
      return 'went on';
    }, { token: t } as never, [])).toThrow(HALT); // step 5
    expect(selfClaims).toEqual([t]);
    expect(killer.halted(1, t)).toBe(true);
    expect(killer.cause(t)).toBe(why);
    expect(guard.halts).toBeGreaterThanOrEqual(1); // here the halt returns (a throw), and the call's own leave halts again
  });

  it('nested: the mark names the innermost tree whose code runs', async () => {
    const { guard, killer, tokens, word } = await setup();
    const outer = tokens.take(true);
    const inner = tokens.take(true);
    const seen: number[] = [];
    guard.call(() => {
      guard.around(() => { // the outer task joins a fork of another tree, run on this stack
        guard.call(() => {
          seen.push(word());
          expect(killer.claim(outer, why)).toEqual([]); // the outer tree's code is not what runs
        }, { token: inner } as never, []);
        seen.push(word());
      });
      seen.push(word());
    }, { token: outer } as never, []);
    expect(seen).toEqual([inner, 0, outer]);
    expect(word()).toBe(0);
    expect(guard.halts).toBe(0);
  });
});
