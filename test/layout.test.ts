// Pins the shared-memory layout (assembly/shared/layout.ts): every exported constant against a
// literal table, then the structural rules of DESIGN.md "Memory layout" (hot words on their own
// 128-byte lines, G fields inside G_SIZE and disjoint, f64 fields 8-aligned), then what `init`
// lays down on fresh memory, for both backends.
//
// Changing a value here is a layout change: bump LAYOUT_VERSION with it.

import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { BACKENDS, freshCore } from './helpers/core.js';
import { coprimesOf, initialRand } from './helpers/mem.js';

const PINNED: Record<string, number> = {
  LINE: 128,
  PAGE: 65536,
  MAGIC: 0x4b525753,
  LAYOUT_VERSION: 5,
  LAYOUT_BASE: 65536,

  RUNQ_SIZE: 256,
  RUNQ_MASK: 255,
  RUNQ_HALF: 128,
  GLOBRUNQ_MAX_BATCH: 128,
  STEAL_TRIES: 4,
  GLOBAL_CHECK_TICKS: 61,
  GFREE_LOCAL_MAX: 64,
  GFREE_LOCAL_KEEP: 32,
  MAX_PROCS: 256,
  MAX_MS: 512,
  PRIO_NORMAL: 0,
  PRIO_HIGH: 1,
  PRIO_LOW: 2,
  PRIO_MASK: 0xff,
  LOW_CHECK_TICKS: 64,
  HIGH_PERIOD_MS: 100,
  HIGH_RUNTIME_MS: 95,
  HIGH_OPEN: 0,
  HIGH_THROTTLED: 1,
  HIGH_FREE: 2,

  G_IDLE: 0,
  G_RUNNABLE: 1,
  G_RUNNING: 2,
  G_WAITING: 4,
  G_DEAD: 6,
  P_IDLE: 0,
  P_RUNNING: 1,
  LOCK_FREE: 0,
  LOCK_HELD: 1,
  LOCK_CONTENDED: 2,
  STOP_SLEEP: 0,
  STOP_RETRY: -1,
  NONE: -1,
  GIVEBACK_NONE: 0,
  GIVEBACK_ASKED: 1,
  GIVEBACK_TAKEN: 2,

  ORDER_RANDOM: 0,
  ORDER_ROUND_ROBIN: 1,
  FLAG_ORDER_MASK: 1,
  FLAG_VICTIM_HINT: 2,
  FLAG_THRESHOLD_LOAD: 4,
  FLAG_GLOBAL_ONLY: 8,
  FLAG_DEBUG: 16,

  HEADER: 65536,
  H_MAGIC: 0,
  H_VERSION: 4,
  H_NPROCS: 8,
  H_MAXMS: 12,
  H_GCAP: 16,
  H_GMAX: 20,
  H_BRK: 24,
  H_FLAGS: 28,
  H_STEAL_THRESHOLD: 32,
  H_NCOPRIMES: 36,
  H_PBASE: 40,
  H_MBASE: 44,
  H_MEMBYTES: 48,

  SCHED: 65664,
  S_LOCK: 65664,
  S_RUNQ_HEAD: 65668,
  S_RUNQ_TAIL: 65672,
  S_PIDLE: 65676,
  S_MIDLE: 65680,
  S_NMIDLE: 65684,
  S_RUNQH_HEAD: 65688,
  S_RUNQH_TAIL: 65692,
  S_RUNQL_HEAD: 65696,
  S_RUNQL_TAIL: 65700,
  S_RUNQ_SIZE: 65792,
  S_NPIDLE: 65796,
  S_NMSPINNING: 65800,
  S_NEEDSPINNING: 65804,
  S_RUNQH_SIZE: 65808,
  S_RUNQL_SIZE: 65812,
  S_GFREE_HEAD: 65920,
  S_GFREE_N: 65928,
  S_HEAP_LOCK: 66048,
  S_HEAP_FREE: 66056,
  HEAP_CLASSES: 27,
  HEAP_MIN_SHIFT: 4,
  S_COUNTERS: 66176,
  SC_GLOB_PUT: 0,
  SC_GLOB_GET: 8,
  SC_LOCK_ACQ: 16,
  SC_GROWS: 24,
  SC_HEAP_ALLOCS: 32,
  SC_HEAP_FREES: 40,
  SC_HEAP_BYTES: 48,
  SC_HIGH_PUT: 56,
  SC_LOW_PUT: 64,
  SC_COUNT: 9,
  S_NMSPINNING_MAX: 66304,
  S_DUMMY: 66432,
  S_RT: 66560,
  S_RT_STOP: 66560,
  S_RT_SHARES: 66564,
  S_RT_CANCEL: 66568,
  S_RT_PRESERVE: 66572,
  S_RT_NPRESERVE: 66576,
  S_RT_HANDOFFS: 66580,
  S_RT_GIVEBACK: 66588,
  S_RT_RETIRES: 66584,
  S_RT_FORK_SLEEPERS: 66592,
  S_RT_FORK_EPOCH: 66596,
  S_RT_PNOM: 66600,
  S_RT_NPNOM: 66604,
  S_RT_NMLIVE: 66608,
  S_RT_PDEAD: 66612,
  S_RT_NPDEAD: 66616,
  S_RT_SHRINK: 66620,
  S_RT_NPARKSPIN: 66624,
  CANCEL_TOKENS: 65536,

  COPRIMES: 66688,
  GDIR: 67712,
  G_CHUNK_SHIFT: 10,
  G_CHUNK: 1024,
  G_CHUNK_MASK: 1023,
  GDIR_MAX: 4096,
  PS: 84096,

  P_TAIL: 0,
  P_STATUS: 4,
  P_SCHEDTICK: 8,
  P_M: 12,
  P_RAND: 16,
  P_HINT: 20,
  P_GFREE: 24,
  P_GFREE_N: 28,
  P_LINK: 32,
  P_ID: 36,
  P_STEAL_VICTIM: 40,
  P_STEAL_N: 44,
  P_HEAD: 128,
  P_RUNNEXT: 256,
  P_STOLEN_FROM: 384,
  P_STEAL_FROM_OPS: 388,
  P_PARK_PROBES: 392,
  P_COUNTERS: 512,
  PC_SPAWNED: 0,
  PC_EXECUTED: 8,
  PC_RUNNEXT_HITS: 16,
  PC_LOCAL_HITS: 24,
  PC_GLOBAL_HITS: 32,
  PC_STEAL_OPS: 40,
  PC_STOLEN: 48,
  PC_OVERFLOWS: 56,
  PC_SPINS: 64,
  PC_PARKS: 72,
  PC_WAKEUPS: 80,
  PC_STEAL_MISSES: 88,
  PC_GFREE_MOVES: 96,
  PC_HIGH_HITS: 104,
  PC_LOW_HITS: 112,
  PC_HIGH_THROTTLES: 120,
  PC_COUNT: 16,
  P_HIGH_PERIOD: 640,
  P_HIGH_USED: 648,
  P_HIGH_STATE: 656,
  P_OPS: 664,
  OP_CALLS: 0,
  OP_PROBES: 8,
  OP_STEAL_TRIES: 16,
  OP_CAS: 24,
  OP_CAS_FAILS: 32,
  OP_RETRIES: 40,
  OP_HELPS: 48,
  OP_COUNT: 7,
  P_RUNQ: 768,
  FORKQ_SIZE: 256,
  FORKQ_MASK: 255,
  P_FORKQ_BOTTOM: 1792,
  P_FORK_PUSHES: 1800,
  P_FORK_INLINE: 1808,
  P_FORKQ_TOP: 1920,
  P_FORKQ: 2048,
  P_SIZE: 3072,

  M_PARK: 0,
  M_NEXTP: 4,
  M_SPINNING: 8,
  M_LINK: 12,
  M_INBOX: 128,
  M_RT: 256,
  MR_SPAWNED: 256,
  MR_FINISHED: 264,
  MR_CURG: 272,
  MR_ASYNC: 276,
  MR_KILLABLE: 280,
  KILL_CLAIMED: 0x10000,
  MR_TRACE_BUF: 288,
  MR_TRACE_CAP: 292,
  MR_TRACE_POS: 296,
  MR_TRACE_PUB: 300,
  MR_IDLE_MS: 304,
  MR_YIELDS: 312,
  MR_HIST: 320,
  MR_T0: 328,
  MR_STATE: 336,
  MR_TRACE_NEXT: 340,
  MR_PARKSPIN: 344,
  MR_BLOCKED: 348,
  MR_ASYNC_LIMIT: 284,
  MR_SPIN_RUNGS: 352,
  MR_FORK_SLEEPS: 360,
  MR_BCACHE_N: 368,
  BCACHE_CLASSES: 4,
  BCACHE_MAX: 32,
  M_BCACHE: 384,
  M_SIZE: 896,
  MS_NONE: 0,
  MS_SCHEDULE: 1,
  MS_YIELD: 2,
  MS_SHARES: 3,
  MS_SLEEP: 4,
  MS_SLEEP_ASYNC: 5,
  MS_EXITED: 6,
  TR_HEAD: 8,
  TR_SLOT: 8,
  TR_SLOTS_PER_EVENT: 2,
  TR_TAG_MASK: 15,
  TR_EV_START: 1,
  TR_EV_SPAWN: 2,
  TR_EV_STEAL: 3,
  TR_EV_PARK: 4,
  TR_EV_UNPARK: 5,
  TR_EV_SETTLE: 6,
  TR_EV_OVERFLOW: 7,
  TR_TAG_ARG: 14,
  TR_TAG_TIME: 15,
  TR_FN_MASK: 0xffffff,
  PARK_P: 1,
  PARK_INBOX: 2,
  PARK_STOP: 4,
  PARK_ROOM: 16,
  PARK_MSG: 8,

  G_STATUS: 0,
  G_FN: 4,
  G_SCHEDLINK: 8,
  G_PARENT: 12,
  G_PENDING: 16,
  G_ARGC: 20,
  G_INDEX: 24,
  G_JOIN: 28,
  G_PRIO: 32,
  G_RESULT_TAG: 36,
  G_RESULT: 40,
  G_ARG_TAGS: 48,
  G_SPILL: 56,
  G_GEN: 60,
  G_ARGS: 64,
  G_INLINE_ARGS: 7,
  G_SPAWN_TIME: 120,
  G_SIZE: 128,

  JOIN_WAITER_MASK: 0xffff,
  JOIN_DONE: 0x10000,
  JOIN_DETACHED: 0x20000,
  JOIN_ERROR: 0x40000,
  JOIN_PARENT: 0x80000,
  JOIN_FORK: 0x100000,
  GF_CONT: 0x100,
  GF_SHAPED: 0x200,
  GF_FORK: 0x400,
  G_TOKEN_SHIFT: 16,
  SCHEDLINK_PINNED: 0x80000000,
  PARENT_SPAWNER: 0x80000000,

  TAG_UNDEFINED: 0,
  TAG_NULL: 1,
  TAG_FALSE: 2,
  TAG_TRUE: 3,
  TAG_NUMBER: 4,
  TAG_BLOCK: 5,
  TAG_TASK: 6,
  TAG_ERROR: 7,
  TAG_SHORT: 8,

  BLOCK_HEADER: 8,
};

