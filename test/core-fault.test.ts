// A core call that fails inside a task (a trap, or the debug core's abort) is fatal for the M,
// never that task's error (DESIGN.md "Core faults"): the task sees an error, and even when it
// swallows it and returns normally, the M loop then fails with the fault before it runs another G. Driven in-process: one
// M over the TypeScript core, whose spawn call is made to trap on its second call: spawnNew for a
// spawn of numbers, gfGet for one whose arguments go through the codec.
import { describe, it, expect } from 'vitest';
import { attachCore, createMemory } from '../dist/bindings/core/index.js';
import { createViews } from '../dist/bindings/codec/views.js';
import { GSlots } from '../dist/bindings/runtime/memory/gslots.js';
import { SharedRegistry } from '../dist/bindings/runtime/memory/shared-registry.js';
import { M } from '../dist/bindings/runtime/threads/m.js';
import type { Core } from '../dist/bindings/core/core.js';

/** The core, with `op` throwing on call number `failAt` as a Wasm trap would. */
function faultyCore(core: Core, op: 'gfGet' | 'spawnNew', failAt: number): Core {
  let calls = 0;
  return new Proxy(core, {
    get(target, key) {
      const v = Reflect.get(target, key) as unknown;
      if (key === op) {
        return (...args: number[]) => {
          if (++calls === failAt) throw new WebAssembly.RuntimeError('memory access out of bounds');
          return (target[op] as (...a: number[]) => number)(...args);
        };
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('a core call failing inside a task', () => {
  for (const [op, arg] of [['spawnNew', 7], ['gfGet', 'seven']] as const) for (const swallow of [false, true]) {
    it(`fails the M, not the task (${op}; the task ${swallow ? 'swallows' : 'rethrows'} the error)`, async () => {
      const memory = createMemory(64, 4096);
      const core = attachCore('js', memory, null, true);
      core.init(1, 2, 1024, 1 << 20, 0, 1, 1);
      const views = createViews(memory);
      const gs = new GSlots(core, views, new SharedRegistry());
      let seen: unknown = null;
      let leafRuns = 0;
      const root = (ctx: { spawn(name: string, x: unknown): unknown }) => {
        try {
          ctx.spawn('leaf', arg);
          ctx.spawn('leaf', arg); // the second call traps here
        } catch (e) {
          seen = e;
          if (!swallow) throw e;
        }
        return 1;
      };
      const m = new M(faultyCore(core, op, 2), gs, {
        mid: 1, names: ['root', 'leaf'], fns: [root, () => { leafRuns++; return 0; }], spinLimit: 0, yieldLimit: 0,
        maxTasks: 1 << 20, debug: false,
      });
      core.mPut(1);
      // Submit the root as the engine does: a G on the global queue, then wakep hands M1 the P.
      const g = core.gfGet(-1);
      gs.init(g, gs.addr(g), 0, [], 'root');
      core.globrunqPut(g);
      core.wakep();
      await expect(m.loop()).rejects.toThrow(new RegExp(`the scheduler's core failed in ${op} on M1: memory access out of bounds`));
      expect(String(seen)).toMatch(new RegExp(`core failed in ${op}`));
      expect(leafRuns).toBe(0); // the M stopped right after the task: the child spawned before the fault never ran
    });
  }
});
