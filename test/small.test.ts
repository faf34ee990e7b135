// The small values' fast path (bindings/codec/small.ts) against the general codec and
// structuredClone. encodeSmall must write, for every value it takes, the very bytes the general
// encoder writes; decodeSmall must read, from every block it takes (whoever wrote it), the value
// the general decoder reads; and both must agree with structuredClone (prototypes, key order,
// -0, holes, named array properties, shared references). What the fast path cannot prove it
// writes exactly it declines (0), or hands over after reading part of it (RESUME), and the
// general encoder then writes the same bytes again, reading nothing twice. Random values
// (fast-check) sit on the edges of the small shapes: a few items more or fewer than
// SMALL_ITEMS, strings around SMALL_STRING and past 0xFF, holes, named properties, getters,
// nested and shared objects, other prototypes.

import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createViews, decodeValue, encodeValue, type Heap } from '../bindings/codec/index.js';
import { encodeGeneral } from '../bindings/codec/encode.js';
import { decodeGeneral } from '../bindings/codec/decode.js';
import { decodeSmall, encodeSmall, NOT_SMALL, RESUME, SMALL_ITEMS, SMALL_STRING } from '../bindings/codec/small.js';
import { TAG_BLOCK, TAG_SHORT } from '../assembly/shared/layout.js';
import { freeSlot, readSlot, writeSlot } from '../bindings/runtime/memory/values.js';
import { shortPayload, SHORT_MAX } from '../bindings/runtime/memory/shortstr.js';

// ---- a heap that counts (every block freed exactly once) ---------------------------------

const PAGE = 65536;
const memory = new WebAssembly.Memory({ initial: 16, maximum: 4096, shared: true });
const views = createViews(memory);

class CountingHeap implements Heap {
  brk = PAGE;
  readonly live = new Set<number>();
  /** Fail the next allocation (returns 0). */
  failNext = false;
  heapAlloc(size: number): number {
    if (this.failNext) {
      this.failNext = false;
      return 0;
    }
    if (this.live.size === 0) this.brk = PAGE;
    const addr = this.brk + 8;
    const end = addr + size + (-size & 7);
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
    this.brk = end;
    this.live.add(addr);
    return addr;
  }
  heapFree(addr: number): void {
    if (!this.live.delete(addr)) throw new Error(`free of ${addr}, not a live block`);
    new Uint8Array(memory.buffer, addr, 8).fill(0xdd); // a freed block reads as garbage
  }
}
const heap = new CountingHeap();

afterEach(() => {
  expect([...heap.live]).toEqual([]);
});

/** The bytes of the block at addr (its length word says how many), then the block freed. */
function take(addr: number): number[] {
  views.refresh();
  const size = views.u32[addr >>> 2]!;
  const bytes = [...views.u8.subarray(addr, addr + size)];
  heap.heapFree(addr);
  return bytes;
}

/** What the general encoder makes of v: its bytes, or the error it throws. */
function general(v: unknown): number[] | Error {
  try {
    return take(encodeGeneral(views, heap, v, 'test', null));
  } catch (e) {
    return e as Error;
  }
}

// ---- the same value? ---------------------------------------------------------------------
//
// Pairs the objects of both graphs one to one (a shared reference must be shared on both
// sides), and paired objects must agree in prototype, length, own enumerable keys in order
// (holes and named properties included) and values (Object.is: -0 and NaN).

function graphDiff(a: unknown, b: unknown, clone = false): string | null {
  const ab = new Map<object, object>();
  function same(x: unknown, y: unknown, path: string): string | null {
    if (typeof x !== typeof y) return `${path}: ${typeof x} vs ${typeof y}`;
    if (typeof x !== 'object' || x === null || y === null) return Object.is(x, y) ? null : `${path}: ${String(x)} vs ${String(y)}`;
    const yo = y as object;
    if (ab.has(x)) return ab.get(x) === yo ? null : `${path}: identity differs`;
    ab.set(x, yo);
    const xp = Object.getPrototypeOf(x) as object | null;
    const yp = Object.getPrototypeOf(yo) as object | null;
    // Against structuredClone (clone): a null prototype is kept, beyond what it keeps.
    if (xp !== yp && !(clone && xp === null && yp === Object.prototype)) return `${path}: prototypes differ`;
    if (Array.isArray(x) && x.length !== (yo as unknown[]).length) return `${path}: length ${x.length} vs ${(yo as unknown[]).length}`;
    const xk = Object.keys(x);
    const yk = Object.keys(yo);
    if (xk.join('\u0000') !== yk.join('\u0000')) return `${path}: keys ${JSON.stringify(xk)} vs ${JSON.stringify(yk)}`;
    for (const k of xk) {
      const d = same((x as Record<string, unknown>)[k], (yo as Record<string, unknown>)[k], `${path}[${JSON.stringify(k)}]`);
      if (d !== null) return d;
    }
    return null;
  }
  return same(a, b, '$');
}

