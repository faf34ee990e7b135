// stats() lists the monitor's reserved spare Ps by walking the reserve, a list linked through
// P_LINK, without sched.lock (reading stats never stalls the workers). P_LINK also links the
// idle list: a P taken off the reserve while the walk is on it, lent, then idle again, links
// into the idle list, and a walk that follows it there reports idle Ps as reserved (seen as a
// SCHED line listing 1 P of 2). The walk takes at most S_RT_NPRESERVE entries. Here the state
// such a walk observes is laid down in the memory, on both cores: the reserve's head links into
// the idle list.
import { describe, it, expect } from 'vitest';
import { attachCore, compileCoreModule, createMemory } from '../dist/bindings/core/index.js';
import { createViews } from '../dist/bindings/codec/views.js';
import { readStats } from '../dist/bindings/runtime/observe/readstats.js';
import { pAddr } from '../dist/bindings/runtime/memory/mblock.js';
import { G_CHUNK, P_LINK, S_PIDLE, S_RT_NPRESERVE, S_RT_PRESERVE } from '../dist/assembly/shared/layout.js';

describe('stats: the reserve walk', () => {
  for (const backend of ['wasm', 'js'] as const) {
    it(`reports no idle P as reserved when the reserve's link leads into the idle list (${backend} core)`, async () => {
      const memory = createMemory(64, 4096);
      const core = attachCore(backend, memory, backend === 'wasm' ? await compileCoreModule(false) : null, false);
      core.init(3, 4, G_CHUNK, 1 << 20, 0, 1, 1);
      const v = createViews(memory);
      expect(core.pReserve(2)).toBe(1);
      expect(readStats(v, 0, 1, core).procs.map((p) => p.status)).toEqual(['idle', 'idle', 'reserved']);
      // The walk read the head (P 2) before a handoff took it; P 2 then ran and went idle, so
      // its link now leads to the idle list's head.
      expect(v.u32[S_RT_PRESERVE >>> 2]).toBe(3);
      expect(v.u32[S_RT_NPRESERVE >>> 2]).toBe(1);
      const idleHead = v.u32[S_PIDLE >>> 2];
      expect(idleHead).not.toBe(0);
      v.u32[(pAddr(v, 2) + P_LINK) >>> 2] = idleHead;
      const st = readStats(v, 0, 1, core);
      expect(st.procs.filter((p) => p.status === 'reserved')).toHaveLength(1);
      expect(st.procs.map((p) => p.status)).toEqual(['idle', 'idle', 'reserved']);
    });
  }
});
