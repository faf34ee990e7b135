// The core's part of the event trace, for both backends (DESIGN.md "Event trace"): execute writes
// a start slot for every G that findRunnable or stopM hands out, newproc a spawn slot,
// findRunnable a steal (before the stolen G's start) and runqPutSlow an overflow, into the ring
// of the M concerned, and nothing at all for an M whose MR_TRACE_BUF is 0. The runtime's side
// (time slots, the other events, the export) is in trace.test.ts.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { Stop } from '../bindings/core/index.js';
import { BACKENDS, freshCore, startPs, takeGs, type Harness } from './helpers/core.js';

/** Gives M m a ring for `cap` events (what allocTraceRings does); returns slot 0's address. */
function giveRing(h: Harness, m: number, cap: number): number {
  const buf = h.core.heapAlloc(cap * L.TR_SLOTS_PER_EVENT * L.TR_SLOT + 3 * L.LINE);
  expect(buf).not.toBe(0);
  h.mem.setM(m, L.MR_TRACE_BUF, buf);
  h.mem.setM(m, L.MR_TRACE_CAP, cap);
  h.mem.setM(m, L.MR_TRACE_POS, 0);
  return (buf + L.TR_HEAD + L.LINE - 1) & -L.LINE;
}

/** The ring's slots written so far, oldest first, as [word0, word1] pairs. */
function slots(h: Harness, m: number, at: number, cap: number): Array<[number, number]> {
  const n = h.mem.m(m, L.MR_TRACE_POS);
  const size = cap * L.TR_SLOTS_PER_EVENT;
  const out: Array<[number, number]> = [];
  for (let i = Math.max(0, n - size); i < n; i++) {
    const a = at + (i & (size - 1)) * L.TR_SLOT;
    out.push([h.mem.u32(a), h.mem.u32(a + 4)]);
  }
  return out;
}

const start = (g: number, fn: number, p: number): [number, number] => [(L.TR_EV_START | (g << 4)) >>> 0, ((fn & L.TR_FN_MASK) | (p << 24)) >>> 0];
const spawn = (g: number, parent: number): [number, number] => [(L.TR_EV_SPAWN | (g << 4)) >>> 0, parent];

describe.each(BACKENDS)('core trace events (%s)', (backend) => {
  it('newproc records the spawn and readies the G into runnext; execute records its start', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1); // M1 runs G r.g on P0 (started before its ring: not recorded)
    const at = giveRing(h, r.m, 64);
    const [a, b] = takeGs(h, 2, r.p);
    mem.setG(a, L.G_FN, 7);
    mem.setG(b, L.G_FN, 0x1234567); // beyond 24 bits: the start keeps the low 24
    core.newproc(r.p, r.m, a, r.g);
    core.newproc(r.p, r.m, b, r.g); // b takes runnext, a goes to the ring
    expect(mem.runnext(r.p)).toBe(b);
    expect(mem.ring(r.p)).toEqual([a]);
    expect(mem.g(a, L.G_STATUS)).toBe(L.G_RUNNABLE);
    expect(core.findRunnable(r.p, r.m)).toBe(b);
    expect(core.findRunnable(r.p, r.m)).toBe(a);
    expect(slots(h, r.m, at, 64)).toEqual([spawn(a, r.g), spawn(b, r.g), start(b, 0x1234567, r.p), start(a, 7, r.p)]);
  });

  it('stopM records the start of the G its recheck found', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const at = giveRing(h, r.m, 64);
    const [g] = takeGs(h, 1);
    mem.setG(g, L.G_FN, 3);
    core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE);
    core.globrunqPut(g); // found by stopM's recheck under the lock, after findRunnable's look
    const s = core.stopM(r.p, r.m);
    expect(s).toBe(g);
    expect(s).not.toBe(Stop.Sleep);
    expect(slots(h, r.m, at, 64)).toEqual([start(g, 3, r.p)]);
  });

  it('findRunnable records a steal, then the start of the first stolen G, and asks for a clock read', async () => {
    const h = await freshCore(backend, { nprocs: 2, maxMs: 3 });
    const { core, mem } = h;
    const [a, b] = startPs(h, 2);
    core.gSetStatus(a.g, L.G_RUNNING, L.G_DEAD); // P0's M is between two Gs
    const at = giveRing(h, a.m, 64);
    mem.setM(a.m, L.MR_TRACE_NEXT, 99);
    const gs = takeGs(h, 6, b.p);
    for (const g of gs) { core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE); core.runqPut(b.p, g, 0); }
    const g = core.findRunnable(a.p, a.m); // nothing local: steals half of P1's six, runs one
    expect(gs.slice(0, 3)).toContain(g);
    const got = slots(h, a.m, at, 64);
    expect(got.length).toBe(3);
    expect(got[0]).toEqual([(L.TR_EV_STEAL | ((b.m + 1) << 4)) >>> 0, ((a.p << 16) | (b.p + 1)) >>> 0]);
    expect(got[1]).toEqual([L.TR_TAG_ARG, 3]);
    expect(got[2][0]).toBe((L.TR_EV_START | (g << 4)) >>> 0);
    expect(mem.m(a.m, L.MR_TRACE_NEXT)).toBe(0);
  });

  it('runqPutSlow records each overflow of the ring in its owner M\'s ring', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    const at = giveRing(h, r.m, 64);
    const gs = takeGs(h, L.RUNQ_SIZE + 1, r.p);
    for (const g of gs) { core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE); core.runqPut(r.p, g, 0); }
    expect(mem.pc(r.p, L.PC_OVERFLOWS)).toBe(1);
    expect(slots(h, r.m, at, 64)).toEqual([[L.TR_EV_OVERFLOW, r.p], [L.TR_TAG_ARG, 1]]);
  });

  it('an M without a ring records nothing, and the ring wraps at its size', async () => {
    const h = await freshCore(backend, { nprocs: 1, maxMs: 2 });
    const { core, mem } = h;
    const [r] = startPs(h, 1);
    // A ring at address 0 would put its slots at LINE, below the layout: those bytes stay put.
    const below = mem.bytes(0, L.LAYOUT_BASE).slice();
    const [x] = takeGs(h, 1, r.p);
    core.newproc(r.p, r.m, x, r.g);
    expect(core.findRunnable(r.p, r.m)).toBe(x);
    expect(mem.m(r.m, L.MR_TRACE_POS)).toBe(0);
    expect(mem.bytes(0, L.LAYOUT_BASE)).toEqual(below);
    const cap = 4; // 8 slots
    const at = giveRing(h, r.m, cap);
    const gs = takeGs(h, 6, r.p);
    for (const g of gs) core.newproc(r.p, r.m, g, x);
    for (let i = 0; i < 6; i++) expect(core.findRunnable(r.p, r.m)).not.toBe(0);
    expect(mem.m(r.m, L.MR_TRACE_POS)).toBe(12);
    // The newest 8 of the 12: the last two spawns, then the six starts (runnext first).
    const got = slots(h, r.m, at, cap);
    expect(got.slice(0, 2)).toEqual([spawn(gs[4], x), spawn(gs[5], x)]);
    expect(got.slice(2).map(([w0]) => w0 & 15)).toEqual(Array(6).fill(L.TR_EV_START));
    expect(got.slice(2).map(([w0]) => w0 >>> 4)).toEqual([gs[5], gs[0], gs[1], gs[2], gs[3], gs[4]]);
  });
});