/**
 * The whole check for one value, which `make` builds afresh for each encoder (a getter may
 * count its reads, a value may change as it is read): the fast path's bytes are the general
 * encoder's; its block decodes (fast and general) to the general decoder's value; encodeValue
 * (fast path, then the general encoder from the start or from the handover) writes the general
 * encoder's bytes or throws its error; every general block decodes through decodeValue as through
 * decodeGeneral; and the round trip is structuredClone's copy. Returns what encodeSmall said.
 */
function check(make: () => unknown): number {
  const want = general(make());
  const v = make();
  const small = encodeSmall(views, heap, v);
  if (small > 0) {
    const fast = decodeSmall(views, small);
    if (fast === NOT_SMALL) throw new Error('decodeSmall declined a block encodeSmall wrote');
    const slow = decodeGeneral(views, small, null);
    const d = graphDiff(fast, slow);
    if (d !== null) throw new Error(`decodeSmall vs decodeGeneral: ${d}`);
    const bytes = take(small);
    expect(bytes).toEqual(want);
  } else if (small < 0 && small !== RESUME) {
    throw new Error(`encodeSmall said the heap is full (${small})`);
  }
  let got: number[] | Error;
  let back: unknown;
  try {
    const addr = encodeValue(views, heap, make(), 'test', null);
    back = decodeValue(views, addr, null);
    got = take(addr);
  } catch (e) {
    got = e as Error;
  }
  if (want instanceof Error) {
    expect(got).toBeInstanceOf(Error);
    expect((got as Error).message).toBe(want.message);
    return small;
  }
  expect(got).toEqual(want);
  let expected: unknown;
  try {
    expected = structuredClone(make());
  } catch {
    return small; // refused by structuredClone (a getter that throws)
  }
  const d = graphDiff(back, expected, true);
  if (d !== null) throw new Error(`round trip vs structuredClone: ${d}`);
  return small;
}

// ---- the values ----------------------------------------------------------------------------

/** Strings on both sides of SMALL_STRING and of each kind's edge: ASCII, LATIN1, UTF-16, a lone
 *  surrogate. */
const str = fc.oneof(
  fc.string({ maxLength: SMALL_STRING + 4 }),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom('', 'x', 'caf\u00e9', '\u65e5', 'x\ud800', 'k'.repeat(SMALL_STRING), 'k'.repeat(SMALL_STRING + 1)),
);
const num = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 2 ** 31, -(2 ** 31) - 1, 0.5));
const prim = fc.oneof(num, num, str, fc.boolean(), fc.constant(null), fc.constant(undefined));
/** A leaf the fast path never writes: objects and a bigint. */
const other = fc.oneof(fc.constant('obj'), fc.constant('arr'), fc.constant('big'), fc.constant('date')).map((k) =>
  (k === 'obj' ? { o: 1 } : k === 'arr' ? [1] : k === 'big' ? 1n : new Date(0)) as unknown);
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', '0', '7', 'length', 'k'.repeat(SMALL_STRING + 1), '\u65e5', 'caf\u00e9'));

/** How an array is made unlike a plain one (or not). */
type ArrayTwist = 'none' | 'hole' | 'named' | 'hidden' | 'getter' | 'longer' | 'proto' | 'hiddenIndex';

/** A recipe: building from it afresh gives equal values (check builds each value several times). */
type Recipe =
  | { k: 'array'; items: unknown[]; twist: ArrayTwist; at: number; extra: unknown; shared: boolean }
  | { k: 'object'; entries: [string, unknown][]; proto: 'plain' | 'null' | 'class'; getter: number; shared: boolean }
  | { k: 'string'; s: string };

