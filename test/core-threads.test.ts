// The core under real threads, for both backends: worker_threads attached to one shared memory
// (the built core from dist/, see test/fixtures/core-stress-worker.mjs), each owning one P.
//
// 1. Stress: producers put on their own ring (runnext too, bursts that overflow into the global
//    queue and grow the G table), everyone gets, steals from every other P, takes global
//    batches, recycles Gs through the free lists and churns value blocks; at least a million
//    core calls per backend. Then the main thread drains what is left and checks conservation:
//    every produced G token consumed exactly once, the free lists whole, counters consistent.
// 2. Park and wake (DESIGN.md "Spin, then park"): worker Ms run findRunnable / stopM and sleep
//    on their park words while the main thread submits bursts of work; every G runs once, and
//    a lost wake-up (work queued, every M asleep) fails the test with the scheduler's state.
// 3. Go's TestSchedLocalQueueEmpty: runqEmpty never says empty while the owner keeps one G
//    queued through a concurrent runqPut(next) + runqGet, for all four next combinations.
//
// Bounded in time without wall-clock assertions: workers carry a deadline, and report progress
// in a SharedArrayBuffer that this thread polls; no progress for STALL_MS fails the test naming
// the stalled thread and every thread's counts.

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { attachCore, createMemory } from '../bindings/core/index.js';
import type { Backend, Core } from '../bindings/core/index.js';
import { BACKENDS, coreModule } from './helpers/core.js';
import { Mem } from './helpers/mem.js';

const FIXTURE = new URL('./fixtures/core-stress-worker.mjs', import.meta.url);
const STALL_MS = 20_000;
const DEADLINE_MS = 90_000;
const TEST_TIMEOUT_MS = 180_000;

// Control words, mirrored in the worker.
const GO = 0;
const slot = (w: number, word: number): number => 16 + 16 * w + word;
const STATE = 0;
const OPS_K = 1;
const PRODUCED = 2;
const CONSUMED = 3;
const DUPS = 4;
const BAD_TOKEN = 5;
const SPURIOUS = 6;
const ITERS = 7;
const HEAP_ERRORS = 8;
const STATE_NAMES = ['starting', 'attached', 'running', 'done', 'failed', 'deadline'];
const ST_DONE = 3;
const ST_FAILED = 4;
const ST_DEADLINE = 5;

interface Spec {
  backend: Backend;
  memory: WebAssembly.Memory;
  module: WebAssembly.Module | null;
  kinds: string[];
  nprocs: number;
  params: Record<string, number>;
  seen: SharedArrayBuffer | null;
  /** Names each worker for messages. */
  label: (w: number) => string;
  /** The progress figure of worker w (ops, iterations). */
  progress: (c: Int32Array, w: number) => number;
  /** Whether a worker stopping at its deadline fails the test (else the caller checks how far
   *  it got). */
  deadlineFails: boolean;
}

interface Outcome {
  ctl: Int32Array;
  results: unknown[];
}

