// The park ladder's rule (bindings/runtime/sleep/parkspin.ts, DESIGN.md "Scaling"): an M without a P
// polls and takes short waits only while the Ps held by an M plus the Ms on those rungs, itself
// included, are at most ncpu; leaving the rungs is idempotent. Driven on a core's real memory,
// the test thread playing the Ms; the park model (test/model/protocols/park.mjs) runs the same
// file against the wake-up protocol.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { busyPs, overcommitted, parkSpin, parkSpinLeave } from '../dist/bindings/runtime/sleep/parkspin.js';
import { BACKENDS, freshCore, startPs } from './helpers/core.js';

describe.each(BACKENDS)('park ladder: polls only while a CPU is free (%s)', (backend) => {
  const setup = async () => {
    const h = await freshCore(backend, { nprocs: 4, maxMs: 6 });
    const i32 = new Int32Array(h.memory.buffer);
    const mw = (m: number): number => h.mem.mAddr(m) >>> 2;
    const count = (): number => i32[L.S_RT_NPARKSPIN >>> 2];
    return { h, i32, mw, count };
  };

  it('with every P idle, ncpu Ms may poll and the next one goes deep, uncounted', async () => {
    const { i32, mw, count } = await setup();
    expect(busyPs(i32)).toBe(0);
    expect(parkSpin(i32, mw(1), 2)).toBe(true);
    expect(parkSpin(i32, mw(2), 2)).toBe(true);
    expect(count()).toBe(2);
    expect(parkSpin(i32, mw(3), 2)).toBe(false);
    expect(count(), 'the refused M took itself off again').toBe(2);
    expect(i32[mw(3) + (L.MR_PARKSPIN >>> 2)]).toBe(0);
    // An M already on the rungs stays on them without counting itself twice.
    expect(parkSpin(i32, mw(1), 2)).toBe(true);
    expect(count()).toBe(2);
  });

  it('leaving is idempotent: a second leave, or one by an M never on the rungs, changes nothing', async () => {
    const { i32, mw, count } = await setup();
    expect(parkSpin(i32, mw(1), 2)).toBe(true);
    parkSpinLeave(i32, mw(1));
    expect(count()).toBe(0);
    parkSpinLeave(i32, mw(1));
    parkSpinLeave(i32, mw(2));
    expect(count()).toBe(0);
  });

  it('Ps held by an M take the CPUs: a polling M leaves when they fill up', async () => {
    const { h, i32, mw, count } = await setup();
    expect(parkSpin(i32, mw(1), 2)).toBe(true);
    startPs(h, 2); // two Ps held (by the Ms last on the idle list, not M1): both CPUs taken
    expect(busyPs(i32)).toBe(2);
    expect(overcommitted(i32, 2), 'two held Ps and a poller on 2 CPUs').toBe(true);
    expect(parkSpin(i32, mw(1), 2)).toBe(false);
    expect(count()).toBe(0);
    expect(overcommitted(i32, 2)).toBe(false);
    expect(parkSpin(i32, mw(1), 3)).toBe(true); // a third CPU would be free for it
  });

  it('reserved, M-less and out-of-service Ps hold no CPU', async () => {
    const { h, i32 } = await setup();
    expect(h.core.pReserve(3)).toBe(1);
    expect(h.core.pDetach(2)).toBe(1);
    expect(busyPs(i32)).toBe(0);
    startPs(h, 1);
    expect(busyPs(i32)).toBe(1);
  });
});