const exported = L as unknown as Record<string, unknown>;
const line = (addr: number): number => Math.floor(addr / L.LINE);

/** [name, offset, size in bytes, f64?] of every G field. */
const G_FIELDS: Array<[string, number, number, boolean]> = [
  ['G_STATUS', L.G_STATUS, 4, false],
  ['G_FN', L.G_FN, 4, false],
  ['G_SCHEDLINK', L.G_SCHEDLINK, 4, false],
  ['G_PARENT', L.G_PARENT, 4, false],
  ['G_PENDING', L.G_PENDING, 4, false],
  ['G_ARGC', L.G_ARGC, 4, false],
  ['G_INDEX', L.G_INDEX, 4, false],
  ['G_JOIN', L.G_JOIN, 4, false],
  ['G_PRIO', L.G_PRIO, 4, false],
  ['G_RESULT_TAG', L.G_RESULT_TAG, 4, false],
  ['G_RESULT', L.G_RESULT, 8, true],
  ['G_ARG_TAGS', L.G_ARG_TAGS, 8, false], // G_INLINE_ARGS tags and a spare byte
  ['G_SPILL', L.G_SPILL, 4, false],
  ['G_GEN', L.G_GEN, 4, false],
  ['G_ARGS', L.G_ARGS, 8 * L.G_INLINE_ARGS, true],
  ['G_SPAWN_TIME', L.G_SPAWN_TIME, 8, true],
];

