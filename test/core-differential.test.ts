// Differential property tests: random legal sequences of core operations applied to the Wasm
// core and its TypeScript twin over two memories initialised identically. Step by step both
// must return the same results, and at the end every byte from LAYOUT_BASE to the end of memory
// must be the same (below LAYOUT_BASE lies the Wasm module's static data, which the twin does
// not have). A tiny pure model of the queues and free lists predicts every queue result too.
//
// Sequences are kept legal by interpreting each generated op against the current state: an op
// whose precondition does not hold (no G to put, thief ring too full, ...) is skipped. On a
// memory mismatch the sequence is replayed comparing after every step, and the message names
// the first diverging step and the layout field that differs.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import * as L from '../assembly/shared/layout.js';
import { Stop, type Core } from '../bindings/core/index.js';
import { coreModule, freshCoreWith, type CoreOptions, type Harness } from './helpers/core.js';
import { firstDifference, globBatch, whereIs } from './helpers/mem.js';

// ---- the pair: one call, both backends, results compared ----------------------------------------

type Method = Exclude<keyof Core, 'init' | 'setCanBlock'>;

class Pair {
  readonly log: string[] = [];
  constructor(readonly a: Harness, readonly b: Harness) {}

  call(name: Method, ...args: number[]): number {
    const fa = this.a.core[name] as (...x: number[]) => number | void;
    const fb = this.b.core[name] as (...x: number[]) => number | void;
    const step = `#${this.log.length} ${name}(${args.join(', ')})`;
    let ra: number | void;
    let rb: number | void;
    try {
      ra = fa(...args);
    } catch (e) {
      throw new Error(`${step}: wasm threw ${(e as Error).message}\n${this.trail()}`);
    }
    try {
      rb = fb(...args);
    } catch (e) {
      throw new Error(`${step}: js threw ${(e as Error).message} (wasm returned ${ra})\n${this.trail()}`);
    }
    const r = (ra ?? 0) as number;
    this.log.push(`${step} = ${r}`);
    if ((ra ?? 0) !== (rb ?? 0)) throw new Error(`${step}: wasm=${ra} js=${rb}\n${this.trail()}`);
    return r;
  }

  /** The same raw store on both memories (what a caller writes itself, e.g. schedlink chains). */
  store(addrOf: (h: Harness) => number, v: number): void {
    this.a.mem.setU32(addrOf(this.a), v);
    this.b.mem.setU32(addrOf(this.b), v);
  }

  trail(): string {
    return this.log.slice(-12).join('\n');
  }

  /** The first differing byte past LAYOUT_BASE, described, or null. */
  difference(): string | null {
    const at = firstDifference(this.a.mem, this.b.mem, L.LAYOUT_BASE);
    if (at < 0) return null;
    if (this.a.mem.byteLength !== this.b.mem.byteLength) {
      return `memory sizes differ: wasm ${this.a.mem.byteLength}, js ${this.b.mem.byteLength}`;
    }
    const w = at & ~3;
    return `byte ${at} (${whereIs(this.a.mem, at)}): wasm word ${this.a.mem.u32(w)}, js word ${this.b.mem.u32(w)}`;
  }
}

// ---- the pure model of the queues and free lists ----------------------------------------------

class Model {
  rings: number[][];
  runnext: number[];
  global: number[] = [];
  high: number[] = [];
  low: number[] = [];
  gfLocal: number[][]; // top first
  gfGlobal: number[] = []; // top first
  forks: number[][]; // top (oldest) first
  gcap: number;

  constructor(readonly nprocs: number, gcapInit: number, readonly gmax: number) {
    this.rings = Array.from({ length: nprocs }, () => []);
    this.forks = Array.from({ length: nprocs }, () => []);
    this.runnext = new Array<number>(nprocs).fill(0);
    this.gfLocal = Array.from({ length: nprocs }, () => []);
    this.gcap = 0;
    while (this.gcap < gcapInit) this.grow();
  }

  grow(): boolean {
    if (this.gcap >= this.gmax) return false;
    const ids: number[] = [];
    for (let g = this.gcap; g < this.gcap + L.G_CHUNK; g++) if (g !== 0) ids.push(g);
    this.gfGlobal = [...ids, ...this.gfGlobal];
    this.gcap += L.G_CHUNK;
    return true;
  }

  gfGet(p: number): number {
    for (;;) {
      if (p >= 0) {
        const local = this.gfLocal[p];
        if (local.length === 0) {
          for (let i = 0; i < L.GFREE_LOCAL_KEEP && this.gfGlobal.length > 0; i++) local.unshift(this.gfGlobal.shift()!);
        }
        if (local.length > 0) return local.shift()!;
      } else if (this.gfGlobal.length > 0) {
        return this.gfGlobal.shift()!;
      }
      if (!this.grow()) return 0;
    }
  }

  gfPut(p: number, g: number): void {
    if (p < 0) {
      this.gfGlobal.unshift(g);
      return;
    }
    const local = this.gfLocal[p];
    local.unshift(g);
    if (local.length >= L.GFREE_LOCAL_MAX) {
      while (local.length >= L.GFREE_LOCAL_KEEP) this.gfGlobal.unshift(local.shift()!);
    }
  }

  runqPut(p: number, g: number, next: number): void {
    if (next) {
      const old = this.runnext[p];
      this.runnext[p] = g;
      if (old === 0) return;
      g = old;
    }
    const ring = this.rings[p];
    if (ring.length < L.RUNQ_SIZE) {
      ring.push(g);
      return;
    }
    const batch = ring.splice(0, L.RUNQ_HALF);
    batch.push(g);
    this.global.push(...batch);
  }

  runqGet(p: number): number {
    if (this.runnext[p] !== 0) {
      const g = this.runnext[p];
      this.runnext[p] = 0;
      return g;
    }
    return this.rings[p].shift() ?? 0;
  }

  runqSteal(t: number, v: number, srn: number): number {
    const vr = this.rings[v];
    const n = vr.length - (vr.length >> 1);
    if (n === 0) {
      if (srn && this.runnext[v] !== 0) {
        const g = this.runnext[v];
        this.runnext[v] = 0;
        return g;
      }
      return 0;
    }
    const batch = vr.splice(0, n);
    const last = batch.pop()!;
    this.rings[t].push(...batch);
    return last;
  }

