// Two workers putting themselves on the idle-M list at the same moment must leave exactly those
// two Ms there. On Node 20 the baseline Wasm compiler once miscompiled this contended lock path
// (an M0 entry appeared about once in 5,000 starts); bindings/core/wasm.ts compiles the core
// without it there. This runs the race a few thousand times.
import { describe, it, expect } from 'vitest';
import { Worker } from 'node:worker_threads';
import { attachCore, loadCoreModule, createMemory } from '../dist/bindings/core/index.js';
import { H_MBASE, HEADER, M_LINK, M_SIZE, S_MIDLE, S_NMIDLE } from '../assembly/shared/layout.js';

describe('idle-M list under concurrent mPut (wasm)', () => {
  it('holds exactly the Ms that put themselves there', async () => {
    const module = await loadCoreModule('wasm');
    const url = new URL('./fixtures/mput-worker.mjs', import.meta.url);
    const ws = [new Worker(url), new Worker(url)];
    const wrong: string[] = [];
    try {
      for (let it = 0; it < 3000 && wrong.length === 0; it++) {
        const memory = createMemory(64, 4096);
        attachCore('wasm', memory, module!, false).init(2, 3, 4096, 1 << 20, 0, 1, 1);
        await Promise.all(ws.map((w, i) => new Promise((r) => { w.once('message', r); w.postMessage({ memory, module, mid: i + 1 }); })));
        const u32 = new Uint32Array(memory.buffer);
        const mbase = u32[(HEADER + H_MBASE) >>> 2];
        const list: number[] = [];
        for (let top = u32[S_MIDLE >>> 2]; top !== 0 && list.length < 4; top = u32[(mbase + (top - 1) * M_SIZE + M_LINK) >>> 2]) list.push(top - 1);
        if (list.slice().sort().join() !== '1,2' || u32[S_NMIDLE >>> 2] !== 2) wrong.push(`iteration ${it}: list [${list}], nmidle ${u32[S_NMIDLE >>> 2]}`);
      }
    } finally {
      await Promise.all(ws.map((w) => w.terminate()));
    }
    expect(wrong).toEqual([]);
  }, 120000);
});
