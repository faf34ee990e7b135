// Golden checks on the compiled core: the critical sites lower to atomic instructions, so a
// refactor cannot quietly turn one into a plain load or store (docs/DESIGN.md, "Local run
// queue", "Global run queue", "Free Gs", "Spin, then park").
//
// Method. Both text forms are read after `npm run build`:
// - build/stealwork.debug.wat is unoptimised and keeps one function per source function with
//   its name (only @inline helpers are folded in), so each site is pinned in the very function
//   that implements it, by instruction and by its layout offset immediate (P_HEAD, P_RUNNEXT..).
// - build/stealwork.wat is the -O3 release that ships. Binaryen inlines freely there, so a site
//   can move into a caller; each export is checked over its call closure (the export's body plus
//   every function it can call), which holds the site wherever the inliner put it.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';

interface Wat {
  funcs: Map<string, string>;
  exports: Map<string, string>;
  text: string;
}

function readWat(path: string): Wat {
  const text = readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
  const funcs = new Map<string, string>();
  const starts = [...text.matchAll(/^ \(func \$(\S+)/gm)];
  starts.forEach((m, i) => {
    const end = i + 1 < starts.length ? starts[i + 1].index : text.length;
    funcs.set(m[1], text.slice(m.index, end));
  });
  const exports = new Map<string, string>();
  for (const m of text.matchAll(/\(export "(\w+)" \(func \$(\S+)\)\)/g)) exports.set(m[1], m[2]);
  return { funcs, exports, text };
}

/** The body of one function; fails the test if it is missing. */
function body(wat: Wat, name: string): string {
  const b = wat.funcs.get(name);
  if (b === undefined) throw new Error(`no function $${name} in the .wat`);
  return b;
}

/** An export's body plus every function it can reach by `call`. */
function closure(wat: Wat, exportName: string): string {
  const root = wat.exports.get(exportName);
  if (root === undefined) throw new Error(`no export "${exportName}"`);
  const seen = new Set<string>();
  const todo = [root];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const m of body(wat, f).matchAll(/call \$(\S+)/g)) {
      if (wat.funcs.has(m[1])) todo.push(m[1]); // not an import (abort)
    }
  }
  return [...seen].map((f) => body(wat, f)).join('\n');
}

const escape = (s: string): string => s.replace(/[.$]/g, '\\$&');

/** Lines of `code` that are exactly instruction `op` with immediate offset `offset` (0: none). */
function sites(code: string, op: string, offset = 0): number {
  const re = new RegExp(`^\\s*${escape(op)}${offset === 0 ? '' : ` offset=${offset}`}$`, 'gm');
  return [...code.matchAll(re)].length;
}

/** Offsets of every plain `op` (i32.store, i32.load) in `code`. */
function plainOffsets(code: string, op: string): number[] {
  const re = new RegExp(`^\\s*${escape(op)}(?: offset=(\\d+))?$`, 'gm');
  return [...code.matchAll(re)].map((m) => (m[1] === undefined ? 0 : Number(m[1])));
}

/**
 * Whether `code` pushes the absolute layout address named `name`: as a literal once optimised,
 * as a read of the layout module's constant global in the unoptimised debug build.
 */
function usesAddr(code: string, name: keyof typeof L): boolean {
  return new RegExp(`(i32\\.const ${L[name]}|global\\.get \\$assembly/shared/layout/${name})$`, 'm').test(code);
}

const CAS = 'i32.atomic.rmw.cmpxchg';
const CAS64 = 'i64.atomic.rmw.cmpxchg';
const XCHG = 'i32.atomic.rmw.xchg';
const ALOAD = 'i32.atomic.load';
const ASTORE = 'i32.atomic.store';
const WAIT = 'memory.atomic.wait32';
const NOTIFY = 'memory.atomic.notify';