  /** forkHelp(p, m, victim, anywhere): the victim's oldest fork, then (anywhere) p's runnext
   *  and ring, then p+1, p+2's oldest forks (DESIGN.md "Fork-join"). */
  forkHelp(p: number, victim: number, anywhere: boolean): number {
    if (victim >= 0 && victim !== p && this.forks[victim].length > 0) return this.forks[victim].shift()!;
    if (!anywhere) return 0;
    const g = this.runqGet(p);
    if (g !== 0) return g;
    for (let k = 1; k < this.nprocs; k++) {
      const f = this.forks[(p + k) % this.nprocs];
      if (f.length > 0) return f.shift()!;
    }
    return 0;
  }

  /** ready(p, g, next) of a G of class cls (DESIGN.md "Priority classes"). */
  ready(p: number, g: number, next: number, cls: number, globalOnly: boolean): void {
    if (cls === L.PRIO_HIGH) this.high.push(g);
    else if (cls !== L.PRIO_NORMAL) this.low.push(g);
    else if (p >= 0 && !globalOnly) this.runqPut(p, g, next);
    else this.global.push(g);
  }

  globrunqGet(p: number, max: number): number {
    const n = globBatch(this.global.length, this.nprocs, max);
    if (n === 0) return 0;
    const taken = this.global.splice(0, n);
    for (const g of taken.slice(1)) this.runqPut(p, g, 0);
    return taken[0];
  }
}

/** Class of a value block: max(0, ceil(log2(size + 8)) - 4). */
function sizeClass(size: number): number {
  let c = 0;
  while (2 ** (c + L.HEAP_MIN_SHIFT) < size + L.BLOCK_HEADER) c++;
  return c;
}

// ---- generated ops ----------------------------------------------------------------------------

const sel = fc.nat({ max: 1 << 16 });
const bit = fc.integer({ min: 0, max: 1 });

type QOp =
  | { k: 'gfGet'; p: number }
  | { k: 'gfPut'; p: number; pick: number }
  | { k: 'runnable'; pick: number }
  | { k: 'cancel'; pick: number }
  | { k: 'runqPut'; p: number; pick: number; next: number }
  | { k: 'ready'; p: number; pick: number; next: number; prio: number }
  | { k: 'spawnMany'; p: number; n: number }
  | { k: 'runqGet'; p: number }
  | { k: 'runqSteal'; p: number; v: number; srn: number }
  | { k: 'runqEmpty'; p: number }
  | { k: 'runqLen'; p: number }
  | { k: 'globrunqPut'; pick: number }
  | { k: 'globrunqPutBatch'; pick: number; n: number }
  | { k: 'globrunqGet'; p: number; max: number }
  | { k: 'heapAlloc'; size: number }
  | { k: 'heapFree'; pick: number }
  | { k: 'forkPush'; p: number; pick: number }
  | { k: 'forkMany'; p: number; n: number }
  | { k: 'forkPop'; p: number }
  | { k: 'forkHelp'; p: number; v: number; anywhere: boolean }
  | { k: 'forkLen'; p: number }
  | { k: 'forkNew'; p: number; spare: boolean; pick: number; argc: number; x: number }
  | { k: 'forkDone'; p: number; pick: number }
  | { k: 'spawnNew'; p: number; argc: number; x: number; prio: number }
  | { k: 'joinLink'; pick: number; par: number; i: number; word: number }
  | { k: 'finishLinked'; p: number; pick: number; par: number; last: boolean }
  | { k: 'finishSlot'; p: number; pick: number; par: number; i: number; argc: number; linked: boolean; last: boolean; tag: number; x: number }
  | { k: 'joinTasks'; p: number; pick: number; kids: number[]; done: boolean[]; prio: number };

const pSel = fc.integer({ min: -1, max: 15 }); // -1: global / no P; else taken mod nprocs

/** A G_PRIO word: a class byte (normal most often, sometimes one above PRIO_LOW, which reads
 *  as low), and sometimes a token and the continuation flag, which ready must leave alone. */
const prioWord = fc.tuple(
  fc.constantFrom(L.PRIO_NORMAL, L.PRIO_NORMAL, L.PRIO_HIGH, L.PRIO_LOW, 0x42),
  fc.constantFrom(0, 0, 1, 0xffff),
  fc.boolean(),
).map(([cls, token, cont]) => (cls | (cont ? L.GF_CONT : 0) | (token << L.G_TOKEN_SHIFT)) >>> 0);

const qOp: fc.Arbitrary<QOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant('gfGet' as const), p: pSel }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('gfPut' as const), p: pSel, pick: sel }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('runnable' as const), pick: sel }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('cancel' as const), pick: sel }) },
  { weight: 8, arbitrary: fc.record({ k: fc.constant('runqPut' as const), p: sel, pick: sel, next: bit }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('ready' as const), p: pSel, pick: sel, next: bit, prio: prioWord }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('spawnMany' as const), p: sel, n: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant('runqGet' as const), p: sel }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('runqSteal' as const), p: sel, v: sel, srn: bit }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('runqEmpty' as const), p: sel }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('runqLen' as const), p: sel }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('globrunqPut' as const), pick: sel }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('globrunqPutBatch' as const), pick: sel, n: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('globrunqGet' as const), p: sel, max: fc.constantFrom(0, 1, 2, 5, 200) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('heapAlloc' as const), size: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 5000 })) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('heapFree' as const), pick: sel }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('forkPush' as const), p: sel, pick: sel }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('forkMany' as const), p: sel, n: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('forkPop' as const), p: sel }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('forkHelp' as const), p: sel, v: pSel, anywhere: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('forkLen' as const), p: sel }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('forkNew' as const), p: sel, spare: fc.boolean(), pick: sel, argc: fc.integer({ min: 0, max: L.G_INLINE_ARGS }), x: fc.double({ noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('forkDone' as const), p: sel, pick: sel }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('joinLink' as const), pick: sel, par: sel, i: fc.integer({ min: 0, max: 6 }), word: fc.constantFrom(0, L.JOIN_DONE, L.JOIN_DONE | L.JOIN_DETACHED, L.JOIN_FORK, L.JOIN_PARENT) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('finishLinked' as const), p: pSel, pick: sel, par: sel, last: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('finishSlot' as const), p: pSel, pick: sel, par: sel, i: fc.integer({ min: 0, max: 11 }), argc: fc.integer({ min: 1, max: 12 }), linked: fc.boolean(), last: fc.boolean(), tag: fc.constantFrom(L.TAG_NUMBER, L.TAG_BLOCK, L.TAG_ERROR, L.TAG_TRUE), x: fc.double() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('joinTasks' as const), p: pSel, pick: sel, kids: fc.array(sel, { minLength: 1, maxLength: 4 }), done: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), prio: prioWord }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('spawnNew' as const), p: sel, argc: fc.integer({ min: 0, max: L.G_INLINE_ARGS }), x: fc.double({ noNaN: true }), prio: prioWord }) },
);