class Point { x = 1; }

function build(r: Recipe): unknown {
  if (r.k === 'string') return r.s;
  if (r.k === 'array') {
    const sharedObj = { s: 1 };
    const a: unknown[] = r.items.map((x) => (x === 'SHARED' ? sharedObj : x));
    if (r.shared) a.push(sharedObj, sharedObj);
    const i = a.length === 0 ? 0 : r.at % a.length;
    switch (r.twist) {
      case 'hole': if (a.length !== 0) delete a[i]; break;
      case 'named': Object.defineProperty(a, 'x', { value: r.extra, enumerable: true, writable: true, configurable: true }); break;
      case 'hidden': Object.defineProperty(a, 'x', { value: r.extra, enumerable: false, writable: true, configurable: true }); break;
      case 'getter': if (a.length !== 0) { const x = a[i]; Object.defineProperty(a, i, { get: () => x, enumerable: true, configurable: true }); } break;
      case 'longer': a.length += 2; break;
      case 'proto': Object.setPrototypeOf(a, Object.create(Array.prototype) as object); break;
      case 'hiddenIndex': if (a.length !== 0) Object.defineProperty(a, i, { value: a[i], enumerable: false, writable: true, configurable: true }); break;
      default: break;
    }
    return a;
  }
  const o: Record<string, unknown> = r.proto === 'null' ? Object.create(null) as Record<string, unknown> : r.proto === 'class' ? new Point() as unknown as Record<string, unknown> : {};
  const sharedObj = { s: 1 };
  for (const [k, v] of r.entries) {
    Object.defineProperty(o, k, { value: v === 'SHARED' ? sharedObj : v, enumerable: true, writable: true, configurable: true });
  }
  if (r.shared) { o.s1 = sharedObj; o.s2 = sharedObj; }
  const keys = Object.keys(o);
  if (r.getter >= 0 && keys.length !== 0) {
    const k = keys[r.getter % keys.length]!;
    const x = o[k];
    Object.defineProperty(o, k, { get: () => x, enumerable: true, configurable: true });
  }
  return o;
}

const item = fc.oneof({ weight: 8, arbitrary: prim }, { weight: 1, arbitrary: other }, { weight: 1, arbitrary: fc.constant('SHARED') });
const recipe: fc.Arbitrary<Recipe> = fc.oneof(
  fc.record({
    k: fc.constant('array' as const),
    items: fc.oneof(fc.array(num, { maxLength: SMALL_ITEMS + 2 }), fc.array(prim, { maxLength: SMALL_ITEMS + 2 }), fc.array(item, { maxLength: SMALL_ITEMS + 2 })),
    twist: fc.constantFrom<ArrayTwist>('none', 'none', 'none', 'hole', 'named', 'hidden', 'getter', 'longer', 'proto', 'hiddenIndex'),
    at: fc.nat(), extra: prim, shared: fc.boolean(),
  }),
  fc.record({
    k: fc.constant('object' as const),
    entries: fc.array(fc.tuple(key, item), { maxLength: SMALL_ITEMS + 2 }),
    proto: fc.constantFrom<'plain' | 'null' | 'class'>('plain', 'plain', 'plain', 'null', 'class'),
    getter: fc.integer({ min: -3, max: 20 }), shared: fc.boolean(),
  }),
  fc.record({ k: fc.constant('string' as const), s: str }),
);

// ---- the tests -----------------------------------------------------------------------------