describe('wasm core golden: debug build, per source function', () => {
  const wat = readWat('build/stealwork.debug.wat');
  const f = (name: string): string => body(wat, `assembly/${name}`);

  it('runqPut: runnext swap by CAS, head load atomic, tail published by an atomic store', () => {
    const code = f('runq/runqPut');
    expect(sites(code, ALOAD, L.P_RUNNEXT)).toBeGreaterThan(0);
    expect(sites(code, CAS, L.P_RUNNEXT)).toBe(1);
    expect(sites(code, ALOAD, L.P_HEAD)).toBe(1);
    expect(sites(code, ASTORE, L.P_TAIL)).toBe(1);
    // Its only plain stores are ring slots: tail, head and runnext are never stored plainly.
    expect(plainOffsets(code, 'i32.store')).toEqual([L.P_RUNQ]);
  });

  it('runqPutSlow: claims the oldest half by CAS on head', () => {
    const code = f('runq/runqPutSlow');
    expect(sites(code, CAS, L.P_HEAD)).toBe(1);
    expect(plainOffsets(code, 'i32.store')).not.toContain(L.P_HEAD);
    expect(plainOffsets(code, 'i32.store')).not.toContain(L.P_TAIL);
  });

  it('runqGet: runnext taken by CAS, ring head claimed by CAS', () => {
    expect(sites(f('runq/runqGet'), CAS, L.P_RUNNEXT)).toBe(1);
    const ring = f('runq/runqGetRing');
    expect(sites(ring, ALOAD, L.P_HEAD)).toBe(1);
    expect(sites(ring, CAS, L.P_HEAD)).toBe(1);
    expect(plainOffsets(ring, 'i32.store')).toEqual([]);
  });

  it('runqGrab: atomic head and tail loads, CAS on head and on runnext, 3 us wait', () => {
    const code = f('runq/runqGrab');
    expect(sites(code, ALOAD, L.P_HEAD)).toBe(1);
    expect(sites(code, ALOAD, L.P_TAIL)).toBe(1);
    expect(sites(code, ALOAD, L.P_RUNNEXT)).toBe(1);
    expect(sites(code, CAS, L.P_HEAD)).toBe(1);
    expect(sites(code, CAS, L.P_RUNNEXT)).toBe(1);
    expect(plainOffsets(code, 'i32.store')).toEqual([L.P_RUNQ, L.P_RUNQ]);
    expect(sites(f('thread/backoff'), WAIT)).toBe(1);
  });

  it('runqSteal: publishes by an atomic tail store, victim counters by atomic adds', () => {
    const code = f('runq/runqSteal');
    expect(sites(code, ASTORE, L.P_TAIL)).toBe(1);
    expect(sites(code, ALOAD, L.P_HEAD)).toBe(1);
    expect(sites(code, 'i32.atomic.rmw.add', L.P_STOLEN_FROM)).toBe(1);
    expect(sites(code, 'i32.atomic.rmw.add', L.P_STEAL_FROM_OPS)).toBe(1);
  });

  it('runqEmpty and runqLen: every load atomic, tail read twice in runqEmpty', () => {
    const empty = f('runq/runqEmpty');
    expect(sites(empty, ALOAD, L.P_TAIL)).toBe(2);
    expect(sites(empty, ALOAD, L.P_HEAD)).toBe(1);
    expect(sites(empty, ALOAD, L.P_RUNNEXT)).toBe(1);
    expect(plainOffsets(empty, 'i32.load')).toEqual([]);
    const len = f('runq/runqLen');
    expect(sites(len, ALOAD, L.P_TAIL) + sites(len, ALOAD, L.P_HEAD)).toBe(2);
    expect(plainOffsets(len, 'i32.load')).toEqual([]);
  });

  it('global free stack: 64-bit versioned head, loaded and CASed atomically', () => {
    for (const name of ['gfstack/gfPushGlobal', 'gfstack/gfPopGlobal', 'gfstack/gfPushBatch']) {
      const code = f(name);
      expect(usesAddr(code, 'S_GFREE_HEAD'), name).toBe(true);
      expect(sites(code, 'i64.atomic.load'), name).toBe(1);
      expect(sites(code, CAS64), name).toBe(1);
      expect(code, name).not.toMatch(/^\s*i64\.store/m);
    }
    expect(sites(f('gfstack/gfPopGlobal'), ALOAD, L.G_SCHEDLINK)).toBe(1);
  });

  it('sched.lock and the heap lock: CAS fast path, xchg + wait32 slow path, xchg + notify unlock', () => {
    for (const name of ['lock/schedLock', 'lock/heapLock']) {
      expect(sites(f(name), CAS), name).toBe(1);
      expect(f(name), name).toMatch(/call \$assembly\/lock\/lockSlow/);
    }
    expect(sites(f('lock/lockSlow'), XCHG)).toBe(1);
    expect(sites(f('lock/lockSlow'), WAIT)).toBe(1);
    expect(sites(f('lock/lockSlow'), ALOAD)).toBe(1); // the spin of a thread that may not block
    for (const name of ['lock/schedUnlock', 'lock/heapUnlock']) {
      expect(sites(f(name), XCHG), name).toBe(1);
      expect(sites(f(name), NOTIFY), name).toBe(1);
    }
    expect(usesAddr(f('lock/schedLock'), 'S_LOCK')).toBe(true);
    expect(usesAddr(f('lock/heapLock'), 'S_HEAP_LOCK')).toBe(true);
  });

  it('wakep and stopM: nmspinning by atomic RMW (the StoreLoad point), park bit set by atomic OR and notified', () => {
    const wakep = f('sched/wakep');
    expect(usesAddr(wakep, 'S_NMSPINNING')).toBe(true);
    expect(sites(wakep, CAS)).toBe(1);
    expect(sites(wakep, 'i32.atomic.rmw.or', L.M_PARK)).toBe(1);
    expect(sites(wakep, NOTIFY)).toBe(1);
    expect(sites(f('sched/stopM'), 'i32.atomic.rmw.sub')).toBe(1);
    expect(sites(f('sched/resetSpinning'), 'i32.atomic.rmw.sub')).toBe(1);
  });

  it('class queues: sizes stored atomically under sched.lock and read atomically; ready loads G_PRIO once', () => {
    for (const name of ['classq/classqPut', 'classq/classqPopLocked']) {
      const code = f(name);
      expect(usesAddr(code, 'S_RUNQH_SIZE'), name).toBe(true);
      expect(usesAddr(code, 'S_RUNQL_SIZE'), name).toBe(true);
      expect(sites(code, ALOAD), name).toBe(1);
      expect(sites(code, ASTORE), name).toBe(1);
    }
    const put = f('classq/classqPut');
    expect(put).toMatch(/call \$assembly\/lock\/schedLock/);
    expect(put).toMatch(/call \$assembly\/lock\/schedUnlock/);
    // findRunnable and stopM's recheck read every queue size by atomic load: the sched words
    // are the only ones at offset 0, and neither function loads one plainly.
    for (const name of ['sched/findRunnable', 'sched/workAnywhere']) {
      const code = f(name);
      expect(usesAddr(code, 'S_RUNQH_SIZE'), name).toBe(true);
      expect(usesAddr(code, 'S_RUNQL_SIZE'), name).toBe(true);
      expect(plainOffsets(code, 'i32.load'), name).not.toContain(0);
    }
    expect(usesAddr(f('sched/findRunnable'), 'LOW_CHECK_TICKS')).toBe(true);
    // The normal path of ready pays one plain load of the class word, next to the status load.
    const ready = f('sched/ready');
    expect(sites(ready, 'i32.load', L.G_PRIO)).toBe(1);
    expect(ready).toMatch(/call \$assembly\/classq\/classqPut/);
    expect(f('sched/stopM')).toMatch(/call \$assembly\/classq\/classqPopLocked/);
    const take = f('sched/mTake');
    for (const callee of ['lock/schedLock', 'idle/mGet', 'lock/schedUnlock']) {
      expect(take).toMatch(new RegExp(`call \\$assembly/${callee}$`, 'm'));
    }
  });

  it('global queue size and G table growth are published by atomic stores', () => {
    const put = f('globrunq/globrunqPutBatch');
    expect(usesAddr(put, 'S_RUNQ_SIZE')).toBe(true);
    expect(sites(put, ASTORE)).toBe(1);
    expect(sites(f('gtable/gAddr'), ALOAD, L.GDIR)).toBe(1);
    const grow = f('ggrow/growTable');
    expect(sites(grow, ASTORE, L.GDIR)).toBe(1);
    expect(sites(grow, ASTORE, L.H_GCAP)).toBe(1);
  });
});