interface Setup {
  nprocs: number;
  chunks: number;
  extra: number;
  seed: number;
  debug: boolean;
}

const setup: fc.Arbitrary<Setup> = fc.record({
  nprocs: fc.integer({ min: 1, max: 6 }),
  chunks: fc.integer({ min: 1, max: 2 }),
  extra: fc.integer({ min: 0, max: 2 }),
  seed: fc.nat(),
  debug: fc.boolean(),
});

function take<T>(xs: T[], pick: number): T | undefined {
  if (xs.length === 0) return undefined;
  return xs.splice(pick % xs.length, 1)[0];
}

let modules: { wasm: WebAssembly.Module | null; js: WebAssembly.Module | null };

function makePair(opts: Partial<CoreOptions>): Pair {
  const o: Partial<CoreOptions> = { initialPages: 8, maximumPages: 128, ...opts };
  return new Pair(freshCoreWith('wasm', modules.wasm, o), freshCoreWith('js', modules.js, o));
}

/** Runs a queue sequence; with everyStep, compares the memories after each op. */
function runQueues(s: Setup, ops: QOp[], everyStep: boolean): Pair {
  const gcapInit = s.chunks * L.G_CHUNK;
  const gmax = (s.chunks + s.extra) * L.G_CHUNK;
  const pair = makePair({ nprocs: s.nprocs, maxMs: 2, gcapInit, gmax, seed: s.seed, flags: s.debug ? L.FLAG_DEBUG : 0 });
  const model = new Model(s.nprocs, gcapInit, gmax);
  const dead: number[] = [];
  const runnable: number[] = [];
  const blocks: number[] = [];
  const heapFree = new Map<number, number[]>();
  const blockClass = new Map<number, number>();
  const n = s.nprocs;
  const expectModel = (got: number, want: number, what: string): void => {
    if (got !== want) throw new Error(`${what}: cores ${got}, model ${want}\n${pair.trail()}`);
  };
  const gfGet = (p: number): number => {
    const g = pair.call('gfGet', p);
    expectModel(g, model.gfGet(p), `gfGet(${p})`);
    if (g !== 0) pair.call('gAddr', g);
    return g;
  };

  /** heapAlloc on both cores, checked against the model's free lists; the block stays live. */
  const heapAlloc = (size: number): number => {
    const c = sizeClass(size);
    const brk = pair.a.mem.brk;
    const a = pair.call('heapAlloc', size);
    if (a === 0) throw new Error(`heapAlloc(${size}) failed\n${pair.trail()}`);
    const list = heapFree.get(c) ?? [];
    if (list.length > 0) expectModel(a, list.pop()!, `heapAlloc(${size}) reuse`);
    else if (a - L.BLOCK_HEADER < brk) throw new Error(`heapAlloc(${size}) = ${a}: fresh block below brk ${brk}`);
    blocks.push(a);
    blockClass.set(a, c);
    return a;
  };

  ops.forEach((op, i) => {
    switch (op.k) {
      case 'gfGet': {
        const g = gfGet(op.p < 0 ? -1 : op.p % n);
        if (g !== 0) dead.push(g);
        break;
      }
      case 'gfPut': {
        const g = take(dead, op.pick);
        if (g === undefined) return;
        const p = op.p < 0 ? -1 : op.p % n;
        pair.call('gfPut', p, g);
        model.gfPut(p, g);
        break;
      }
      case 'runnable': {
        const g = take(dead, op.pick);
        if (g === undefined) return;
        pair.call('gSetStatus', g, L.G_DEAD, L.G_RUNNABLE);
        runnable.push(g);
        break;
      }
      case 'cancel': {
        const g = take(runnable, op.pick);
        if (g === undefined) return;
        pair.call('gSetStatus', g, L.G_RUNNABLE, L.G_DEAD);
        dead.push(g);
        break;
      }
      case 'runqPut': {
        const g = take(runnable, op.pick);
        if (g === undefined) return;
        const p = op.p % n;
        pair.call('runqPut', p, g, op.next);
        model.runqPut(p, g, op.next);
        break;
      }
      case 'ready': {
        // Any class from a dead G: ready may also try a wake-up, which finds no idle M here.
        const g = take(dead, op.pick);
        if (g === undefined) return;
        const p = op.p < 0 ? -1 : op.p % n;
        pair.store((h) => h.mem.gAddr(g) + L.G_PRIO, op.prio);
        pair.call('ready', p, g, op.next);
        model.ready(p, g, op.next, op.prio & L.PRIO_MASK, false);
        break;
      }
      case 'spawnMany': {
        const p = op.p % n;
        for (let j = 0; j < op.n; j++) {
          const g = gfGet(-1);
          if (g === 0) break;
          pair.call('gSetStatus', g, L.G_DEAD, L.G_RUNNABLE);
          pair.call('runqPut', p, g, 0);
          model.runqPut(p, g, 0);
        }
        break;
      }
      case 'runqGet': {
        const p = op.p % n;
        const g = pair.call('runqGet', p);
        expectModel(g, model.runqGet(p), `runqGet(${p})`);
        if (g !== 0) runnable.push(g);
        break;
      }
      case 'runqSteal': {
        const t = op.p % n;
        const v = op.v % n;
        if (t === v || model.rings[t].length > L.RUNQ_HALF - 1) return;
        const g = pair.call('runqSteal', t, v, op.srn);
        expectModel(g, model.runqSteal(t, v, op.srn), `runqSteal(${t}, ${v}, ${op.srn})`);
        if (g !== 0) runnable.push(g);
        break;
      }
      case 'runqEmpty': {
        const p = op.p % n;
        const want = model.rings[p].length === 0 && model.runnext[p] === 0 ? 1 : 0;
        expectModel(pair.call('runqEmpty', p), want, `runqEmpty(${p})`);
        break;
      }
      case 'runqLen': {
        const p = op.p % n;
        expectModel(pair.call('runqLen', p), model.rings[p].length, `runqLen(${p})`);
        break;
      }
      case 'globrunqPut': {
        const g = take(runnable, op.pick);
        if (g === undefined) return;
        pair.call('globrunqPut', g);
        model.global.push(g);
        break;
      }
      case 'globrunqPutBatch': {
        const gs: number[] = [];
        for (let j = 0; j < op.n; j++) {
          const g = take(runnable, op.pick);
          if (g === undefined) break;
          gs.push(g);
        }
        if (gs.length === 0) return;
        gs.forEach((g, j) => pair.store((h) => h.mem.gAddr(g) + L.G_SCHEDLINK, j + 1 < gs.length ? gs[j + 1] : 0));
        pair.call('globrunqPutBatch', gs[0], gs[gs.length - 1], gs.length);
        model.global.push(...gs);
        break;
      }
      case 'globrunqGet': {
        const p = op.p % n;
        if (model.rings[p].length > L.RUNQ_HALF) return; // the n-1 extras must fit without a spill
        const g = pair.call('globrunqGet', p, op.max);
        expectModel(g, model.globrunqGet(p, op.max), `globrunqGet(${p}, ${op.max})`);
        if (g !== 0) runnable.push(g);
        break;
      }
      case 'heapAlloc': {
        heapAlloc(op.size);
        break;
      }
      case 'forkPush':
      case 'forkMany': {
        const p = op.p % n;
        const count = op.k === 'forkPush' ? 1 : op.n;
        for (let j = 0; j < count; j++) {
          const g = op.k === 'forkPush' ? take(dead, op.pick) : gfGet(p);
          if (g === undefined || g === 0) return;
          const full = model.forks[p].length >= L.FORKQ_SIZE;
          expectModel(pair.call('forkPush', p, 0, g, 0), full ? 0 : 1, `forkPush(${p}, ${g})`);
          if (full) dead.push(g);
          else model.forks[p].push(g);
        }
        break;
      }
      case 'forkPop':
      case 'forkHelp': {
        const p = op.p % n;
        let g: number;
        if (op.k === 'forkPop') {
          g = pair.call('forkPop', p, 0);
          expectModel(g, model.forks[p].pop() ?? 0, `forkPop(${p})`);
        } else {
          const v = op.v < 0 ? -1 : op.v % n;
          g = pair.call('forkHelp', p, 0, v, op.anywhere ? 1 : 0);
          expectModel(g, model.forkHelp(p, v, op.anywhere), `forkHelp(${p}, ${v}, ${op.anywhere})`);
        }
        if (g !== 0) {
          pair.call('gSetStatus', g, L.G_RUNNING, L.G_DEAD); // it ran and finished
          dead.push(g);
        }
        break;
      }
      case 'forkNew': {
        // A fork of argc numbers (x, x + 1, ..., x + 6) from M 0, on a spare (a dead G) or a fresh G.
        const p = op.p % n;
        const spare = op.spare ? take(dead, op.pick) ?? 0 : 0;
        if (spare !== 0) { // kept by the runtime after an inline run: marked a done orphan
          pair.store((h) => h.mem.gAddr(spare) + L.G_PARENT, (L.PARENT_SPAWNER | 0) >>> 0);
          pair.store((h) => h.mem.gAddr(spare) + L.G_JOIN, L.JOIN_DONE);
        }
        const full = model.forks[p].length >= L.FORKQ_SIZE;
        const want = spare !== 0 ? spare : model.gfGet(p);
        const r = pair.call('forkNew', p, 0, spare, 7, op.argc, op.x, op.x + 1, op.x + 2, op.x + 3, op.x + 4, op.x + 5, op.x + 6);
        expectModel(r, want === 0 ? 0 : full ? -want : want, `forkNew(${p}, spare ${spare})`);
        if (want === 0) return;
        if (full) dead.push(want);
        else model.forks[p].push(want);
        break;
      }
      case 'joinLink': {
        // A continuation links a child (dead Gs stand in for both) whose join word is `word`.
        if (dead.length === 0) return;
        const c = dead[op.pick % dead.length];
        const g = dead[op.par % dead.length];
        pair.store((h) => h.mem.gAddr(c) + L.G_JOIN, op.word);
        const r = pair.call('joinLink', g, c, op.i);
        expectModel(r, (op.word & L.JOIN_DONE) !== 0 ? 0 : 1, `joinLink(${g}, ${c}) over ${op.word}`);
        pair.store((h) => h.mem.gAddr(c) + L.G_JOIN, 0); // a plain dead G again for the ops that follow
        pair.store((h) => h.mem.gAddr(c) + L.G_PARENT, 0);
        break;
      }
      case 'finishLinked': {
        // A linked child (a dead G) finished into its continuation (another dead G, a normal
        // one): freed, and the continuation readied when its count reaches 0.
        if (dead.length < 2) return;
        const c = take(dead, op.pick)!;
        const pi = op.par % dead.length;
        const pg = dead[pi];
        const p = op.p < 0 ? -1 : op.p % n;
        pair.store((h) => h.mem.gAddr(pg) + L.G_PRIO, 0);
        pair.store((h) => h.mem.gAddr(pg) + L.G_PENDING, op.last ? 1 : 2);
        const r = pair.call('finishLinked', p, c, pg);
        model.gfPut(p, c);
        expectModel(r, op.last ? 1 : 0, `finishLinked(${p}, ${c}, ${pg})`);
        if (op.last) {
          dead.splice(pi, 1);
          model.ready(p, pg, 1, L.PRIO_NORMAL, false);
        }
        break;
      }
      case 'finishSlot': {
        // A G that ran (G_RUNNING) finished with a result in one slot's form (tag, x): linked, it
        // goes into slot i of its continuation (another dead G, a normal one) and is freed, the
        // continuation readied when its count reaches 0; not linked, nothing changes. (The
        // cores only copy tag and payload: x stands for a block's address too.)
        if (dead.length < 2) return;
        const c = take(dead, op.pick)!;
        const pi = op.par % dead.length;
        const pg = dead[pi];
        const p = op.p < 0 ? -1 : op.p % n;
        const i = op.i % op.argc;
        pair.store((h) => h.mem.gAddr(c), L.G_RUNNING);
        pair.store((h) => h.mem.gAddr(c) + L.G_JOIN, op.linked ? L.JOIN_PARENT : 0);
        pair.store((h) => h.mem.gAddr(c) + L.G_PARENT, pg);
        pair.store((h) => h.mem.gAddr(c) + L.G_INDEX, i);
        pair.store((h) => h.mem.gAddr(pg) + L.G_PRIO, L.GF_CONT);
        pair.store((h) => h.mem.gAddr(pg) + L.G_ARGC, op.argc);
        // Past G_INLINE_ARGS slots the continuation's slots are in its spill block.
        pair.store((h) => h.mem.gAddr(pg) + L.G_SPILL, op.argc > L.G_INLINE_ARGS ? heapAlloc(op.argc * 9) : 0);
        pair.store((h) => h.mem.gAddr(pg) + L.G_PENDING, op.last ? 1 : 2);
        const r = pair.call('finishSlot', p, c, L.G_RUNNING, op.tag, op.x);
        expectModel(r, op.linked ? 1 : 0, `finishSlot(${p}, ${c}) ${op.linked ? 'linked' : 'not linked'}`);
        if (!op.linked) {
          pair.store((h) => h.mem.gAddr(c), L.G_DEAD); // untouched: a plain dead G again
          pair.store((h) => h.mem.gAddr(c) + L.G_PARENT, 0);
          dead.push(c);
          break;
        }
        model.gfPut(p, c);
        if (op.last) {
          dead.splice(pi, 1);
          model.ready(p, pg, 1, L.PRIO_NORMAL, false);
        }
        break;
      }
      case 'joinTasks': {
        // A G that returned a join (G_WAITING) over 1 to 4 children (dead Gs standing in, each
        // done with a number result or not yet): the done ones are freed into their slots, the
        // continuation readied when every child was done; linked ones become plain dead Gs again.
        const g = take(dead, op.pick);
        if (g === undefined) return;
        const kids: number[] = [];
        for (const k of op.kids) {
          const c = take(dead, k);
          if (c !== undefined) kids.push(c);
        }
        if (kids.length === 0) { dead.push(g); return; }
        const p = op.p < 0 ? -1 : op.p % n;
        pair.store((h) => h.mem.gAddr(g), L.G_WAITING);
        pair.store((h) => h.mem.gAddr(g) + L.G_PRIO, (op.prio | L.GF_SHAPED) >>> 0); // a shape the join must drop
        kids.forEach((c, i) => {
          pair.store((h) => h.mem.gAddr(c) + L.G_JOIN, op.done[i] ? L.JOIN_DONE : 0);
          pair.store((h) => h.mem.gAddr(c) + L.G_RESULT_TAG, op.done[i] ? L.TAG_NUMBER : 0);
          pair.store((h) => h.mem.gAddr(c) + L.G_RESULT, 1000 + i);
        });
        const all = kids.every((_, i) => op.done[i]);
        const r = pair.call('joinTasks', p, g, 9, kids.length, kids[0], kids[1] ?? 0, kids[2] ?? 0, kids[3] ?? 0);
        expectModel(r, all ? 1 : 0, `joinTasks(${p}, ${g}) over ${kids.join(',')}`);
        kids.forEach((c, i) => {
          if (op.done[i]) { model.gfPut(p, c); return; }
          pair.store((h) => h.mem.gAddr(c) + L.G_JOIN, 0); // linked: a plain dead G again
          pair.store((h) => h.mem.gAddr(c) + L.G_PARENT, 0);
          dead.push(c);
        });
        if (all) model.ready(p, g, 1, op.prio & L.PRIO_MASK, false);
        else {
          pair.store((h) => h.mem.gAddr(g), L.G_DEAD); // still waiting for the linked ones: a dead G again
          pair.store((h) => h.mem.gAddr(g) + L.G_PRIO, 0);
          dead.push(g);
        }
        break;
      }
      case 'spawnNew': {
        // ctx.spawn of argc numbers (x, x + 1, .., x + 6) from M 0: gfGet, the fields, newproc.
        const p = op.p % n;
        const want = model.gfGet(p);
        const r = pair.call('spawnNew', p, 0, 7, op.argc, op.x, op.x + 1, op.x + 2, op.x + 3, op.x + 4, op.x + 5, op.x + 6, op.prio, 0);
        expectModel(r, want, `spawnNew(${p})`);
        if (want !== 0) model.ready(p, want, 1, op.prio & L.PRIO_MASK, false);
        break;
      }
      case 'forkDone': {
        const g = take(dead, op.pick);
        if (g === undefined) return;
        const p = op.p % n;
        pair.store((h) => h.mem.gAddr(g) + L.G_PARENT, (L.PARENT_SPAWNER | 0) >>> 0); // a spare's marks
        pair.store((h) => h.mem.gAddr(g) + L.G_JOIN, L.JOIN_DONE);
        pair.call('forkDone', p, g);
        model.gfPut(p, g);
        break;
      }
      case 'forkLen': {
        const p = op.p % n;
        expectModel(pair.call('forkLen', p), model.forks[p].length, `forkLen(${p})`);
        break;
      }
      case 'heapFree': {
        const a = take(blocks, op.pick);
        if (a === undefined) return;
        pair.call('heapFree', a);
        const c = blockClass.get(a)!;
        heapFree.set(c, [...(heapFree.get(c) ?? []), a]);
        break;
      }
    }
    if (everyStep) {
      const d = pair.difference();
      if (d !== null) throw new Error(`memory differs after op ${i} ${JSON.stringify(op)}: ${d}\n${pair.trail()}`);
    }
  });

  // The model's queues and free lists are what both memories hold.
  for (const h of [pair.a, pair.b]) {
    for (let p = 0; p < n; p++) {
      expect(h.mem.ring(p), `${h.backend} ring ${p}`).toEqual(model.rings[p]);
      expect(h.mem.runnext(p), `${h.backend} runnext ${p}`).toBe(model.runnext[p]);
      expect(h.mem.forkq(p), `${h.backend} fork deque ${p}`).toEqual(model.forks[p]);
      expect(h.mem.gfreeLocal(p), `${h.backend} gfree ${p}`).toEqual(model.gfLocal[p]);
    }
    expect(h.mem.globalQueue(), `${h.backend} global queue`).toEqual(model.global);
    expect(h.mem.highQueue(), `${h.backend} high queue`).toEqual(model.high);
    expect(h.mem.lowQueue(), `${h.backend} low queue`).toEqual(model.low);
    expect(h.mem.gfreeGlobal(), `${h.backend} global free stack`).toEqual(model.gfGlobal);
    expect(h.mem.gcap).toBe(model.gcap);
    expect(h.mem.lockWord).toBe(0);
    expect(h.mem.u32(L.S_HEAP_LOCK)).toBe(0);
    const held = dead.length + runnable.length;
    expect(h.mem.allFree().length + h.mem.allQueued().length + held).toBe(h.mem.gcap - 1);
  }
  return pair;
}