/** Starts the workers, releases them together, watches them, and returns when all are done. */
async function runWorkers(spec: Spec): Promise<Outcome> {
  const ctlBuf = new SharedArrayBuffer(4 * (16 + 16 * spec.kinds.length));
  const ctl = new Int32Array(ctlBuf);
  const results: unknown[] = new Array(spec.kinds.length).fill(undefined);
  const errors: string[] = [];
  const exited = new Set<number>();
  const workers = spec.kinds.map((kind, index) => {
    const w = new Worker(FIXTURE, {
      workerData: {
        backend: spec.backend, memory: spec.memory, module: spec.module, kind, index, nprocs: spec.nprocs,
        params: spec.params, ctl: ctlBuf, seen: spec.seen,
      },
    });
    w.on('message', (msg: { index: number; result?: unknown; error?: string }) => {
      if (msg.error !== undefined) errors.push(`${spec.label(msg.index)}: ${msg.error}`);
      else results[msg.index] = msg.result;
    });
    w.on('error', (e) => errors.push(`${spec.label(index)}: ${e.stack ?? e.message}`));
    w.on('exit', () => exited.add(index));
    return w;
  });
  const counts = (): string => spec.kinds.map((_, w) =>
    `${spec.label(w)}: ${STATE_NAMES[Atomics.load(ctl, slot(w, STATE))]}, progress ${spec.progress(ctl, w)}`
    + `, produced ${Atomics.load(ctl, slot(w, PRODUCED))}, consumed ${Atomics.load(ctl, slot(w, CONSUMED))}`).join('\n  ');
  const stopAll = async (): Promise<void> => {
    await Promise.all(workers.map((w) => w.terminate()));
  };
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  // Every worker attached before anyone starts, so they really run at once.
  const attachBy = Date.now() + STALL_MS;
  while (spec.kinds.some((_, w) => Atomics.load(ctl, slot(w, STATE)) < 1)) {
    if (errors.length > 0 || Date.now() > attachBy) {
      await stopAll();
      throw new Error(`workers did not attach:\n  ${counts()}\n${errors.join('\n')}`);
    }
    await sleep(10);
  }
  Atomics.store(ctl, GO, 1);
  Atomics.notify(ctl, GO);

  const last = spec.kinds.map(() => -1);
  const lastChange = spec.kinds.map(() => Date.now());
  for (;;) {
    await sleep(50);
    if (errors.length > 0) {
      await stopAll();
      throw new Error(`a worker failed:\n${errors.join('\n')}\n  ${counts()}`);
    }
    const states = spec.kinds.map((_, w) => Atomics.load(ctl, slot(w, STATE)));
    if (states.some((s) => s === ST_FAILED)) continue; // its message is on the way
    if (states.every((s) => s === ST_DONE || s === ST_DEADLINE) && exited.size === workers.length) break;
    const now = Date.now();
    for (let w = 0; w < workers.length; w++) {
      if (states[w] === ST_DONE || states[w] === ST_DEADLINE) continue;
      const p = spec.progress(ctl, w);
      if (p !== last[w]) {
        last[w] = p;
        lastChange[w] = now;
      } else if (now - lastChange[w] > STALL_MS) {
        await stopAll();
        throw new Error(`${spec.label(w)} stalled: no progress for ${STALL_MS} ms\n  ${counts()}`);
      }
    }
  }
  const late = spec.kinds.map((_, w) => w).filter((w) => Atomics.load(ctl, slot(w, STATE)) === ST_DEADLINE);
  if (late.length > 0 && spec.deadlineFails) {
    throw new Error(`deadline (${DEADLINE_MS} ms) reached before the work was done by ${late.map(spec.label).join(', ')}:\n  ${counts()}`);
  }
  return { ctl, results };
}

/** Main thread, after the workers exited: owner of every P now, takes everything left. */
function drainAll(core: Core, mem: Mem, nprocs: number, consume: (g: number, p: number) => void): void {
  for (let p = 0; p < nprocs; p++) for (let g = core.runqGet(p); g !== 0; g = core.runqGet(p)) consume(g, p);
  for (let g = core.globrunqGet(0, 0); g !== 0; g = core.globrunqGet(0, 0)) {
    consume(g, 0);
    for (let x = core.runqGet(0); x !== 0; x = core.runqGet(0)) consume(x, 0);
  }
  expect(mem.allQueued()).toEqual([]);
}

/** One line describing where every G and M is, for a stall message. */
function schedState(mem: Mem, nprocs: number, maxMs: number): string {
  const rings = Array.from({ length: nprocs }, (_, p) => `${mem.ring(p).length}+${mem.runnext(p) ? 1 : 0}`);
  const ms = Array.from({ length: maxMs }, (_, m) =>
    `M${m}:park=${mem.m(m, L.M_PARK)},nextp=${mem.m(m, L.M_NEXTP)},spin=${mem.m(m, L.M_SPINNING)}`);
  return `runqsize=${mem.runqSize} rings=[${rings}] npidle=${mem.npidle} nmspinning=${mem.nmspinning} `
    + `pidle=[${mem.pidle()}] midle=[${mem.midle()}] ${ms.join(' ')}`;
}