describe('wasm core golden: which waits are bounded', () => {
  // The lock's sleep has no timeout: unlock always notifies a waiter that may sleep, so a bound
  // could only hide a lost wake-up (DESIGN.md "Global run queue"). The only bounded wait is
  // runqGrab's back-off (Go's usleep(3)) on a word nobody notifies: a pause, not a deadline.
  // Lines before each wait32: [address operand..., timeout operand].
  const waitsIn = (path: string): { timeout: string; fn: string }[] => {
    const out: { timeout: string; fn: string }[] = [];
    for (const [fn, body] of readWat(path).funcs) {
      for (const m of body.matchAll(/^\s*(\S+ \S+)\n\s*memory\.atomic\.wait32$/gm)) out.push({ timeout: m[1], fn });
    }
    return out;
  };

  for (const path of ['build/stealwork.wat', 'build/stealwork.debug.wat']) {
    it(`${path}: the lock sleeps unbounded; only the back-off on S_DUMMY has a timeout`, () => {
      const waits = waitsIn(path);
      const unbounded = waits.filter((w) => w.timeout === 'i64.const -1');
      const bounded = waits.filter((w) => w.timeout !== 'i64.const -1');
      expect(unbounded.length).toBeGreaterThanOrEqual(1); // the lock (inlined where the lock is)
      expect(bounded.length).toBeGreaterThanOrEqual(1); // the back-off
      // Every other wait sleeps on S_DUMMY: the back-off itself, or a function it was inlined into.
      for (const w of bounded) expect(readWat(path).funcs.get(w.fn)).toMatch(new RegExp(`i32\\.const ${L.S_DUMMY}\\b|layout/S_DUMMY\\b`));
    });
  }
});