describe('the fast path writes and reads what the general codec does', () => {
  it('takes the small shapes, hands over or declines the rest', () => {
    expect(check(() => [1, -0, 2.5])).toBeGreaterThan(0);
    expect(check(() => [])).toBeGreaterThan(0);
    expect(check(() => ['a', true, null, undefined, 3, -0, NaN])).toBeGreaterThan(0);
    expect(check(() => ({ id: 7, name: 'row 7', ok: true }))).toBeGreaterThan(0);
    expect(check(() => Object.assign(Object.create(null) as object, { a: 1 }))).toBeGreaterThan(0);
    expect(check(() => 'caf\u00e9')).toBeGreaterThan(0);
    expect(check(() => Array.from({ length: SMALL_ITEMS }, (_, i) => i))).toBeGreaterThan(0);
    expect(check(() => [1, { o: 1 }])).toBe(RESUME); // read 1, then met an object
    expect(check(() => ({ a: 1, b: [2] }))).toBe(RESUME);
    expect(check(() => ['x', 1n])).toBe(RESUME); // a bigint: the general encoder writes it
    expect(check(() => Array.from({ length: SMALL_ITEMS + 1 }, (_, i) => i))).toBe(0);
    // eslint-disable-next-line no-sparse-arrays
    expect(check(() => [1, , 3])).toBe(0); // a hole
    expect(check(() => Object.assign([1, 2], { x: 'named' }))).toBe(0);
    expect(check(() => new Point())).toBe(0); // refused by both: the same TypeError
    expect(check(() => ({ ['\u65e5']: 1 }))).toBe(RESUME); // a UTF-16 key, found as the block is written
    expect(check(() => 'x'.repeat(SMALL_STRING + 1))).toBe(0);
    expect(check(() => '\u65e5')).toBe(0);
  });

  it('a hole filled by an indexed property of Array.prototype is no element of a small array', () => {
    Object.defineProperty(Array.prototype, 1, { value: 5, configurable: true, writable: true });
    try {
      // eslint-disable-next-line no-sparse-arrays
      expect(encodeSmall(views, heap, [1, , 3])).toBe(0);
      // eslint-disable-next-line no-sparse-arrays
      expect(encodeSmall(views, heap, Object.assign([1, , 3], { x: 1 }))).toBe(0); // the same count of keys
      // eslint-disable-next-line no-sparse-arrays
      expect(check(() => [1, , 3])).toBe(0); // and the general encoder leaves the hole too
    } finally {
      delete (Array.prototype as unknown as Record<number, unknown>)[1];
    }
  });

  it(`random values on the edges of the small shapes (fast-check)`, () => {
    let small = 0, resumed = 0, declined = 0;
    fc.assert(fc.property(recipe, (r) => {
      const said = check(() => build(r));
      if (said > 0) small++;
      else if (said === RESUME) resumed++;
      else declined++;
    }), { numRuns: 3000 });
    // the generator reaches all three outcomes
    expect(small).toBeGreaterThan(300);
    expect(resumed).toBeGreaterThan(100);
    expect(declined).toBeGreaterThan(100);
  });

  it('decodeSmall takes from any block only what it reads as the general decoder does', () => {
    fc.assert(fc.property(recipe, fc.nat(), (r, n) => {
      // any block (the general encoder's, nested values included), and a few bytes of it spoiled
      let addr: number;
      try {
        addr = encodeGeneral(views, heap, build(r), 'test', null);
      } catch {
        return;
      }
      try {
        const fast = decodeSmall(views, addr);
        if (fast !== NOT_SMALL) expect(graphDiff(fast, decodeGeneral(views, addr, null))).toBeNull();
        // A low bit of one of the two low bytes of a word: a kind, a count by at most 1024, an
        // offset or a payload (not a length of millions, which only makes the test slow).
        views.refresh();
        const size = views.u32[addr >>> 2]!;
        const at = addr + 4 * ((n >>> 3) % (size >>> 2)) + ((n >>> 2) & 1);
        views.u8[at] ^= 1 << (n & 3);
        let slow: unknown = NOT_SMALL;
        let slowError: unknown = null;
        try {
          slow = decodeGeneral(views, addr, null);
        } catch (e) {
          slowError = e;
        }
        const spoiled = decodeSmall(views, addr);
        if (spoiled === NOT_SMALL) return;
        expect(slowError).toBeNull(); // what the fast path reads, the general decoder reads too
        expect(graphDiff(spoiled, slow)).toBeNull();
      } finally {
        heap.heapFree(addr);
      }
    }), { numRuns: 1000 });
  });
});