/** Every PC_* counter offset, and every SC_* one. */
const PC_NAMES = Object.keys(PINNED).filter((k) => k.startsWith('PC_') && k !== 'PC_COUNT');
const SC_NAMES = Object.keys(PINNED).filter((k) => k.startsWith('SC_') && k !== 'SC_COUNT');
/** Every OP_* operation counter offset (from P_OPS). */
const OP_NAMES = Object.keys(PINNED).filter((k) => k.startsWith('OP_') && k !== 'OP_COUNT');

/** Checks [offset, size] ranges are disjoint and inside [0, limit). */
function expectDisjoint(fields: Array<[string, number, number]>, limit: number): void {
  const sorted = [...fields].sort((a, b) => a[1] - b[1]);
  for (const [name, off, size] of sorted) {
    expect(off, name).toBeGreaterThanOrEqual(0);
    expect(off + size, `${name} ends past ${limit}`).toBeLessThanOrEqual(limit);
  }
  for (let i = 1; i < sorted.length; i++) {
    const [pn, po, ps] = sorted[i - 1];
    const [n, o] = sorted[i];
    expect(o, `${n} overlaps ${pn}`).toBeGreaterThanOrEqual(po + ps);
  }
}

describe('layout constants', () => {
  it('pins every exported constant', () => {
    for (const [name, value] of Object.entries(PINNED)) expect(exported[name], name).toBe(value);
  });

  it('exports nothing unpinned (a new constant needs a row in this table)', () => {
    const unpinned = Object.keys(exported).filter((k) => !(k in PINNED));
    expect(unpinned).toEqual([]);
  });

  it('exports only integers', () => {
    for (const [name, value] of Object.entries(exported)) {
      expect(Number.isInteger(value), name).toBe(true);
    }
  });

  it('derived constants agree with their sources', () => {
    expect(L.RUNQ_MASK).toBe(L.RUNQ_SIZE - 1);
    expect(L.RUNQ_HALF).toBe(L.RUNQ_SIZE / 2);
    expect(L.GLOBRUNQ_MAX_BATCH).toBe(L.RUNQ_SIZE / 2);
    expect(L.G_CHUNK).toBe(1 << L.G_CHUNK_SHIFT);
    expect(L.G_CHUNK_MASK).toBe(L.G_CHUNK - 1);
    expect(L.GFREE_LOCAL_KEEP).toBe(L.GFREE_LOCAL_MAX / 2);
    expect(L.GDIR_MAX * L.G_CHUNK).toBeLessThanOrEqual(2 ** 32);
    expect(L.HEAP_MIN_SHIFT + L.HEAP_CLASSES - 1).toBe(30);
    expect(L.P_SIZE).toBe(L.P_FORKQ + L.FORKQ_SIZE * 4);
    expect(L.FORKQ_MASK).toBe(L.FORKQ_SIZE - 1);
    expect(L.PC_COUNT).toBe(PC_NAMES.length);
    expect(L.SC_COUNT).toBe(SC_NAMES.length);
    expect(L.OP_COUNT).toBe(OP_NAMES.length);
    // 'SWRK' read as a little-endian u32.
    const bytes = [0, 1, 2, 3].map((i) => (L.MAGIC >>> (8 * i)) & 0xff);
    expect(String.fromCharCode(...bytes)).toBe('SWRK');
  });

  it('flag bits are distinct single bits (the order policy is a 1-bit field)', () => {
    const bits = [L.FLAG_ORDER_MASK, L.FLAG_VICTIM_HINT, L.FLAG_THRESHOLD_LOAD, L.FLAG_GLOBAL_ONLY, L.FLAG_DEBUG];
    for (const b of bits) expect(b & (b - 1), `0x${b.toString(16)} is one bit`).toBe(0);
    expect(bits.reduce((a, b) => a | b, 0)).toBe(bits.reduce((a, b) => a + b, 0));
    expect(L.ORDER_RANDOM & ~L.FLAG_ORDER_MASK).toBe(0);
    expect(L.ORDER_ROUND_ROBIN & ~L.FLAG_ORDER_MASK).toBe(0);
    const park = Object.keys(exported).filter((k) => k.startsWith('PARK_')).map((k) => exported[k] as number);
    expect(park).toContain(L.PARK_P);
    for (const b of park) expect(b & (b - 1), `PARK 0x${b.toString(16)} is one bit`).toBe(0);
    expect(park.reduce((a, b) => a | b, 0)).toBe(park.reduce((a, b) => a + b, 0));
    const join = [L.JOIN_DONE, L.JOIN_DETACHED, L.JOIN_ERROR, L.JOIN_PARENT, L.JOIN_FORK];
    for (const b of join) expect(b & L.JOIN_WAITER_MASK).toBe(0);
    expect(join.reduce((a, b) => a | b, 0)).toBe(join.reduce((a, b) => a + b, 0));
  });

  it('priority classes: distinct values inside the class byte, normal is zero (a zeroed G)', () => {
    const classes = [L.PRIO_NORMAL, L.PRIO_HIGH, L.PRIO_LOW];
    expect(new Set(classes).size).toBe(3);
    expect(L.PRIO_NORMAL).toBe(0);
    for (const c of classes) expect(c & ~L.PRIO_MASK).toBe(0);
    // The class byte leaves the flags byte and the token half alone.
    expect(L.PRIO_MASK & L.GF_CONT).toBe(0);
    expect(L.PRIO_MASK & L.GF_FORK).toBe(0);
    expect(L.GF_CONT & L.GF_FORK).toBe(0);
    expect(L.GF_SHAPED & L.GF_FORK).toBe(0);
    expect(L.PRIO_MASK >>> L.G_TOKEN_SHIFT).toBe(0);
    // The low turn is rarer than the global queue's and the two seldom fall on one slice.
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    expect(L.HIGH_RUNTIME_MS).toBeLessThan(L.HIGH_PERIOD_MS);
    expect(new Set([L.HIGH_OPEN, L.HIGH_THROTTLED, L.HIGH_FREE]).size).toBe(3);
    expect(L.LOW_CHECK_TICKS).toBeGreaterThan(L.GLOBAL_CHECK_TICKS);
    expect(gcd(L.LOW_CHECK_TICKS, L.GLOBAL_CHECK_TICKS)).toBe(1);
  });

  it('G and P states are Go values and distinct', () => {
    const gs = [L.G_IDLE, L.G_RUNNABLE, L.G_RUNNING, L.G_WAITING, L.G_DEAD];
    expect(new Set(gs).size).toBe(gs.length);
    expect(L.P_IDLE).not.toBe(L.P_RUNNING);
  });

  it('lock states, stopM results, M states and trace tags are distinct', () => {
    expect(new Set([L.LOCK_FREE, L.LOCK_HELD, L.LOCK_CONTENDED]).size).toBe(3);
    expect(L.LOCK_FREE).toBe(0); // a zeroed word is a free lock
    expect(new Set([L.GIVEBACK_NONE, L.GIVEBACK_ASKED, L.GIVEBACK_TAKEN]).size).toBe(3);
    expect(L.GIVEBACK_NONE).toBe(0); // a zeroed runtime block asks for nothing
    // stopM's results besides a G: never a G id (ids are > 0).
    expect(L.STOP_SLEEP).toBeLessThanOrEqual(0);
    expect(L.STOP_RETRY).toBeLessThan(0);
    expect(L.STOP_SLEEP).not.toBe(L.STOP_RETRY);
    const ms = Object.keys(exported).filter((k) => k.startsWith('MS_')).map((k) => exported[k] as number);
    expect(new Set(ms).size).toBe(ms.length);
    expect(L.MS_NONE).toBe(0); // a zeroed M block
    // Every tag fits the slot's tag bits, and no two are the same.
    const tags = Object.keys(exported).filter((k) => k.startsWith('TR_EV_') || (k.startsWith('TR_TAG_') && k !== 'TR_TAG_MASK'))
      .map((k) => exported[k] as number);
    expect(new Set(tags).size).toBe(tags.length);
    for (const t of tags) expect(t & ~L.TR_TAG_MASK).toBe(0);
    expect(tags).not.toContain(0); // a zeroed slot is no event
  });
});