describe('wasm core golden: release build, per export', () => {
  const wat = readWat('build/stealwork.wat');
  const core = readFileSync(new URL('../bindings/core/core.ts', import.meta.url), 'utf8');
  const iface = core.slice(core.indexOf('export interface Core'));
  const methods = [...iface.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]);

  it('exports exactly the Core interface', () => {
    expect(methods.length).toBeGreaterThan(20);
    expect([...wat.exports.keys()].sort()).toEqual([...methods].sort());
    expect(wat.text).toMatch(/\(import "env" "memory" \(memory \$\S+ \d+ 65536 shared\)\)/);
  });

  it('keeps no mutable module state but the per-instance canBlock and seenEnd (and the stub allocator used only by aborts)', () => {
    const mutable = [...wat.text.matchAll(/^ \(global \$(\S+) \(mut /gm)].map((m) => m[1]);
    expect(mutable.sort()).toEqual(['assembly/bounds/seenEnd', 'assembly/thread/canBlock', '~lib/rt/stub/offset', '~lib/rt/stub/startOffset']);
    // The allocator runs only on the way to abort (building the message), rewound first.
    for (const [name, fn] of wat.funcs) {
      if (/call \$~lib\/rt\/stub\/__new/.test(fn)) {
        expect(name, `${name} allocates`).toMatch(/^~lib\/(string|util\/number)\//);
      }
    }
  });

  const expectations: Record<string, [string, number][]> = {
    runqPut: [[ASTORE, L.P_TAIL], [ALOAD, L.P_HEAD], [CAS, L.P_RUNNEXT], [CAS, L.P_HEAD]],
    runqGet: [[CAS, L.P_RUNNEXT], [CAS, L.P_HEAD], [ALOAD, L.P_HEAD]],
    runqSteal: [[ALOAD, L.P_HEAD], [ALOAD, L.P_TAIL], [CAS, L.P_HEAD], [CAS, L.P_RUNNEXT], [ASTORE, L.P_TAIL], [WAIT, 0]],
    runqEmpty: [[ALOAD, L.P_TAIL], [ALOAD, L.P_HEAD], [ALOAD, L.P_RUNNEXT]],
    gfGet: [[CAS64, 0], ['i64.atomic.load', 0], [CAS, 0], [XCHG, 0]],
    gfPut: [[CAS64, 0], ['i64.atomic.load', 0]],
    globrunqPut: [[CAS, 0], [XCHG, 0], [WAIT, 0], [NOTIFY, 0], [ASTORE, 0]],
    globrunqGet: [[CAS, 0], [XCHG, 0], [WAIT, 0], [NOTIFY, 0], [CAS, L.P_HEAD]],
    findRunnable: [[CAS, L.P_RUNNEXT], [CAS, L.P_HEAD], ['i32.atomic.rmw.sub', 0], [NOTIFY, 0]],
    stopM: [[XCHG, 0], [WAIT, 0], ['i32.atomic.rmw.sub', 0]],
    wakep: [[CAS, 0], [NOTIFY, 0], ['i32.atomic.rmw.or', L.M_PARK]],
    mTake: [[CAS, 0], [XCHG, 0], [WAIT, 0], [NOTIFY, 0]],
    ready: [[CAS, L.P_RUNNEXT], [ASTORE, L.P_TAIL], [NOTIFY, 0]],
    stealWork: [[CAS, L.P_HEAD], [ASTORE, L.P_TAIL]],
    heapAlloc: [[CAS, 0], [XCHG, 0], [WAIT, 0], [NOTIFY, 0]],
    heapFree: [[CAS, 0], [XCHG, 0], [NOTIFY, 0]],
    gAddr: [[ALOAD, L.GDIR]],
  };
  for (const [name, wants] of Object.entries(expectations)) {
    it(`${name}: ${wants.map(([op, off]) => (off === 0 ? op : `${op} +${off}`)).join(', ')}`, () => {
      const code = closure(wat, name);
      for (const [op, off] of wants) expect(sites(code, op, off), `${op} offset=${off}`).toBeGreaterThan(0);
    });
  }
});
