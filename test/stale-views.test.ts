// A thread's views of the shared memory are replaced when it refreshes them after another
// thread grew the memory (bindings/codec/views.ts), and a typed array kept from before traps
// past its old end ("Invalid atomic access index"). Finishing a G linked to a join
// continuation looks up the parent G, which may lie in a table chunk another thread has just
// added past this thread's views (DESIGN.md "The G table"): the finisher must use the views'
// arrays as they are after that lookup, not ones it kept. Driven in-process, on both cores:
// one set of views plays the thread that grew the memory, another the stale finisher.
import { describe, it, expect } from 'vitest';
import { attachCore, compileCoreModule, createMemory } from '../dist/bindings/core/index.js';
import { createViews } from '../dist/bindings/codec/views.js';
import { GSlots } from '../dist/bindings/runtime/memory/gslots.js';
import { SharedRegistry } from '../dist/bindings/runtime/memory/shared-registry.js';
import { finishG, joinChildren, type Finisher } from '../dist/bindings/runtime/tasks/join.js';
import { JoinRequest, Task, type TaskOwner } from '../dist/bindings/runtime/tasks/task.js';
import { G_CHUNK, G_DEAD, G_RUNNING, G_SIZE } from '../dist/assembly/shared/layout.js';

function finisher(gs: GSlots): Finisher {
  return {
    gs, core: gs.core, views: gs.views, p: -1, mid: 1,
    setStatus(_g: number, a: number, _from: number, to: number): void { gs.views.u32[a >>> 2] = to; },
    deliverLocal(): void { throw new Error('no waiter here'); },
  };
}

describe('a finisher whose views are older than the G table', () => {
  for (const backend of ['wasm', 'js'] as const) {
    it(`finishes a child into a parent G past its views (${backend} core)`, async () => {
      const memory = createMemory(64, 4096);
      const core = attachCore(backend, memory, backend === 'wasm' ? await compileCoreModule(false) : null, false);
      core.init(1, 2, G_CHUNK, 1 << 20, 0, 1, 1);
      const stale = new GSlots(core, createViews(memory), new SharedRegistry()); // the finisher's thread
      const fresh = new GSlots(core, createViews(memory), new SharedRegistry()); // the thread that grows
      const child = core.gfGet(-1);
      // Another thread fills the memory (value blocks), then takes every G of the first chunk,
      // so the next G comes from a chunk added past the stale views' end.
      while (memory.buffer.byteLength <= stale.views.end) core.heapAlloc(1 << 16);
      const taken: number[] = [];
      let parent = core.gfGet(-1);
      while (parent < G_CHUNK) { taken.push(parent); parent = core.gfGet(-1); }
      const pa = fresh.addr(parent);
      expect(pa + G_SIZE).toBeGreaterThan(stale.views.end); // the case under test: the parent is out of the stale views' reach
      // The parent becomes the join continuation over the child, which is running.
      const ca = fresh.addr(child);
      fresh.views.u32[ca >>> 2] = G_RUNNING;
      const owner = {} as TaskOwner;
      joinChildren(finisher(fresh), parent, pa, new JoinRequest(0, [new Task(owner, child, fresh.gen(ca), 'leaf')]));
      // The stale thread finishes the child: its result goes into the parent's slot, and the
      // parent's count reaching 0 readies it.
      expect(() => finishG(finisher(stale), child, stale.addr(child), G_RUNNING, 42, false, 'leaf')).not.toThrow();
      expect(fresh.views.u32[ca >>> 2]).toBe(G_DEAD);
      const args: unknown[] = [];
      fresh.takeArgs(pa, args);
      expect(args).toEqual([42]);
      expect(taken.length).toBe(G_CHUNK - 2); // G 0 is never handed out, and the child is the first
    });
  }
});