describe('layout structure', () => {
  it('regions follow one another on line boundaries, above the wasm static data', () => {
    expect(L.LAYOUT_BASE % L.PAGE).toBe(0);
    expect(L.HEADER).toBe(L.LAYOUT_BASE);
    expect(L.SCHED).toBe(L.HEADER + L.LINE);
    expect(L.COPRIMES).toBe(L.SCHED + 8 * L.LINE);
    expect(L.GDIR).toBe(L.COPRIMES + L.MAX_PROCS * 4);
    expect(L.PS).toBe(L.GDIR + L.GDIR_MAX * 4);
    for (const a of [L.HEADER, L.SCHED, L.COPRIMES, L.GDIR, L.PS]) expect(a % L.LINE).toBe(0);
    expect(L.P_SIZE % L.LINE).toBe(0);
    expect(L.M_SIZE % L.LINE).toBe(0);
    expect(L.G_SIZE % 8).toBe(0);
    expect((L.G_CHUNK * L.G_SIZE) % L.LINE).toBe(0);
  });

  it('header words fit its one line', () => {
    const words = Object.keys(PINNED).filter((k) => k.startsWith('H_')).map((k) => PINNED[k]);
    expectDisjoint(words.map((o) => [`H@${o}`, o, 4]), L.LINE);
  });

  it('scheduler block: lock, lock-free words, free-G head, heap, counters on their own lines', () => {
    const s = (a: number): number => line(a - L.SCHED);
    // Line 0: the lock and what it guards.
    const line0 = [L.S_LOCK, L.S_RUNQ_HEAD, L.S_RUNQ_TAIL, L.S_PIDLE, L.S_MIDLE, L.S_NMIDLE,
      L.S_RUNQH_HEAD, L.S_RUNQH_TAIL, L.S_RUNQL_HEAD, L.S_RUNQL_TAIL];
    for (const a of line0) expect(s(a)).toBe(0);
    expectDisjoint(line0.map((a) => [`S@${a}`, a - L.SCHED, 4]), L.LINE);
    // Line 1: words every spinning M reads lock-free (the three queue sizes among them).
    const line1 = [L.S_RUNQ_SIZE, L.S_NPIDLE, L.S_NMSPINNING, L.S_NEEDSPINNING, L.S_RUNQH_SIZE, L.S_RUNQL_SIZE];
    for (const a of line1) expect(s(a)).toBe(1);
    expectDisjoint(line1.map((a) => [`S@${a}`, a - L.SCHED - L.LINE, 4]), L.LINE);
    // Every scheduler word outside the counter lines is a 4-aligned u32 (the free-G head an i64).
    for (const a of [...line0, ...line1]) expect(a % 4).toBe(0);
    // Line 2: the Treiber stack head (64-bit, so 8-aligned) and its count.
    expect(s(L.S_GFREE_HEAD)).toBe(2);
    expect(s(L.S_GFREE_N)).toBe(2);
    expect(L.S_GFREE_HEAD % 8).toBe(0);
    expect(L.S_GFREE_N).toBeGreaterThanOrEqual(L.S_GFREE_HEAD + 8);
    // Line 3: the heap lock and its class lists, all inside the line.
    expect(s(L.S_HEAP_LOCK)).toBe(3);
    expect(L.S_HEAP_FREE).toBeGreaterThanOrEqual(L.S_HEAP_LOCK + 4);
    expect(s(L.S_HEAP_FREE + L.HEAP_CLASSES * 4 - 1)).toBe(3);
    // Lines 4-5: f64 counters, 8-aligned, disjoint.
    expect(s(L.S_COUNTERS)).toBe(4);
    expect(L.S_COUNTERS % 8).toBe(0);
    expectDisjoint(SC_NAMES.map((k) => [k, PINNED[k], 8]), 2 * L.LINE);
    for (const k of SC_NAMES) expect(PINNED[k] % 8, k).toBe(0);
    // Line 5: the gauges, u32s after the counters.
    expect(s(L.S_NMSPINNING_MAX)).toBe(5);
    expect(L.S_NMSPINNING_MAX).toBeGreaterThanOrEqual(L.S_COUNTERS + L.SC_COUNT * 8);
    // Line 6 the back-off word, line 7 the runtime's.
    expect(s(L.S_DUMMY)).toBe(6);
    for (const k of Object.keys(exported).filter((k) => k.startsWith('S_RT'))) expect(s(exported[k] as number), k).toBe(7);
  });

  it('a P: tail, head, runnext and thief counters each on their own 128-byte line', () => {
    const hot = [L.P_TAIL, L.P_HEAD, L.P_RUNNEXT, L.P_STOLEN_FROM].map(line);
    expect(new Set(hot).size).toBe(4);
    expect(line(L.P_STEAL_FROM_OPS)).toBe(line(L.P_STOLEN_FROM));
    expect(line(L.P_PARK_PROBES)).toBe(line(L.P_STOLEN_FROM));
    expectDisjoint([L.P_STOLEN_FROM, L.P_STEAL_FROM_OPS, L.P_PARK_PROBES].map((o) => [`P@${o}`, o - L.P_STOLEN_FROM, 4]), L.LINE);
    // Owner line A: every other P_ word offset below one line, disjoint u32s.
    const lineA = Object.keys(PINNED).filter((k) => k.startsWith('P_') && !['P_SIZE', 'P_IDLE', 'P_RUNNING'].includes(k)
      && !k.startsWith('P_HIGH_') && PINNED[k] < L.LINE);
    expect(lineA).toContain('P_TAIL');
    expect(lineA).toContain('P_GFREE');
    expectDisjoint(lineA.map((k) => [k, PINNED[k], 4]), L.LINE);
    // Counters: f64, 8-aligned, disjoint, between the thief line and the ring.
    expect(L.P_COUNTERS % 8).toBe(0);
    expect(line(L.P_COUNTERS)).toBeGreaterThan(line(L.P_STOLEN_FROM));
    expectDisjoint(PC_NAMES.map((k) => [k, PINNED[k], 8]), L.LINE);
    for (const k of PC_NAMES) expect(PINNED[k] % 8, k).toBe(0);
    // High work's budget: the owner's line after the counters, two f64s then a u32.
    expect(line(L.P_HIGH_PERIOD)).toBe(line(L.P_COUNTERS) + 1);
    expect(L.P_HIGH_PERIOD % 8).toBe(0);
    expect(L.P_HIGH_USED % 8).toBe(0);
    expectDisjoint([['P_HIGH_PERIOD', L.P_HIGH_PERIOD, 8], ['P_HIGH_USED', L.P_HIGH_USED, 8], ['P_HIGH_STATE', L.P_HIGH_STATE, 4]].map(
      ([k, o, n]) => [k as string, (o as number) - L.P_HIGH_PERIOD, n as number]), L.LINE);
    expect(line(L.P_HIGH_STATE)).toBeLessThan(line(L.P_RUNQ));
    // The operation counters: owner f64s on the same line, after the budget.
    expect(line(L.P_OPS)).toBe(line(L.P_HIGH_PERIOD));
    expect(L.P_OPS % 8).toBe(0);
    expect(L.P_OPS).toBeGreaterThanOrEqual(L.P_HIGH_STATE + 4);
    for (const k of OP_NAMES) expect(PINNED[k] % 8, k).toBe(0);
    expectDisjoint(OP_NAMES.map((k) => [k, L.P_OPS - L.P_HIGH_PERIOD + PINNED[k], 8]), L.LINE);
    // The ring starts on a line of its own; the fork deque's bottom, top and slots follow, each
    // on lines of their own, and end the block.
    expect(L.P_RUNQ % L.LINE).toBe(0);
    expect(L.P_RUNQ + L.RUNQ_SIZE * 4).toBe(L.P_FORKQ_BOTTOM);
    for (const o of [L.P_FORKQ_BOTTOM, L.P_FORKQ_TOP, L.P_FORKQ]) expect(o % L.LINE).toBe(0);
    expect(new Set([L.P_FORKQ_BOTTOM, L.P_FORKQ_TOP, L.P_FORKQ].map(line)).size).toBe(3);
    // The fork counters: owner f64s on the bottom's line (the owner's), after the bottom word.
    for (const o of [L.P_FORK_PUSHES, L.P_FORK_INLINE]) {
      expect(line(o)).toBe(line(L.P_FORKQ_BOTTOM));
      expect(o % 8).toBe(0);
    }
    expectDisjoint([['bottom', 0, 4], ['pushes', L.P_FORK_PUSHES - L.P_FORKQ_BOTTOM, 8], ['inline', L.P_FORK_INLINE - L.P_FORKQ_BOTTOM, 8]], L.LINE);
    expect(L.P_FORKQ + L.FORKQ_SIZE * 4).toBe(L.P_SIZE);
  });

  it('an M: park line, inbox line, runtime line, block cache', () => {
    for (const o of [L.M_PARK, L.M_NEXTP, L.M_SPINNING, L.M_LINK]) expect(line(o)).toBe(0);
    expect(line(L.M_INBOX)).toBe(1);
    expect(line(L.M_RT)).toBe(2);
    // The runtime's words: the f64 ones named here, the rest u32.
    const f64s = new Set(['MR_SPAWNED', 'MR_FINISHED', 'MR_IDLE_MS', 'MR_YIELDS', 'MR_T0', 'MR_SPIN_RUNGS', 'MR_FORK_SLEEPS']);
    const rt: Array<[string, number, number]> = Object.keys(PINNED).filter((k) => k.startsWith('MR_'))
      .map((k) => [k, PINNED[k], f64s.has(k) ? 8 : k === 'MR_BCACHE_N' ? 4 * L.BCACHE_CLASSES : 4]);
    expectDisjoint(rt.map(([n, o, s]) => [n, o - L.M_RT, s]), L.LINE);
    for (const [n, o, s] of rt) if (s === 8) expect(o % 8, n).toBe(0);
    // The block cache's addresses from line D to the M block's end.
    expect(L.M_BCACHE).toBe(3 * L.LINE);
    expect(L.M_BCACHE + L.BCACHE_CLASSES * L.BCACHE_MAX * 4).toBe(L.M_SIZE);
    expect(L.M_SIZE).toBe(7 * L.LINE);
  });

  it('G fields lie inside G_SIZE, do not overlap, and cover it', () => {
    expectDisjoint(G_FIELDS.map(([n, o, s]) => [n, o, s]), L.G_SIZE);
    expect(G_FIELDS.reduce((a, f) => a + f[2], 0)).toBe(L.G_SIZE);
    for (const [n, o, , isF64] of G_FIELDS) {
      if (isF64) expect(o % 8, `${n} is f64`).toBe(0);
      else expect(o % 4, n).toBe(0);
    }
  });

  it('every G field constant appears in the field table', () => {
    const named = new Set(G_FIELDS.map((f) => f[0]));
    const gOffsets = Object.keys(PINNED).filter(
      (k) => k.startsWith('G_') && !['G_SIZE', 'G_INLINE_ARGS', 'G_CHUNK', 'G_CHUNK_SHIFT', 'G_CHUNK_MASK',
        'G_IDLE', 'G_RUNNABLE', 'G_RUNNING', 'G_WAITING', 'G_DEAD', 'G_TOKEN_SHIFT'].includes(k),
    );
    expect(gOffsets.filter((k) => !named.has(k))).toEqual([]);
  });
});