describe.each(BACKENDS)('core under threads (%s)', (backend) => {
  it('stress: 2 producers + 2 thieves, every G consumed exactly once, free lists whole', { timeout: TEST_TIMEOUT_MS }, async () => {
    const nprocs = 4;
    const tokensPerWorker = 1 << 21;
    const opsPerWorker = 300_000;
    const memory = createMemory(8, 2048);
    const module = await coreModule(backend);
    const main = attachCore(backend, memory, module, false);
    main.init(nprocs, 2, L.G_CHUNK, 16 * L.G_CHUNK, L.FLAG_DEBUG, 1, 0xc0ffee);
    const mem = new Mem(memory);
    // The main thread holds all but 23 of the first chunk's Gs, so the table must grow while the
    // workers run; it gives them back before the free lists are checked.
    const reserved = Array.from({ length: L.G_CHUNK - 24 }, () => main.gfGet(-1));
    const seen = new SharedArrayBuffer(nprocs * tokensPerWorker);
    const kinds = ['stress', 'stress', 'stress', 'stress'];
    const producers = 2;
    const { ctl } = await runWorkers({
      backend, memory, module, kinds, nprocs, seen,
      params: { producers, tokensPerWorker, opsPerWorker, deadlineMs: DEADLINE_MS, seed: 12345 },
      label: (w) => `worker ${w} (${w < producers ? 'producer' : 'thief'} on P${w})`,
      progress: (c, w) => Atomics.load(c, slot(w, OPS_K)),
      deadlineFails: true,
    });

    // What the workers saw.
    const produced = kinds.map((_, w) => Atomics.load(ctl, slot(w, PRODUCED)));
    const consumedByWorkers = kinds.map((_, w) => Atomics.load(ctl, slot(w, CONSUMED)));
    const ops = kinds.reduce((a, _, w) => a + Atomics.load(ctl, slot(w, OPS_K)) * 1024, 0);
    for (let w = 0; w < kinds.length; w++) {
      expect(Atomics.load(ctl, slot(w, DUPS)), `worker ${w}: duplicate consumption (first bad token + 1: ${Atomics.load(ctl, slot(w, BAD_TOKEN))})`).toBe(0);
      expect(Atomics.load(ctl, slot(w, HEAP_ERRORS)), `worker ${w}: value block clobbered`).toBe(0);
    }
    expect(ops, 'core calls made').toBeGreaterThanOrEqual(1_000_000 - 4 * 1024);

    // The main thread takes what is still queued, then checks every token.
    const tokens = new Uint8Array(seen);
    let drained = 0;
    drainAll(main, mem, nprocs, (g, p) => {
      const token = mem.g(g, L.G_INDEX);
      expect(tokens[token], `token ${token} consumed twice`).toBe(0);
      tokens[token] = 1;
      main.gSetStatus(g, L.G_RUNNABLE, L.G_DEAD);
      main.gfPut(p, g);
      drained += 1;
    });
    const totalProduced = produced.reduce((a, b) => a + b, 0);
    expect(consumedByWorkers.reduce((a, b) => a + b, 0) + drained).toBe(totalProduced);
    for (let w = 0; w < kinds.length; w++) {
      const base = w * tokensPerWorker;
      let missing = -1;
      let extra = -1;
      for (let i = 0; i < tokensPerWorker; i++) {
        const v = tokens[base + i];
        if (i < produced[w] && v !== 1 && missing < 0) missing = i;
        if (i >= produced[w] && v !== 0 && extra < 0) extra = i;
      }
      expect(missing, `worker ${w}: first token produced but not consumed exactly once`).toBe(-1);
      expect(extra, `worker ${w}: first token consumed but never produced`).toBe(-1);
    }

    for (const g of reserved) main.gfPut(-1, g);
    // Free lists whole: nothing live, so every G below gcap is free, once, and dead.
    const free = mem.allFree();
    expect(new Set(free).size).toBe(free.length);
    expect(free.length).toBe(mem.gcap - 1);
    for (const g of free) expect(mem.g(g, L.G_STATUS)).toBe(L.G_DEAD);
    expect(mem.u32(L.S_GFREE_N)).toBe(mem.gfreeGlobal().length);
    expect(mem.gcap).toBeGreaterThan(L.G_CHUNK); // the table grew under contention

    // Counters agree with each other.
    let stolen = 0;
    let stolenFrom = 0;
    let stealOps = 0;
    let stealFromOps = 0;
    let overflows = 0;
    for (let p = 0; p < nprocs; p++) {
      stolen += mem.pc(p, L.PC_STOLEN);
      stealOps += mem.pc(p, L.PC_STEAL_OPS);
      stolenFrom += mem.p(p, L.P_STOLEN_FROM);
      stealFromOps += mem.p(p, L.P_STEAL_FROM_OPS);
      overflows += mem.pc(p, L.PC_OVERFLOWS);
    }
    expect(stolen).toBe(stolenFrom);
    expect(stealOps).toBe(stealFromOps);
    expect(stealOps).toBeGreaterThan(0); // certain: each thief steals first, and producers wait for it
    expect(overflows).toBeGreaterThan(0);
    expect(mem.sc(L.SC_GLOB_PUT)).toBe(mem.sc(L.SC_GLOB_GET));
    expect(mem.sc(L.SC_HEAP_ALLOCS)).toBe(mem.sc(L.SC_HEAP_FREES));
    expect(mem.sc(L.SC_HEAP_BYTES)).toBe(0);
    expect(mem.lockWord).toBe(0);
    expect(mem.u32(L.S_HEAP_LOCK)).toBe(0);
    if (process.env.STEALWORK_TEST_VERBOSE) {
      console.log(`${backend}: ~${ops} core calls; produced ${totalProduced} (${produced.join('/')}), `
        + `drained at the end ${drained}; steals ${stealOps} taking ${stolen}; overflows ${overflows}; `
        + `global put ${mem.sc(L.SC_GLOB_PUT)}; gcap ${mem.gcap}; lock acquisitions ${mem.sc(L.SC_LOCK_ACQ)}`);
    }
  });

  // Steal threshold 8 makes steals fail while rings hold work, so spinning Ms take the stopM
  // recheck-and-retry path constantly: that once let a wakep pick an M still flagged spinning
  // and leave nmspinning stuck at 1 (DESIGN.md stopM step 2). With classes, every G is normal,
  // high or low at random, so the class queues go through the same park-and-wake rounds
  // (DESIGN.md "Priority classes": no wake-up is lost for them either).
  it.each([
    { threshold: 1, classes: false, gs: 'normal Gs' },
    { threshold: 8, classes: false, gs: 'normal Gs' },
    { threshold: 8, classes: true, gs: 'Gs of all three classes' },
  ])('park and wake (steal threshold $threshold, $gs): Ms sleep and are woken, every G runs exactly once, no wake-up is lost', { timeout: TEST_TIMEOUT_MS }, async ({ threshold, classes }) => {
    // The main thread (M0, no P) submits root Gs in bursts with pauses, so the Ms run out of
    // work, park, and must be woken again; each G readies two children until depth 0. A lost
    // wake-up leaves work queued with every M asleep: no progress, and the watch below fails
    // naming the scheduler state.
    const nprocs = 2;
    const workersN = 4;
    const maxMs = 1 + workersN;
    const depth = 4;
    const roots = threshold === 1 ? 1200 : 12_000; // the threshold-8 race needs many park/wake rounds
    const perRoot = 2 ** (depth + 1) - 1;
    const total = roots * perRoot;
    const memory = createMemory(8, 1024);
    const module = await coreModule(backend);
    const main = attachCore(backend, memory, module, false);
    main.init(nprocs, maxMs, L.G_CHUNK, 16 * L.G_CHUNK, L.FLAG_DEBUG, threshold, 7);
    for (let m = 1; m < maxMs; m++) main.mPut(m);
    const mem = new Mem(memory);
    const seen = new SharedArrayBuffer(total);
    const ctlBuf = new SharedArrayBuffer(4 * (16 + 16 * workersN));
    const ctl = new Int32Array(ctlBuf);
    const NEXT_TOKEN = 6;
    const EXECUTED = 7;
    const workers = Array.from({ length: workersN }, (_, index) => new Worker(FIXTURE, {
      workerData: {
        backend, memory, module, kind: 'm', index, nprocs, ctl: ctlBuf, seen,
        params: { deadlineMs: DEADLINE_MS, seed: 3, classes },
      },
    }));
    const errors: string[] = [];
    const exits = workers.map((w, i) => new Promise<void>((resolve) => {
      w.on('message', (msg: { error?: string }) => { if (msg.error) errors.push(`M${i + 1}: ${msg.error}`); });
      w.on('error', (e) => errors.push(`M${i + 1}: ${e.stack ?? e.message}`));
      w.on('exit', () => resolve());
    }));
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    const fail = async (why: string): Promise<never> => {
      await Promise.all(workers.map((w) => w.terminate()));
      throw new Error(`${why}\n  ${schedState(mem, nprocs, maxMs)}\n  executed ${Atomics.load(ctl, EXECUTED)} of ${total}\n${errors.join('\n')}`);
    };
    while (workers.some((_, w) => Atomics.load(ctl, slot(w, STATE)) < 1)) {
      if (errors.length > 0) await fail('an M failed to attach');
      await sleep(10);
    }
    Atomics.store(ctl, GO, 1);
    Atomics.notify(ctl, GO);

    // Submit in bursts; between bursts the Ms drain everything and park.
    for (let r = 0; r < roots;) {
      for (let k = 0; k < 40 && r < roots; k++, r++) {
        const g = main.gfGet(-1);
        mem.setG(g, L.G_INDEX, Atomics.add(ctl, NEXT_TOKEN, 1));
        mem.setG(g, L.G_ARGC, depth);
        if (classes) mem.setGClass(g, r % 3); // normal, high, low in turn
        main.ready(-1, g, 0);
      }
      if (errors.length > 0) await fail('an M failed');
      await sleep(r % 200 === 0 ? 20 : 2);
    }
    // Wait for every G, then for quiescence (every P idle, nobody spinning), watching progress.
    let last = -1;
    let lastChange = Date.now();
    const quiet = (): boolean => Atomics.load(ctl, EXECUTED) === total && mem.npidle === nprocs
      && mem.nmspinning === 0 && mem.runqSize === 0 && mem.runqhSize === 0 && mem.runqlSize === 0;
    while (!quiet()) {
      if (errors.length > 0) await fail('an M failed');
      const progress = Atomics.load(ctl, EXECUTED) + workers.reduce((a, _, w) => a + Atomics.load(ctl, slot(w, ITERS)), 0);
      if (progress !== last) {
        last = progress;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > STALL_MS) {
        await fail(`no progress for ${STALL_MS} ms (a lost wake-up leaves work queued while every M sleeps)`);
      }
      await sleep(20);
    }
    for (let m = 1; m < maxMs; m++) {
      Atomics.or(new Int32Array(memory.buffer), (mem.mAddr(m) + L.M_PARK) >> 2, L.PARK_STOP);
      Atomics.notify(new Int32Array(memory.buffer), (mem.mAddr(m) + L.M_PARK) >> 2);
    }
    await Promise.all(exits);
    if (errors.length > 0) await fail('an M failed');

    const tokens = new Uint8Array(seen);
    let wrong = -1;
    for (let i = 0; i < total && wrong < 0; i++) if (tokens[i] !== 1) wrong = i;
    expect(wrong, 'first token not run exactly once').toBe(-1);
    for (let w = 0; w < workersN; w++) expect(Atomics.load(ctl, slot(w, DUPS))).toBe(0);
    expect(mem.allQueued()).toEqual([]);
    // Every class G put on its queue was taken off by some P, and only class Gs were.
    let classHits = 0;
    for (let p = 0; p < nprocs; p++) classHits += mem.pc(p, L.PC_HIGH_HITS) + mem.pc(p, L.PC_LOW_HITS);
    expect(classHits).toBe(mem.sc(L.SC_HIGH_PUT) + mem.sc(L.SC_LOW_PUT));
    if (classes) expect(mem.sc(L.SC_HIGH_PUT)).toBeGreaterThan(0);
    else expect(classHits).toBe(0);
    expect(mem.allFree().length).toBe(mem.gcap - 1);
    expect(mem.midle().length).toBe(workersN);
    let parks = 0;
    let wakeups = 0;
    for (let p = 0; p < nprocs; p++) {
      parks += mem.pc(p, L.PC_PARKS);
      wakeups += mem.pc(p, L.PC_WAKEUPS);
    }
    // How often the Ms ran dry depends on how the threads were scheduled; at least every P that
    // ran was woken once and parked once.
    expect(wakeups, 'Ps woken').toBeGreaterThanOrEqual(1);
    expect(parks, 'Ps parked').toBeGreaterThanOrEqual(wakeups - nprocs);
    if (process.env.STEALWORK_TEST_VERBOSE) {
      console.log(`${backend}: ${total} Gs run by ${workersN} Ms on ${nprocs} Ps; parks ${parks}, wake-ups ${wakeups}`);
    }
  });

  it('runqEmpty is never spuriously empty under a concurrent put(next)/get (Go\'s TestSchedLocalQueueEmpty)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const memory = createMemory(8, 64);
    const module = await coreModule(backend);
    const main = attachCore(backend, memory, module, false);
    main.init(1, 2, L.G_CHUNK, L.G_CHUNK, 0, 1, 1);
    const iterations = 100_000;
    const { ctl, results } = await runWorkers({
      backend, memory, module, kinds: ['emptyOwner', 'emptyObserver'], nprocs: 1, seen: null,
      params: { iterations, deadlineMs: DEADLINE_MS, seed: 1 },
      label: (w) => (w === 0 ? 'owner of P0' : 'runqEmpty observer'),
      progress: (c, w) => Atomics.load(c, slot(w, ITERS)),
      // Each iteration is a cross-thread handshake (the partner waits on a word the other
      // notifies); every one must complete. Beside two busy loops on 2 CPUs all of them took
      // 5 to 19 s: the deadline (90 s) only ends a run that has stopped making progress.
      deadlineFails: true,
    });
    const done = Math.min(Atomics.load(ctl, slot(0, ITERS)), Atomics.load(ctl, slot(1, ITERS)));
    expect(Atomics.load(ctl, slot(1, SPURIOUS)), `runqEmpty said empty while a G was queued (${done} iterations)`).toBe(0);
    expect(done, 'iterations completed').toBe(iterations);
    expect((results[1] as { checks: number }).checks).toBeGreaterThanOrEqual(iterations);
    expect(main.runqEmpty(0)).toBe(1);
  });
});
