// The monitor's give-back request word (S_RT_GIVEBACK, DESIGN.md "sysmon and handoff"): the
// monitor asks (ASKED), the first M to CAS it to TAKEN gives its own P back and stores NONE
// after; the monitor withdraws a request only by CAS. A monitor that saw the request taken, or
// lost the CAS to an M, must not move another P to the reserve in the same tick: both would
// go back for one spare lent, leaving fewer Ps than procs in play while work waited (seen as
// a SCHED line listing 1 P of 2, with 1,207 Gs queued). Driven in-process, on both cores: the
// monitor's check over a memory where a spare is out and Ps are idle, with the word in each state.
import { describe, it, expect } from 'vitest';
import { attachCore, compileCoreModule, createMemory } from '../dist/bindings/core/index.js';
import { createViews } from '../dist/bindings/codec/views.js';
import { Sysmon } from '../dist/bindings/runtime/threads/sysmon.js';
import { G_CHUNK, GIVEBACK_ASKED, GIVEBACK_NONE, GIVEBACK_TAKEN, S_RT_GIVEBACK, S_RT_NPRESERVE } from '../dist/assembly/shared/layout.js';

describe('sysmon: the give-back request', () => {
  for (const backend of ['wasm', 'js'] as const) {
    const setup = async (word: number) => {
      const memory = createMemory(64, 4096);
      const core = attachCore(backend, memory, backend === 'wasm' ? await compileCoreModule(false) : null, false);
      core.init(3, 4, G_CHUNK, 1 << 20, 0, 1, 1);
      const v = createViews(memory);
      // procs 2, spareThreads 1, the spare out (the reserve empty), every P idle, nobody stuck:
      // one P is due back in the reserve.
      const mon = new Sysmon(v, core, 3, 1, 10, () => 0);
      v.i32[S_RT_GIVEBACK >>> 2] = word;
      return { v, mon };
    };

    it(`an idle P goes back when nobody asked (${backend} core)`, async () => {
      const { v, mon } = await setup(GIVEBACK_NONE);
      expect(mon.check()).toBe('retired');
      expect(v.i32[S_RT_NPRESERVE >>> 2]).toBe(1);
    });

    it(`an asked request is withdrawn, and an idle P goes back instead (${backend} core)`, async () => {
      const { v, mon } = await setup(GIVEBACK_ASKED);
      expect(mon.check()).toBe('retired');
      expect(v.i32[S_RT_GIVEBACK >>> 2]).toBe(GIVEBACK_NONE);
      expect(v.i32[S_RT_NPRESERVE >>> 2]).toBe(1);
    });

    it(`nothing moves while an M gives its P back (${backend} core)`, async () => {
      const { v, mon } = await setup(GIVEBACK_TAKEN);
      expect(mon.check()).toBe(null);
      expect(v.i32[S_RT_NPRESERVE >>> 2], 'Ps in the reserve: the M\'s is on its way').toBe(0);
      expect(v.i32[S_RT_GIVEBACK >>> 2], 'the M ends its give-back').toBe(GIVEBACK_TAKEN);
    });
  }
});