describe.each(BACKENDS)('init lays out fresh memory (%s)', (backend) => {
  it('writes the header the layout describes', async () => {
    const nprocs = 5;
    const maxMs = 7;
    const flags = L.ORDER_ROUND_ROBIN | L.FLAG_VICTIM_HINT;
    const { mem } = await freshCore(backend, { nprocs, maxMs, gcapInit: 1500, gmax: 4 * L.G_CHUNK, flags, stealThreshold: 3 });
    expect(mem.hdr(L.H_MAGIC)).toBe(L.MAGIC);
    expect(mem.hdr(L.H_VERSION)).toBe(L.LAYOUT_VERSION);
    expect(mem.nprocs).toBe(nprocs);
    expect(mem.maxMs).toBe(maxMs);
    expect(mem.gcap).toBe(2 * L.G_CHUNK); // rounded up to whole chunks
    expect(mem.gmax).toBe(4 * L.G_CHUNK);
    expect(mem.flags).toBe(flags);
    expect(mem.hdr(L.H_STEAL_THRESHOLD)).toBe(3);
    expect(mem.hdr(L.H_PBASE)).toBe(L.PS);
    const mBase = mem.hdr(L.H_MBASE);
    expect(mBase).toBeGreaterThanOrEqual(L.PS + nprocs * L.P_SIZE);
    expect(mBase % L.LINE).toBe(0);
    expect(mem.brk).toBeGreaterThanOrEqual(mBase + maxMs * L.M_SIZE);
    expect(mem.brk).toBeLessThanOrEqual(mem.byteLength);
    expect(mem.hdr(L.H_MEMBYTES)).toBe(mem.byteLength);
  });

  it('writes the coprimes of nprocs', async () => {
    for (const nprocs of [1, 2, 6, 12, 64]) {
      const { mem } = await freshCore(backend, { nprocs, maxMs: 2 });
      const want = coprimesOf(nprocs);
      expect(mem.hdr(L.H_NCOPRIMES)).toBe(want.length);
      expect(want.map((_, i) => mem.u32(L.COPRIMES + 4 * i))).toEqual(want);
    }
  });

  it('every P idle, numbered, seeded; every M slot unused', async () => {
    const seed = 0xdeadbeef;
    const { mem } = await freshCore(backend, { nprocs: 6, maxMs: 9, seed });
    for (let p = 0; p < 6; p++) {
      expect(mem.p(p, L.P_STATUS)).toBe(L.P_IDLE);
      expect(mem.p(p, L.P_ID)).toBe(p);
      expect(mem.p(p, L.P_M)).toBe(0);
      expect(mem.p(p, L.P_RAND)).toBe(initialRand(seed, p));
      expect(mem.ring(p)).toEqual([]);
      expect(mem.runnext(p)).toBe(0);
    }
    for (let m = 0; m < 9; m++) {
      for (const o of [L.M_PARK, L.M_NEXTP, L.M_SPINNING, L.M_LINK]) expect(mem.m(m, o)).toBe(0);
    }
  });

  it('G chunks: directory entries 8-aligned, past the M blocks, distinct, Gs dead', async () => {
    const { mem } = await freshCore(backend, { gcapInit: 3 * L.G_CHUNK });
    const mEnd = mem.hdr(L.H_MBASE) + mem.maxMs * L.M_SIZE;
    const chunks = [0, 1, 2].map((c) => mem.u32(L.GDIR + 4 * c));
    for (const c of chunks) {
      expect(c % 8).toBe(0); // G_RESULT and G_ARGS are f64
      expect(c).toBeGreaterThanOrEqual(mEnd);
      expect(c + L.G_CHUNK * L.G_SIZE).toBeLessThanOrEqual(mem.brk);
    }
    expect(new Set(chunks).size).toBe(3);
    expect(mem.u32(L.GDIR + 4 * 3)).toBe(0);
    for (let g = 1; g < 3 * L.G_CHUNK; g++) expect(mem.g(g, L.G_STATUS)).toBe(L.G_DEAD);
  });
});