describe('reads, errors and the heap', () => {
  it('reads each element and property once, as structuredClone does, taken or handed over', () => {
    for (const tail of [3, { o: 1 }, 1n]) {
      let reads = 0;
      const o = { a: 1, get b() { reads++; return 2; }, c: tail };
      const addr = encodeValue(views, heap, o, 'test', null);
      expect(reads).toBe(1);
      reads = 0;
      structuredClone(o);
      expect(reads).toBe(1);
      heap.heapFree(addr);
      let elementReads = 0;
      const a: unknown[] = [1, 2, tail];
      Object.defineProperty(a, 1, { get: () => { elementReads++; return 2; }, enumerable: true, configurable: true });
      heap.heapFree(encodeValue(views, heap, a, 'test', null));
      expect(elementReads).toBeLessThanOrEqual(typeof tail === 'number' ? 1 : 3); // the general encoder's array path reads twice more
    }
  });

  it('a getter that throws gives the general encoder\'s TypeError, with its path', () => {
    const o = { a: 1, get b(): number { throw new RangeError('no b'); } };
    expect(() => encodeValue(views, heap, o, "spawn('f'): argument 1", null))
      .toThrow("spawn('f'): argument 1 .b could not be read (RangeError: no b)");
    expect(() => encodeValue(views, heap, o, 'x', null)).toThrow(TypeError);
    const a: unknown[] = [1, 2];
    Object.defineProperty(a, 1, { get: () => { throw new RangeError('no 1'); }, enumerable: true, configurable: true });
    expect(() => encodeValue(views, heap, a, 'the result', null)).toThrow('the result [1] could not be read (RangeError: no 1)');
    expect(() => encodeGeneral(views, heap, a, 'the result', null)).toThrow('the result [1] could not be read (RangeError: no 1)');
  });

  it('a getter that encodes a small value of its own leaves the outer one whole', () => {
    let inner = 0;
    const o = { a: 1, get b() { inner = encodeValue(views, heap, [7, 8], 'inner', null); return 'b'; }, c: 'c' };
    const addr = encodeValue(views, heap, o, 'outer', null);
    expect(graphDiff(decodeValue(views, addr, null), { a: 1, b: 'b', c: 'c' })).toBeNull();
    expect(graphDiff(decodeValue(views, inner, null), [7, 8])).toBeNull();
    heap.heapFree(addr);
    heap.heapFree(inner);
  });

  it('a full heap is the general encoder\'s RangeError, with the block\'s size', () => {
    heap.failNext = true;
    expect(() => encodeValue(views, heap, [1, 2, 3], "spawn('f'): argument 2", null))
      .toThrow("spawn('f'): argument 2: out of shared memory (a value block of 32 bytes)");
    heap.failNext = true;
    expect(() => encodeValue(views, heap, 'hi', 'r', null)).toThrow('r: out of shared memory (a value block of 12 bytes)');
  });

  it('a block that is not one (freed, or garbage) is the general decoder\'s RangeError', () => {
    const addr = encodeValue(views, heap, [1, 2, 3], 'test', null);
    views.u32[addr >>> 2] = 3; // not a block length
    expect(decodeSmall(views, addr)).toBe(NOT_SMALL);
    expect(() => decodeValue(views, addr, null)).toThrow(RangeError);
    heap.heapFree(addr);
  });
});

describe('a short string in the slot itself (the runtime\'s TAG_SHORT)', () => {
  const TAG = 1024;
  const SLOT = 1032;

  it('takes up to seven code units below 0x100, and gives back the very string', () => {
    fc.assert(fc.property(fc.oneof(str, fc.string({ maxLength: SHORT_MAX + 2 })), (x) => {
      writeSlot(views, heap, TAG, SLOT, x, 'test', 0, null);
      const short = x.length <= SHORT_MAX && [...x].every((c) => c.charCodeAt(0) < 0x100) && !/[\ud800-\udfff]/.test(x);
      expect(views.u8[TAG]).toBe(short ? TAG_SHORT : TAG_BLOCK);
      expect(readSlot(views, TAG, SLOT, null)).toBe(x);
      freeSlot(views, heap, TAG, SLOT);
      // Its payload is a plain double (never a NaN, whose bits an engine may change): it crosses
      // a JS number, as the core's finishSlot takes it, bit for bit.
      const p = shortPayload(x);
      if (short) {
        expect(Number.isNaN(p) || p < 0).toBe(false);
        const f = new Float64Array([p]);
        const again = new Float64Array(1);
        again[0] = f[0]!;
        expect(new Uint8Array(again.buffer)).toEqual(new Uint8Array(f.buffer));
      } else {
        expect(p).toBe(-1);
      }
    }), { numRuns: 2000 });
  });
});