// ---- scheduler sequences ----------------------------------------------------------------------

type SOp =
  | { k: 'wakep' }
  | { k: 'acquire'; m: number }
  | { k: 'find'; m: number }
  | { k: 'stop'; m: number }
  | { k: 'finish'; m: number }
  | { k: 'block'; m: number }
  | { k: 'spawn'; who: number; next: number; prio: number }
  | { k: 'spawnMany'; who: number; n: number; prio: number }
  | { k: 'mTake' }
  | { k: 'mGive'; pick: number }
  | { k: 'wake'; pick: number; who: number; next: number }
  | { k: 'threshold' }
  | { k: 'order'; p: number; r: number; i: number }
  | { k: 'len'; p: number }
  | { k: 'empty'; p: number }
  | { k: 'heapAlloc'; size: number }
  | { k: 'heapFree'; pick: number }
  | { k: 'charge'; m: number; gap: number; d: number }
  | { k: 'fork'; m: number; n: number }
  | { k: 'joinPop'; m: number }
  | { k: 'help'; m: number; v: number };

const sOp: fc.Arbitrary<SOp> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ k: 'wakep' as const }) },
  { weight: 5, arbitrary: fc.record({ k: fc.constant('acquire' as const), m: sel }) },
  { weight: 12, arbitrary: fc.record({ k: fc.constant('find' as const), m: sel }) },
  { weight: 8, arbitrary: fc.record({ k: fc.constant('stop' as const), m: sel }) },
  { weight: 10, arbitrary: fc.record({ k: fc.constant('finish' as const), m: sel }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('block' as const), m: sel }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant('spawn' as const), who: sel, next: bit, prio: prioWord }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('spawnMany' as const), who: sel, n: fc.oneof(fc.integer({ min: 2, max: 20 }), fc.integer({ min: 250, max: 300 })), prio: prioWord }) },
  { weight: 1, arbitrary: fc.constant({ k: 'mTake' as const }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('mGive' as const), pick: sel }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('wake' as const), pick: sel, who: sel, next: bit }) },
  { weight: 1, arbitrary: fc.constant({ k: 'threshold' as const }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('order' as const), p: sel, r: fc.nat({ max: 0xffffffff }), i: sel }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('len' as const), p: sel }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('empty' as const), p: sel }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('heapAlloc' as const), size: fc.integer({ min: 0, max: 3000 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('heapFree' as const), pick: sel }) },
  // A running G's time charged (DESIGN.md "High work's budget"): `gap` quarter-ms since the
  // last charge, `d` quarter-ms of run time, short or near a whole budget, so Ps throttle
  // (a high G of 90 ms or more) and periods pass.
  { weight: 6, arbitrary: fc.record({ k: fc.constant('charge' as const), m: sel, gap: fc.integer({ min: 0, max: 100 }), d: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 360, max: 800 })) }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('fork' as const), m: sel, n: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 250, max: 260 })) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('joinPop' as const), m: sel }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('help' as const), m: sel, v: sel }) },
);

