// An M that slept in the core lock's wait and then put itself on the idle-M list must leave
// exactly itself there. V8 11's baseline compiler (Liftoff, Node 20) read a function's last local
// as 0 after a memory.atomic.wait32 with constant operands (test/engines/defects/liftoff-wait.mjs);
// in mPut that local is the M id, so M0 landed on the idle list and a later wakep handed a P to
// the main thread. bindings/core/wasm.ts compiles the core without Liftoff on V8 < 12.
//
// Deterministic: the test holds sched.lock itself, so the worker's mPut must take the lock's slow
// path, and only releases it once a notify has found the worker asleep in the wait. Both builds
// of the core, both backends.
import { describe, it, expect } from 'vitest';
import { Worker } from 'node:worker_threads';
import { attachCore, loadCoreModule, createMemory } from '../dist/bindings/core/index.js';
import { H_MBASE, HEADER, M_LINK, M_SIZE, S_LOCK, S_MIDLE, S_NMIDLE } from '../assembly/shared/layout.js';

const HELD = 1;
const CONTENDED = 2;

/** The M indices on the idle-M list, top first (at most 8). */
function idleMs(u32: Uint32Array): number[] {
  const mbase = u32[(HEADER + H_MBASE) >>> 2];
  const list: number[] = [];
  for (let top = u32[S_MIDLE >>> 2]; top !== 0 && list.length < 8; top = u32[(mbase + (top - 1) * M_SIZE + M_LINK) >>> 2]) list.push(top - 1);
  return list;
}

async function sleptThenPut(w: Worker, backend: 'wasm' | 'js', module: WebAssembly.Module | null): Promise<{ list: number[]; nmidle: number; wokenAsleep: boolean }> {
  const memory = createMemory(64, 4096);
  attachCore(backend, memory, module, false).init(2, 3, 4096, 1 << 20, 0, 1, 1);
  const i32 = new Int32Array(memory.buffer);
  const lock = S_LOCK >>> 2;
  expect(Atomics.compareExchange(i32, lock, 0, HELD)).toBe(0); // the test holds sched.lock
  const done = new Promise((r) => w.once('message', r));
  w.postMessage({ memory, module, backend, mid: 2 });
  // Wake the worker until a notify finds it asleep in the lock's wait: the lock stays held, so
  // it goes back to sleep. Each round gives it a little time to get there.
  let wokenAsleep = false;
  while (!wokenAsleep) {
    if (Atomics.load(i32, lock) === CONTENDED) wokenAsleep = Atomics.notify(i32, lock, 1) === 1;
    if (!wokenAsleep) await new Promise((r) => setTimeout(r, 1));
  }
  // Release as unlock does: the waiter then takes the lock and finishes mPut.
  if (Atomics.exchange(i32, lock, 0) === CONTENDED) Atomics.notify(i32, lock, 1);
  await done;
  const u32 = new Uint32Array(memory.buffer);
  return { list: idleMs(u32), nmidle: u32[S_NMIDLE >>> 2], wokenAsleep };
}

describe('an M that slept in the lock wait, then mPut', () => {
  for (const [backend, debug] of [['wasm', false], ['wasm', true], ['js', false]] as const) {
    it(`leaves exactly that M on the idle list (${backend}${debug ? ', debug core' : ''})`, async () => {
      const module = await loadCoreModule(backend, debug);
      const w = new Worker(new URL('./fixtures/mput-worker.mjs', import.meta.url));
      try {
        for (let round = 0; round < 5; round++) {
          expect(await sleptThenPut(w, backend, module)).toEqual({ list: [2], nmidle: 1, wokenAsleep: true });
        }
      } finally {
        await w.terminate();
      }
    });
  }
});