interface SchedSetup {
  nprocs: number;
  extraMs: number;
  order: number;
  hint: boolean;
  load: boolean;
  globalOnly: boolean;
  debug: boolean;
  threshold: number;
  seed: number;
}

const schedSetup: fc.Arbitrary<SchedSetup> = fc.record({
  nprocs: fc.integer({ min: 1, max: 5 }),
  extraMs: fc.integer({ min: 0, max: 2 }),
  order: fc.constantFrom(L.ORDER_RANDOM, L.ORDER_ROUND_ROBIN),
  hint: fc.boolean(),
  load: fc.boolean(),
  globalOnly: fc.boolean(),
  debug: fc.boolean(),
  threshold: fc.integer({ min: 1, max: 4 }),
  seed: fc.nat(),
});

function runSched(s: SchedSetup, ops: SOp[], everyStep: boolean): Pair {
  const flags = s.order | (s.hint ? L.FLAG_VICTIM_HINT : 0) | (s.load ? L.FLAG_THRESHOLD_LOAD : 0)
    | (s.globalOnly ? L.FLAG_GLOBAL_ONLY : 0) | (s.debug ? L.FLAG_DEBUG : 0);
  const maxMs = s.nprocs + 1 + s.extraMs; // M0 (main) plus at least one M per P
  const pair = makePair({
    nprocs: s.nprocs, maxMs, gcapInit: L.G_CHUNK, gmax: 3 * L.G_CHUNK, flags, stealThreshold: s.threshold, seed: s.seed,
  });
  const workers = Array.from({ length: maxMs - 1 }, (_, i) => i + 1);
  for (const m of workers) pair.call('mPut', m);
  const holding = new Map<number, number>(); // M -> P it holds
  const curG = new Map<number, number>(); // M -> G it runs
  const mayStop = new Set<number>(); // Ms whose last findRunnable returned 0
  const taken = new Set<number>(); // Ms reserved by mTake (off the idle list, asleep)
  const waiting: number[] = [];
  const blocks: number[] = [];
  const pick = <T>(xs: T[], k: number): T | undefined => (xs.length === 0 ? undefined : xs[k % xs.length]);
  const holders = (): number[] => workers.filter((m) => holding.has(m));
  /** Who makes work runnable: main (-1, no P) or an M running a G (its P). */
  const spawner = (who: number): number | undefined => {
    const running = holders().filter((m) => curG.has(m));
    if (who % (running.length + 1) === 0) return -1;
    return running[(who % (running.length + 1)) - 1];
  };
  const pOf = (m: number): number => (m < 0 ? -1 : holding.get(m)!);
  let clock = 0; // ms, the runtime's clock as chargeTime sees it

  ops.forEach((op, i) => {
    switch (op.k) {
      case 'wakep':
        pair.call('wakep');
        break;
      case 'acquire': {
        const woken = workers.filter((m) => pair.a.mem.m(m, L.M_NEXTP) !== 0);
        const m = pick(woken, op.m);
        if (m === undefined) return;
        // The M's sleep loop consumed its park word before taking the P.
        pair.store((h) => h.mem.mAddr(m) + L.M_PARK, 0);
        const p = pair.call('acquireP', m);
        holding.set(m, p);
        break;
      }
      case 'find': {
        const m = pick(holders().filter((x) => !curG.has(x)), op.m);
        if (m === undefined) return;
        const g = pair.call('findRunnable', holding.get(m)!, m);
        if (g !== 0) {
          curG.set(m, g);
          mayStop.delete(m);
        } else {
          mayStop.add(m);
        }
        break;
      }
      case 'stop': {
        const m = pick([...mayStop].filter((x) => holding.has(x) && !curG.has(x)), op.m);
        if (m === undefined) return;
        const r = pair.call('stopM', holding.get(m)!, m);
        mayStop.delete(m);
        if (r > 0) {
          curG.set(m, r);
        } else {
          holding.delete(m);
          if (r !== Stop.Sleep && r !== Stop.Retry) throw new Error(`stopM returned ${r}\n${pair.trail()}`);
        }
        break;
      }
      case 'finish':
      case 'block': {
        const m = pick(holders().filter((x) => curG.has(x)), op.m);
        if (m === undefined) return;
        const g = curG.get(m)!;
        curG.delete(m);
        if (op.k === 'finish') {
          pair.call('gSetStatus', g, L.G_RUNNING, L.G_DEAD);
          pair.call('gfPut', holding.get(m)!, g);
        } else {
          pair.call('gSetStatus', g, L.G_RUNNING, L.G_WAITING);
          waiting.push(g);
        }
        break;
      }
      case 'spawn':
      case 'spawnMany': {
        const who = spawner(op.who);
        if (who === undefined) return;
        const p = pOf(who);
        const count = op.k === 'spawn' ? 1 : op.n;
        for (let j = 0; j < count; j++) {
          const g = pair.call('gfGet', p);
          if (g === 0) break;
          pair.store((h) => h.mem.gAddr(g) + L.G_PRIO, op.prio);
          pair.call('ready', p, g, op.k === 'spawn' ? op.next : 0);
        }
        if (who >= 0) mayStop.delete(who);
        break;
      }
      case 'wake': {
        const who = spawner(op.who);
        const g = take(waiting, op.pick);
        if (who === undefined || g === undefined) {
          if (g !== undefined) waiting.push(g);
          return;
        }
        pair.call('ready', pOf(who), g, op.next);
        if (who >= 0) mayStop.delete(who);
        break;
      }
      case 'mTake': {
        const m = pair.call('mTake');
        if (m >= 0) {
          if (holding.has(m) || taken.has(m) || pair.a.mem.m(m, L.M_NEXTP) !== 0) {
            throw new Error(`mTake gave M${m}, which is not idle\n${pair.trail()}`);
          }
          taken.add(m);
        }
        break;
      }
      case 'mGive': {
        const m = pick([...taken], op.pick);
        if (m === undefined) return;
        taken.delete(m);
        pair.call('mPut', m);
        break;
      }
      case 'fork': {
        // An M running a G forks: the forks go on its P's deque (or stay with it when full:
        // the forker runs them, so they finish here at once).
        const m = pick(holders().filter((x) => curG.has(x)), op.m);
        if (m === undefined) return;
        const p = holding.get(m)!;
        for (let j = 0; j < op.n; j++) {
          const g = pair.call('gfGet', p);
          if (g === 0) break;
          if (pair.call('forkPush', p, m, g, curG.get(m)!) === 0) pair.call('gfPut', p, g);
        }
        break;
      }
      case 'joinPop':
      case 'help': {
        // A joiner takes its newest fork back, or helps: the G runs and finishes inline.
        const m = pick(holders().filter((x) => curG.has(x)), op.m);
        if (m === undefined) return;
        const p = holding.get(m)!;
        const g = op.k === 'joinPop' ? pair.call('forkPop', p, m) : pair.call('forkHelp', p, m, (op.v % (s.nprocs + 1)) - 1, op.v & 1);
        if (g !== 0) {
          pair.call('gSetStatus', g, L.G_RUNNING, L.G_DEAD);
          pair.call('gfPut', p, g);
        }
        break;
      }
      case 'threshold':
        pair.call('stealThreshold');
        break;
      case 'order':
        pair.call('stealOrderAt', op.p % s.nprocs, op.r, op.i % s.nprocs);
        break;
      case 'len':
        pair.call('runqLen', op.p % s.nprocs);
        break;
      case 'empty':
        pair.call('runqEmpty', op.p % s.nprocs);
        break;
      case 'heapAlloc': {
        const a = pair.call('heapAlloc', op.size);
        if (a !== 0) blocks.push(a);
        break;
      }
      case 'heapFree': {
        const a = take(blocks, op.pick);
        if (a !== undefined) pair.call('heapFree', a);
        break;
      }
      case 'charge': {
        const m = pick(holders().filter((x) => curG.has(x)), op.m);
        if (m === undefined) return;
        const start = clock + op.gap / 4;
        clock = start + op.d / 4;
        pair.call('chargeTime', holding.get(m)!, pair.a.mem.gClass(curG.get(m)!), start, clock);
        break;
      }
    }
    if (everyStep) {
      const d = pair.difference();
      if (d !== null) throw new Error(`memory differs after op ${i} ${JSON.stringify(op)}: ${d}\n${pair.trail()}`);
    }
  });

  // Invariants of the protocol, read from both memories.
  for (const h of [pair.a, pair.b]) {
    const { mem } = h;
    const where = `${h.backend}`;
    expect(mem.lockWord, where).toBe(0);
    // Conservation: every G id below gcap is in exactly one place, in the matching state.
    const places: Array<[number[], number]> = [
      [mem.allFree(), L.G_DEAD], [mem.allQueued(), L.G_RUNNABLE], [[...curG.values()], L.G_RUNNING], [waiting, L.G_WAITING],
    ];
    const seen = new Set<number>();
    for (const [gs, status] of places) {
      for (const g of gs) {
        if (seen.has(g)) throw new Error(`${where}: G ${g} in two places\n${pair.trail()}`);
        seen.add(g);
        expect(mem.g(g, L.G_STATUS), `${where}: G ${g}`).toBe(status);
      }
    }
    expect(seen.size, `${where}: every G accounted for`).toBe(mem.gcap - 1);
    // Classes: rings, runnext slots and the global queue hold normal Gs only; each class queue
    // its own class (a class byte above PRIO_LOW reads as low).
    for (let p = 0; p < s.nprocs; p++) {
      for (const g of mem.ring(p)) expect(mem.gClass(g), `${where}: P${p} ring G${g}`).toBe(L.PRIO_NORMAL);
      if (mem.runnext(p) !== 0) expect(mem.gClass(mem.runnext(p)), `${where}: P${p} runnext`).toBe(L.PRIO_NORMAL);
    }
    for (const g of mem.globalQueue()) expect(mem.gClass(g), `${where}: global G${g}`).toBe(L.PRIO_NORMAL);
    for (const g of mem.highQueue()) expect(mem.gClass(g), `${where}: high G${g}`).toBe(L.PRIO_HIGH);
    for (const g of mem.lowQueue()) expect([L.PRIO_NORMAL, L.PRIO_HIGH], `${where}: low G${g}`).not.toContain(mem.gClass(g));
    // Ps: idle ones on the idle list; held ones running with their M; handed-over ones in between.
    const pidle = mem.pidle();
    expect(mem.npidle, where).toBe(pidle.length);
    const handed = new Map<number, number>();
    for (const m of workers) if (mem.m(m, L.M_NEXTP) !== 0) handed.set(mem.m(m, L.M_NEXTP) - 1, m);
    for (let p = 0; p < s.nprocs; p++) {
      const holder = [...holding].find(([, q]) => q === p)?.[0];
      if (holder !== undefined) {
        expect(mem.p(p, L.P_STATUS), `${where}: P${p} held`).toBe(L.P_RUNNING);
        expect(mem.p(p, L.P_M), `${where}: P${p} held`).toBe(holder + 1);
        expect(pidle).not.toContain(p);
      } else if (handed.has(p)) {
        expect(pidle).not.toContain(p);
      } else {
        expect(pidle, `${where}: P${p} idle`).toContain(p);
        expect(mem.p(p, L.P_STATUS), `${where}: P${p} idle`).toBe(L.P_IDLE);
      }
    }
    // Ms: idle ones are those neither holding nor handed a P; spinning ones are counted.
    const midle = [...mem.midle()].sort((x, y) => x - y);
    expect(midle, where).toEqual(workers.filter((m) => !holding.has(m) && !taken.has(m) && mem.m(m, L.M_NEXTP) === 0));
    expect(mem.nmidle, where).toBe(midle.length);
    const spinning = workers.filter((m) => mem.m(m, L.M_SPINNING) !== 0).length;
    expect(mem.nmspinning, `${where}: nmspinning`).toBe(spinning);
    // High work's budget: a known state, charged time never negative.
    for (let p = 0; p < s.nprocs; p++) {
      const a = mem.pAddr(p);
      expect([L.HIGH_OPEN, L.HIGH_THROTTLED, L.HIGH_FREE], `${where}: P${p} budget state`).toContain(mem.u32(a + L.P_HIGH_STATE));
      expect(mem.f64(a + L.P_HIGH_USED), `${where}: P${p} charged`).toBeGreaterThanOrEqual(0);
    }
  }
  return pair;
}

/** Runs fast, then on a memory mismatch replays comparing after every step to name the op. */
function checkMemory(run: (everyStep: boolean) => Pair): void {
  const pair = run(false);
  const d = pair.difference();
  if (d === null) return;
  run(true); // throws at the first diverging step
  throw new Error(`memory differs at the end only: ${d}`);
}

describe('differential: Wasm core vs TypeScript twin', () => {
  beforeAll(async () => {
    modules = { wasm: await coreModule('wasm'), js: await coreModule('js') };
  });

  it('queue and free-list ops (ready of every class among them): same results, same bytes, and the model agrees', { timeout: 180_000 }, () => {
    fc.assert(
      fc.property(setup, fc.array(qOp, { minLength: 20, maxLength: 300, size: 'max' }), (s, ops) => {
        checkMemory((everyStep) => runQueues(s, ops, everyStep));
      }),
      { numRuns: 150 },
    );
  });

  it('scheduler ops (ready of every class, findRunnable, stopM, wakep, acquireP, mTake, chargeTime, ...): same results, same bytes, invariants hold', { timeout: 180_000 }, () => {
    fc.assert(
      fc.property(schedSetup, fc.array(sOp, { minLength: 20, maxLength: 300, size: 'max' }), (s, ops) => {
        checkMemory((everyStep) => runSched(s, ops, everyStep));
      }),
      { numRuns: 300 },
    );
  });

  it('a long fixed sequence exercises growth, overflow and wrap-around in both cores alike', () => {
    const ops: QOp[] = [];
    for (let i = 0; i < 40; i++) {
      ops.push({ k: 'spawnMany', p: i, n: 300 });
      ops.push({ k: 'runqSteal', p: i + 1, v: i, srn: 1 });
      for (let j = 0; j < 100; j++) ops.push({ k: 'runqGet', p: i + (j % 3) });
      ops.push({ k: 'globrunqGet', p: i + 2, max: 0 });
      for (let j = 0; j < 150; j++) ops.push({ k: j % 2 ? 'cancel' : 'gfPut', pick: j, p: (i + j) % 5 - 1 } as QOp);
      ops.push({ k: 'heapAlloc', size: 100 * i });
    }
    checkMemory((everyStep) => runQueues({ nprocs: 4, chunks: 1, extra: 3, seed: 1, debug: true }, ops, everyStep));
  });
});
