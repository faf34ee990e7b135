// The value codec (bindings/codec/): slots, value blocks, errors, shared buffers, memory growth.
//
// Every test runs over one shared WebAssembly.Memory and a test heap (a bump allocator above
// 64 KiB that counts allocations and frees and poisons freed bytes). After each test the heap
// must hold no live block: every block allocated was freed exactly once (allocs == frees).

import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import vm from 'node:vm';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import ts from 'typescript';
import {
  TAG_BLOCK, TAG_ERROR, TAG_FALSE, TAG_NULL, TAG_NUMBER, TAG_TASK, TAG_TRUE, TAG_UNDEFINED,
} from '../assembly/shared/layout.js';
import {
  createViews, decodeError, decodeValue, encodeError, encodeValue, freeSlot, MAX_DEPTH,
  readErrorSlot, readSlot, slotBlock, SUPPORTED, writeErrorSlot, writeSlot, blockSize,
  type Heap, type SharedRegistry, type Views,
} from '../bindings/codec/index.js';

const PAGE = 65536;
const memory = new WebAssembly.Memory({ initial: 32, maximum: 1024, shared: true });

/** A bump allocator with counters; it grows the memory itself (as the core's heap lock holder
 *  would, from any thread), so the codec's views go stale exactly as they do in production. */
class TestHeap implements Heap {
  static readonly BASE = PAGE;
  brk = TestHeap.BASE;
  allocs = 0;
  frees = 0;
  /** Fail the next allocation (returns 0). */
  failNext = false;
  readonly live = new Map<number, number>();

  heapAlloc(size: number): number {
    if (this.failNext) {
      this.failNext = false;
      return 0;
    }
    if (this.live.size === 0) this.brk = Math.max(this.brk, TestHeap.BASE);
    const addr = this.brk + 8; // an 8-byte header, as the core's blocks have
    const end = addr + size + (-size & 7);
    const length = memory.buffer.byteLength;
    if (end > length) {
      try {
        memory.grow(Math.ceil((end - length) / PAGE));
      } catch {
        return 0;
      }
    }
    this.brk = end;
    this.live.set(addr, size);
    this.allocs++;
    return addr;
  }

  heapFree(addr: number): void {
    const size = this.live.get(addr);
    if (size === undefined) throw new Error(`test heap: free of ${addr}, not a live block`);
    new Uint8Array(memory.buffer, addr, size).fill(0xdd);
    this.live.delete(addr);
    this.frees++;
    if (this.live.size === 0) this.brk = TestHeap.BASE;
  }
}

const heap = new TestHeap();
const views = createViews(memory);

/** A fake G entry's slots, well above the heap's usual range. */
const G = 48 * 1024;
const TAG = G;
const SLOT = G + 8;

afterEach(() => {
  expect([...heap.live.keys()]).toEqual([]);
  expect(heap.allocs).toBe(heap.frees);
});

/** Writes, reads and frees one slot; returns the value read back. */
function roundTrip(value: unknown, shared: SharedRegistry | null = null): unknown {
  writeSlot(views, heap, TAG, SLOT, value, 'test', shared);
  try {
    return readSlot(views, TAG, SLOT, shared);
  } finally {
    freeSlot(views, heap, TAG, SLOT);
  }
}

function encodeFailure(value: unknown, label = "spawn('fib'): argument 2"): TypeError {
  const before = heap.allocs;
  try {
    writeSlot(views, heap, TAG, SLOT, value, label, null);
  } catch (e) {
    expect(e).toBeInstanceOf(TypeError);
    expect(heap.allocs).toBe(before); // nothing allocated on the way to a TypeError
    return e as TypeError;
  }
  freeSlot(views, heap, TAG, SLOT);
  throw new Error('expected a TypeError');
}

// ---------------------------------------------------------------------------------------
// Deep equality that sees what the codec promises: -0, NaN, typed-array types, prototypes,
// Map and Set order, holes as undefined. Returns the first difference, or null.

function diff(a: unknown, b: unknown, path = '$'): string | null {
  if (typeof a !== typeof b) return `${path}: ${typeof a} vs ${typeof b}`;
  if (typeof a !== 'object' || a === null || b === null) {
    return Object.is(a, b) ? null : `${path}: ${String(a)} vs ${String(b)}`;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return `${path}: prototypes differ`;
  if (ArrayBuffer.isView(x)) {
    const xv = x as unknown as ArrayBufferView;
    const yv = y as unknown as ArrayBufferView;
    if (xv.byteLength !== yv.byteLength) return `${path}: byteLength ${xv.byteLength} vs ${yv.byteLength}`;
    const xb = new Uint8Array(xv.buffer, xv.byteOffset, xv.byteLength);
    const yb = new Uint8Array(yv.buffer, yv.byteOffset, yv.byteLength);
    for (let i = 0; i < xb.length; i++) if (xb[i] !== yb[i]) return `${path}: byte ${i} differs`;
    return null;
  }
  if (x instanceof ArrayBuffer) {
    return diff(new Uint8Array(x), new Uint8Array(y as unknown as ArrayBuffer), path);
  }
  if (x instanceof Date) return Object.is(x.getTime(), (y as unknown as Date).getTime()) ? null : `${path}: dates differ`;
  if (x instanceof Map || x instanceof Set) {
    const xs = [...(x as Map<unknown, unknown>)];
    const ys = [...(y as unknown as Map<unknown, unknown>)];
    return diff(xs, ys, `${path}<entries>`);
  }
  if (x instanceof Error) {
    const ye = y as unknown as Error;
    for (const k of ['name', 'message', 'stack'] as const) if (x[k] !== ye[k]) return `${path}.${k} differs`;
    const d = diff(x.cause, ye.cause, `${path}.cause`);
    if (d !== null) return d;
  }
  if (Array.isArray(x)) {
    if (x.length !== (y as unknown as unknown[]).length) return `${path}: length differs`;
    for (let i = 0; i < x.length; i++) {
      const d = diff(x[i], y[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  const xk = Object.keys(x);
  const yk = Object.keys(y);
  if (xk.join('\u0000') !== yk.join('\u0000')) return `${path}: keys ${JSON.stringify(xk)} vs ${JSON.stringify(yk)}`;
  for (const k of xk) {
    const d = diff(x[k], y[k], `${path}.${k}`);
    if (d !== null) return d;
  }
  return null;
}

function expectSame(decoded: unknown, original: unknown): void {
  expect(diff(decoded, original)).toBeNull();
}

// ---------------------------------------------------------------------------------------

describe('slots', () => {
  it('keeps numbers, booleans, null and undefined inline, without a block', () => {
    const values = [0, -0, 1, -1, 0.1, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 31), 5e-324,
      Number.MAX_VALUE, true, false, null, undefined];
    const tags = [TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_NUMBER,
      TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_NUMBER, TAG_TRUE, TAG_FALSE, TAG_NULL, TAG_UNDEFINED];
    const allocs = heap.allocs;
    values.forEach((v, i) => {
      writeSlot(views, heap, TAG, SLOT, v, 'test', null);
      expect(views.u8[TAG]).toBe(tags[i]);
      expect(slotBlock(views, TAG, SLOT)).toBe(0);
      expect(Object.is(readSlot(views, TAG, SLOT, null), v)).toBe(true);
      freeSlot(views, heap, TAG, SLOT);
    });
    expect(heap.allocs).toBe(allocs);
  });

  it('puts everything else in a block that freeSlot frees once', () => {
    writeSlot(views, heap, TAG, SLOT, 'hello', 'test', null);
    expect(views.u8[TAG]).toBe(TAG_BLOCK);
    const addr = slotBlock(views, TAG, SLOT);
    expect(heap.live.has(addr)).toBe(true);
    expect(readSlot(views, TAG, SLOT, null)).toBe('hello');
    expect(readSlot(views, TAG, SLOT, null)).toBe('hello'); // reading does not consume
    freeSlot(views, heap, TAG, SLOT);
    expect(views.u8[TAG]).toBe(TAG_UNDEFINED);
    freeSlot(views, heap, TAG, SLOT); // a second free is a no-op
    expect(heap.live.has(addr)).toBe(false);
  });

  it('refuses TAG_TASK and unaligned slots', () => {
    views.u8[TAG] = TAG_TASK;
    expect(() => readSlot(views, TAG, SLOT, null)).toThrow(RangeError);
    views.u8[TAG] = TAG_UNDEFINED;
    expect(() => writeSlot(views, heap, TAG, SLOT + 4, 1, 'test', null)).toThrow(/not 8-aligned/);
  });

  it('throws a RangeError naming the label when the heap is exhausted', () => {
    heap.failNext = true;
    expect(() => writeSlot(views, heap, TAG, SLOT, 'x', "spawn('f'): argument 1", null))
      .toThrow("spawn('f'): argument 1: out of shared memory (a value block of 12 bytes)");
  });
});

describe('round trips', () => {
  it('strings: ASCII, latin-1, UTF-16, lone surrogates, short and long', () => {
    const ascii = 'The quick brown fox jumps over the lazy dog. ';
    const samples = ['', 'a', 'hello, world', 'caf\u00e9', '\u00ff\u0000\u0001', '\u0080\u0085\u009f',
      '\u65e5\u672c', '\ufeff\u65e5', '\ud83d\ude00', 'x\ud800', '\udc00y', '\ud800\ud800\udc00'];
    const strings: string[] = [];
    for (const s of samples) {
      // each sample alone, inside short and long ASCII text, and repeated past every threshold
      strings.push(s, s + ascii, ascii.repeat(3) + s, s.repeat(40), (ascii + s).repeat(3000));
    }
    for (const n of [23, 24, 25, 31, 32, 33, 47, 48, 63, 64, 65, 4095, 4096, 4097, 70_000]) {
      strings.push('a'.repeat(n), '\u00e9'.repeat(n), '\u65e5'.repeat(n), '\ud800'.repeat(n));
    }
    for (const s of strings) {
      const back = roundTrip(s);
      if (back !== s) expect.fail(`string of length ${s.length} starting ${JSON.stringify(s.slice(0, 20))} changed`);
    }
  });

  it('arrays: empty, numbers, mixed, holes, nested', () => {
    expectSame(roundTrip([]), []);
    expectSame(roundTrip([1, -0, NaN, Infinity, 0.5]), [1, -0, NaN, Infinity, 0.5]);
    expectSame(roundTrip([1, 2, 'three', 4]), [1, 2, 'three', 4]);
    expectSame(roundTrip(['a', 1, null, undefined, true, false]), ['a', 1, null, undefined, true, false]);
    // eslint-disable-next-line no-sparse-arrays
    const holey = roundTrip([1, , 3]) as unknown[];
    expectSame(holey, [1, undefined, 3]);
    expect(1 in holey).toBe(false); // the hole stays a hole
    expectSame(roundTrip([[1, [2, [3, []]]], { a: [4] }]), [[1, [2, [3, []]]], { a: [4] }]);
    const shared = { x: 1 };
    const dag = roundTrip([shared, shared]) as object[];
    expectSame(dag, [{ x: 1 }, { x: 1 }]);
    expect(dag[0]).toBe(dag[1]); // a DAG stays a DAG
  });

  it('plain objects: nested, null prototype, awkward keys', () => {
    const o = { a: 1, b: 'two', c: { d: [3], e: { f: null } }, 'with space': -0, 7: 'seven', '\u65e5': 'day' };
    expectSame(roundTrip(o), o);
    const n = Object.assign(Object.create(null) as Record<string, unknown>, { x: 1, y: { z: 2 } });
    const back = roundTrip(n) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBeNull();
    expectSame(back, n);
    const proto = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}') as object;
    const decoded = roundTrip(proto) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.keys(decoded)).toEqual(['__proto__', 'k']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectSame(roundTrip({}), {});
  });

  it('many keys, repeated keys and keys that collide in the decoder\'s key cache', () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 3000; i++) wide[`k${i}`] = i;
    expectSame(roundTrip(wide), wide);
    expectSame(roundTrip(wide), wide); // second pass: cache hits
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}`, ok: i % 2 === 0, tags: ['a', 'b'] }));
    expectSame(roundTrip(rows), rows);
    const sameLength = { abcd: 1, abce: 2, bbcd: 3, 'ab\u00e9d': 4, ['x'.repeat(24)]: 5, ['x'.repeat(25)]: 6 };
    expectSame(roundTrip(sameLength), sameLength);
  });

  it('typed arrays, DataView and ArrayBuffer: copied, type kept', () => {
    const backing = new ArrayBuffer(64);
    new Uint8Array(backing).forEach((_, i, a) => { a[i] = i * 7; });
    const views8 = [
      new Int8Array([-1, 2, -128]), new Uint8Array([1, 255]), new Uint8ClampedArray([0, 300]),
      new Int16Array([-32768, 5]), new Uint16Array([65535]), new Int32Array([-(2 ** 31), 1]),
      new Uint32Array([2 ** 32 - 1]), new Float32Array([1.5, NaN, -0]),
      new Float64Array([Math.PI, -0, NaN, -Infinity]), new BigInt64Array([-(2n ** 63n), 1n]),
      new BigUint64Array([2n ** 64n - 1n]), new Uint8Array(0),
      new Float64Array(backing, 8, 3), new Uint16Array(backing, 2, 5), new DataView(backing, 3, 9),
    ];
    for (const v of views8) {
      const back = roundTrip(v) as ArrayBufferView;
      expect(back.constructor).toBe(v.constructor);
      // The whole buffer travels, the offset with it (as structuredClone does).
      expect(back.byteOffset).toBe(v.byteOffset);
      expect(back.buffer.byteLength).toBe(v.buffer.byteLength);
      expect(back.buffer).not.toBe(v.buffer);
      expectSame(back, v);
    }
    const buf = roundTrip(backing) as ArrayBuffer;
    expect(buf).toBeInstanceOf(ArrayBuffer);
    expectSame(buf, backing);
    expectSame(roundTrip(new ArrayBuffer(0)), new ArrayBuffer(0));
    // A subclass (Node's Buffer) travels as its base type.
    const b = roundTrip(Buffer.from('hi')) as Uint8Array;
    expect(b.constructor).toBe(Uint8Array);
    expect([...b]).toEqual([104, 105]);
  });

  it('bigint, Date, Map, Set', () => {
    for (const v of [0n, 1n, -1n, 0xffffffffn, 0x100000000n, 2n ** 64n, -(2n ** 200n) + 5n, 10n ** 100n]) {
      expect(roundTrip(v)).toBe(v);
    }
    const d = new Date(1_700_000_000_123);
    expectSame(roundTrip(d), d);
    expect(Number.isNaN((roundTrip(new Date(NaN)) as Date).getTime())).toBe(true);
    const m = new Map<unknown, unknown>([['a', 1], [2, { b: [3] }], [{ k: 1 }, new Set([1, 'x'])], [-0, NaN]]);
    expectSame(roundTrip(m), m);
    const s = new Set<unknown>([1, 'two', [3], new Map([[4, 5]])]);
    expectSame(roundTrip(s), s);
  });

  it('nesting up to MAX_DEPTH', () => {
    let v: unknown = 'leaf';
    for (let i = 0; i < MAX_DEPTH; i++) v = i % 2 === 0 ? [v] : { v };
    expectSame(roundTrip(v), v);
  });

  it('large counts use the escaped head (n >= 0xFFFFFF)', () => {
    const big = new Uint8Array(0x1000001);
    big[0] = 1;
    big[0x1000000] = 2;
    const back = roundTrip(big) as Uint8Array;
    expect(back.length).toBe(big.length);
    expect(back[0]).toBe(1);
    expect(back[0x1000000]).toBe(2);
  });

  it('decoded values share nothing with the freed block', () => {
    const value = { s: 'text', a: [1, 2], t: new Float64Array([1, 2]), m: new Map([['k', 'v']]) };
    const back = roundTrip(value); // the heap poisons the block when freed
    expectSame(back, value);
  });

  it('a getter that encodes re-entrantly does not disturb the outer encode', () => {
    const inner = G + 64;
    const o = {
      a: 'outer',
      get b() {
        writeSlot(views, heap, inner, inner + 8, { nested: 'x'.repeat(40) }, 'inner', null);
        return [1, 'b'];
      },
      c: 3.5,
    };
    expectSame(roundTrip(o), { a: 'outer', b: [1, 'b'], c: 3.5 });
    expectSame(readSlot(views, inner, inner + 8, null), { nested: 'x'.repeat(40) });
    freeSlot(views, heap, inner, inner + 8);
  });
});

describe('block format', () => {
  function bytesOf(value: unknown): number[] {
    const addr = encodeValue(views, heap, value, 'test', null);
    const size = blockSize(views, addr);
    const out = [...views.u8.subarray(addr, addr + size)];
    heap.heapFree(addr);
    return out;
  }

  it('pins the bytes of a few blocks', () => {
    // [u32 length][head ASCII n=2]['h' 'i' pad pad]
    expect(bytesOf('hi')).toEqual([12, 0, 0, 0, 0x08, 2, 0, 0, 104, 105, 0, 0]);
    // [length][OBJECT n=1][ASCII n=1 'a' pad][INT32][1]
    expect(bytesOf({ a: 1 })).toEqual([24, 0, 0, 0, 0x0e, 1, 0, 0, 0x08, 1, 0, 0, 97, 0, 0, 0,
      0x05, 0, 0, 0, 1, 0, 0, 0]);
    // [length][ARRAY n=2][FLOAT64][pad to 8][f64 1.5][ASCII n=1 'x' pad]
    expect(bytesOf([1.5, 'x'])).toEqual([32, 0, 0, 0, 0x0c, 2, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x08, 1, 0, 0, 120, 0, 0, 0]);
    // [length][NUMBER_ARRAY n=1][f64 -0] (already 8-aligned)
    expect(bytesOf([-0])).toEqual([16, 0, 0, 0, 0x0d, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80]);
    // [length][UTF16 n=1][u16 0x65e5 pad]
    expect(bytesOf('\u65e5')).toEqual([12, 0, 0, 0, 0x0a, 1, 0, 0, 0xe5, 0x65, 0, 0]);
    // [length][LATIN1 n=1][0xe9 pad]
    expect(bytesOf('\u00e9')).toEqual([12, 0, 0, 0, 0x09, 1, 0, 0, 0xe9, 0, 0, 0]);
    // [length][UTF16_LONE n=1][u16 0xd800 pad]; a pair is well-formed UTF16
    expect(bytesOf('\ud800')).toEqual([12, 0, 0, 0, 0x0b, 1, 0, 0, 0x00, 0xd8, 0, 0]);
    expect(bytesOf('\ud83d\ude00')[4]).toBe(0x0a);
    expect(bytesOf('\ude00\ud83d')[4]).toBe(0x0b);
  });
});

describe('type errors', () => {
  const ONLY = `; only ${SUPPORTED} can cross threads`;

  it('names the label, the path and the offending kind', () => {
    expect(encodeFailure({ opts: { cb: () => 1 } }).message)
      .toBe(`spawn('fib'): argument 2 .opts.cb is a function${ONLY}`);
    expect(encodeFailure(() => 1).message).toBe(`spawn('fib'): argument 2 is a function${ONLY}`);
    expect(encodeFailure([1, 2, { f: Symbol('s') }]).message)
      .toBe(`spawn('fib'): argument 2 [2].f is a symbol${ONLY}`);
    expect(encodeFailure({ 'a b': [new WeakMap()] }).message)
      .toBe(`spawn('fib'): argument 2 ["a b"][0] is a WeakMap${ONLY}`);
    expect(encodeFailure({ p: Promise.resolve(1) }).message).toContain('.p is a Promise;');
    class Point { x = 1; }
    expect(encodeFailure({ pt: new Point() }).message).toContain('.pt is an instance of class Point;');
    expect(encodeFailure(new WeakSet()).message).toContain('is a WeakSet;');
    expect(encodeFailure(new Map([['k', () => 1]])).message).toContain(' .<value #0> is a function;');
    expect(encodeFailure(new Map([[Symbol('k'), 1]])).message).toContain(' .<key #0> is a symbol;');
    expect(encodeFailure(new Set([1, 2, () => 1])).message).toContain(' .<entry #2> is a function;');
  });

  it('a getter that throws', () => {
    const boom = new Error('boom');
    const e = encodeFailure({ a: { get x(): number { throw boom; } } });
    expect(e.message).toBe("spawn('fib'): argument 2 .a.x could not be read (Error: boom)");
    expect(e.cause).toBe(boom);
  });

  it('resizable and detached ArrayBuffers, and views on them, are refused with the path', () => {
    const resizable = new ArrayBuffer(8, { maxByteLength: 16 });
    expect(encodeFailure({ b: resizable }).message).toBe(
      "spawn('fib'): argument 2 .b is a resizable ArrayBuffer, which cannot cross threads; pass a fixed-length copy (buffer.slice())");
    expect(encodeFailure([new Uint8Array(resizable)]).message).toContain(' [0] is a view on a resizable ArrayBuffer,');
    const detached = new ArrayBuffer(8);
    structuredClone(detached, { transfer: [detached] });
    expect(encodeFailure({ d: detached }).message).toBe(
      "spawn('fib'): argument 2 .d is a detached ArrayBuffer (transferred away), which cannot be copied");
  });

  it('too deep', () => {
    let v: unknown = 1;
    for (let i = 0; i <= MAX_DEPTH; i++) v = [v];
    expect(encodeFailure(v).message).toContain(`is nested more than ${MAX_DEPTH} levels deep`);
  });

  it('a SharedArrayBuffer without a registry', () => {
    expect(encodeFailure({ s: new SharedArrayBuffer(8) }).message)
      .toBe("spawn('fib'): argument 2 .s is a SharedArrayBuffer, but no shared registry was given to share it");
  });

  it('the encoder recovers after a failure', () => {
    encodeFailure({ a: [1, { b: () => 1 }] });
    expectSame(roundTrip({ a: [1, { b: 2 }] }), { a: [1, { b: 2 }] });
  });
});

describe('shared buffers', () => {
  class FakeRegistry implements SharedRegistry {
    readonly byId: SharedArrayBuffer[] = [];
    registered = 0;
    register(sab: SharedArrayBuffer): number {
      this.registered++;
      let id = this.byId.indexOf(sab);
      if (id < 0) id = this.byId.push(sab) - 1;
      return id;
    }
    lookup(id: number): SharedArrayBuffer {
      const sab = this.byId[id];
      if (sab === undefined) throw new Error(`no SharedArrayBuffer #${id}`);
      return sab;
    }
  }

  it('shares SharedArrayBuffers and views on them instead of copying', () => {
    const reg = new FakeRegistry();
    const sab = new SharedArrayBuffer(64);
    const value = {
      sab,
      i32: new Int32Array(sab, 8, 4),
      dv: new DataView(sab, 4, 12),
      f64: new Float64Array(sab, 16, 2),
      list: [new Uint8Array(sab)],
    };
    const back = roundTrip(value, reg) as typeof value;
    expect(reg.registered).toBe(5);
    expect(reg.byId.length).toBe(1);
    expect(back.sab).toBe(sab);
    expect(back.i32).toBeInstanceOf(Int32Array);
    expect([back.i32.byteOffset, back.i32.length]).toEqual([8, 4]);
    expect([back.dv.byteOffset, back.dv.byteLength]).toEqual([4, 12]);
    expect(back.f64.buffer).toBe(sab);
    back.i32[1] = 42; // writes through to the same memory
    expect(new Int32Array(sab)[3]).toBe(42);
    expect(back.list[0]!.buffer).toBe(sab);
  });

  it('decoding a shared item without a registry is a TypeError', () => {
    const reg = new FakeRegistry();
    writeSlot(views, heap, TAG, SLOT, [new SharedArrayBuffer(8)], 'test', reg);
    expect(() => readSlot(views, TAG, SLOT, null)).toThrow(TypeError);
    freeSlot(views, heap, TAG, SLOT);
  });

  it('a registry that fails or returns a bad id', () => {
    const bad: SharedRegistry = { register: () => -1, lookup: () => new SharedArrayBuffer(1) };
    expect(() => writeSlot(views, heap, TAG, SLOT, [new SharedArrayBuffer(8)], 'arg', bad))
      .toThrow('arg [0] is a SharedArrayBuffer, but shared.register returned -1, not a u32 id');
  });
});

describe('errors', () => {
  function errorRoundTrip(thrown: unknown): unknown {
    writeErrorSlot(views, heap, TAG, SLOT, thrown, "task 'fib' threw", null);
    try {
      return readErrorSlot(views, TAG, SLOT, null);
    } finally {
      freeSlot(views, heap, TAG, SLOT);
    }
  }

  it('keeps name, message, stack and class for the built-in errors', () => {
    for (const e of [new Error('plain'), new TypeError('type'), new RangeError('range'),
      new SyntaxError('syntax'), new ReferenceError('ref'), new EvalError('eval'), new URIError('uri')]) {
      const back = errorRoundTrip(e) as Error;
      expect(back.constructor).toBe(e.constructor);
      expect(back.name).toBe(e.name);
      expect(back.message).toBe(e.message);
      expect(back.stack).toBe(e.stack);
      expect(Object.keys(back)).toEqual([]);
    }
  });

  it('keeps a custom name, the cause chain and encodable extra props', () => {
    class ValidationError extends Error {
      code = 'E_INVALID';
      details = { field: 'age', limits: [0, 150] };
      callback = (): number => 1; // cannot cross: left out
      constructor(message: string, options?: ErrorOptions) {
        super(message, options);
        this.name = 'ValidationError';
      }
    }
    const root = new RangeError('root cause');
    const err = new ValidationError('bad age', { cause: new Error('middle', { cause: root }) });
    const back = errorRoundTrip(err) as Error & Record<string, unknown>;
    expect(back).toBeInstanceOf(Error);
    expect(back.name).toBe('ValidationError');
    expect(back.message).toBe('bad age');
    expect(back.stack).toBe(err.stack);
    expect(back.code).toBe('E_INVALID');
    expectSame(back.details, err.details);
    expect('callback' in back).toBe(false);
    const middle = back.cause as Error;
    expect(middle.message).toBe('middle');
    expect(middle.cause).toBeInstanceOf(RangeError);
    expect((middle.cause as Error).message).toBe('root cause');
  });

  it('leaves out a cause that cannot cross, keeps one that can (any value)', () => {
    const back = errorRoundTrip(new Error('x', { cause: () => 1 })) as Error;
    expect(Object.hasOwn(back, 'cause')).toBe(false);
    const withValue = errorRoundTrip(new Error('y', { cause: { code: 7 } })) as Error;
    expectSame(withValue.cause, { code: 7 });
    const undef = errorRoundTrip(new Error('z', { cause: undefined })) as Error;
    expect(Object.hasOwn(undef, 'cause')).toBe(true);
    const self = new Error('self');
    self.cause = self;
    const selfBack = errorRoundTrip(self) as Error;
    expect(selfBack.cause).toBe(selfBack); // a cycle through the cause is kept
  });

  it('keeps the errors of an AggregateError', () => {
    const agg = new AggregateError([new Error('a'), 'b'], 'both failed');
    const back = errorRoundTrip(agg) as AggregateError;
    expect(back).toBeInstanceOf(AggregateError);
    expect(back.errors.length).toBe(2);
    expect((back.errors[0] as Error).message).toBe('a');
    expect(back.errors[1]).toBe('b');
  });

  it('a thrown non-Error value comes back as that value', () => {
    for (const v of ['a string', 42, -0, NaN, undefined, null, { code: 3 }, [1, 'x'], 10n]) {
      expectSame(errorRoundTrip(v), v);
    }
  });

  it('a thrown value that cannot cross becomes a TypeError saying so', () => {
    const back = errorRoundTrip({ fn: () => 1 }) as TypeError;
    expect(back).toBeInstanceOf(TypeError);
    expect(back.message).toBe(`task 'fib' threw .fn is a function; only ${SUPPORTED} can cross threads`);
  });

  it('an Error from another realm is still an Error', () => {
    const foreign = vm.runInNewContext('new RangeError("elsewhere")') as Error;
    expect(foreign instanceof Error).toBe(false);
    const back = errorRoundTrip(foreign) as Error;
    expect(back).toBeInstanceOf(RangeError);
    expect(back.message).toBe('elsewhere');
    expect(back.stack).toBe(foreign.stack);
  });

  it('an Error inside an ordinary value round-trips too', () => {
    const back = roundTrip({ e: new TypeError('inner') }) as { e: TypeError };
    expect(back.e).toBeInstanceOf(TypeError);
    expect(back.e.message).toBe('inner');
  });

  it('an error slot is TAG_ERROR: only readErrorSlot reads it, freeSlot frees it', () => {
    writeErrorSlot(views, heap, TAG, SLOT, new Error('failed'), "task 'f' threw", null);
    expect(views.u8[TAG]).toBe(TAG_ERROR);
    const addr = slotBlock(views, TAG, SLOT);
    expect(heap.live.has(addr)).toBe(true);
    expect(() => readSlot(views, TAG, SLOT, null)).toThrow(/readErrorSlot/);
    expect((readErrorSlot(views, TAG, SLOT, null) as Error).message).toBe('failed');
    freeSlot(views, heap, TAG, SLOT);
    expect(heap.live.has(addr)).toBe(false);
    expect(views.u8[TAG]).toBe(TAG_UNDEFINED);
    writeSlot(views, heap, TAG, SLOT, 'a value', 'test', null);
    expect(() => readErrorSlot(views, TAG, SLOT, null)).toThrow(RangeError);
    freeSlot(views, heap, TAG, SLOT);
  });

  it('decodeError refuses a value block; encodeError/decodeError work on bare blocks', () => {
    const addr = encodeValue(views, heap, 'not an error', 'test', null);
    expect(() => decodeError(views, addr, null)).toThrow(RangeError);
    heap.heapFree(addr);
    const e = encodeError(views, heap, 'thrown', 'test', null);
    expect(decodeError(views, e, null)).toBe('thrown');
    heap.heapFree(e);
  });
});

describe('memory growth', () => {
  it('encodes past the known end and decodes with views made before the growth', () => {
    const encoder = createViews(memory);
    const decoder = createViews(memory); // another thread's views, made before the growth
    const oldEnd = memory.buffer.byteLength;
    expect(decoder.end).toBe(oldEnd);

    // A block before the growth, decoded after it.
    const early = { before: 'growth', n: [1, 2, 3] };
    const a1 = encodeValue(encoder, heap, early, 'test', null);

    // The heap (another thread, in production) grows the memory for the next block.
    heap.brk = oldEnd - 64;
    const late = { text: 'y'.repeat(5000), data: new Float64Array(1000).fill(2.5) };
    const a2 = encodeValue(encoder, heap, late, 'test', null);
    expect(memory.buffer.byteLength).toBeGreaterThan(oldEnd);
    expect(encoder.end).toBe(memory.buffer.byteLength);
    expect(a2 + blockSize(encoder, a2)).toBeGreaterThan(oldEnd);

    expect(decoder.end).toBe(oldEnd);
    expectSame(decodeValue(decoder, a2, null), late);
    expect(decoder.end).toBeGreaterThan(oldEnd);
    expectSame(decodeValue(decoder, a1, null), early);

    // A slot in the new pages, written and read through views that have not seen them.
    memory.grow(1);
    const third = createViews(memory);
    const fourth = createViews(memory);
    memory.grow(1);
    const slot = memory.buffer.byteLength - 16;
    writeSlot(third, heap, slot, slot + 8, 'in the new page', 'test', null);
    expect(readSlot(fourth, slot, slot + 8, null)).toBe('in the new page');
    freeSlot(fourth, heap, slot, slot + 8);
    heap.heapFree(a1);
    heap.heapFree(a2);
  });

  it('an address past the memory is a RangeError, not a silent misread', () => {
    const v: Views = createViews(memory);
    expect(() => decodeValue(v, memory.buffer.byteLength + 64, null)).toThrow(RangeError);
  });
});

describe('memory growth across threads', () => {
  /** The codec transpiled to plain JS in a temp dir, for a worker thread (Node runs no TS). */
  function buildCodecForWorker(): string {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const out = mkdtempSync(join(tmpdir(), 'stealwork-codec-'));
    const files = [...readdirSync(join(root, 'bindings/codec')).map((f) => `bindings/codec/${f}`),
      'assembly/shared/layout.ts'].filter((f) => f.endsWith('.ts'));
    for (const rel of files) {
      const js = ts.transpileModule(readFileSync(join(root, rel), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      mkdirSync(dirname(join(out, rel)), { recursive: true });
      writeFileSync(join(out, rel.replace(/\.ts$/, '.js')), js);
    }
    writeFileSync(join(out, 'package.json'), '{"type":"module"}');
    writeFileSync(join(out, 'worker.js'), `
      import { parentPort, workerData } from 'node:worker_threads';
      import { createViews, writeSlot, readSlot } from './bindings/codec/index.js';
      const { memory } = workerData;
      const views = createViews(memory);
      parentPort.on('message', (m) => {
        if (m.op === 'grow-and-write') {
          memory.grow(m.pages);
          const heap = { heapAlloc: () => m.block, heapFree: () => { throw new Error('not here'); } };
          writeSlot(views, heap, m.slot, m.slot + 8,
            { from: 'worker', data: new Float64Array([1.5, -0, NaN]), text: 'w'.repeat(10000) }, 'worker', null);
          parentPort.postMessage({ end: views.end });
        } else if (m.op === 'read') {
          parentPort.postMessage({ value: readSlot(views, m.slot, m.slot + 8, null), end: views.end });
        }
      });
    `);
    return join(out, 'worker.js');
  }

  it('a worker grows the memory and writes past the end this thread knows, and back', async () => {
    const workerFile = buildCodecForWorker();
    const worker = new Worker(workerFile, { workerData: { memory } });
    const ask = (m: object): Promise<Record<string, unknown>> => new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage(m);
    });
    try {
      const mine = createViews(memory);
      const oldEnd = mine.end;
      // The worker grows by 2 pages and encodes into a block and a slot in them.
      const block = oldEnd + 1024;
      const slot = oldEnd + PAGE + 64;
      const grown = await ask({ op: 'grow-and-write', pages: 2, block, slot });
      expect(grown.end).toBe(oldEnd + 2 * PAGE);
      expect(mine.end).toBe(oldEnd); // stale until it needs the new pages
      const value = readSlot(mine, slot, slot + 8, null) as Record<string, unknown>;
      expect(mine.end).toBe(oldEnd + 2 * PAGE);
      expectSame(value, { from: 'worker', data: new Float64Array([1.5, -0, NaN]), text: 'w'.repeat(10000) });
      const freed: number[] = [];
      freeSlot(mine, { heapAlloc: () => 0, heapFree: (a) => { freed.push(a); } }, slot, slot + 8);
      expect(freed).toEqual([block]);

      // This thread grows it again and writes there; the worker's views are stale now.
      memory.grow(1);
      const slot2 = oldEnd + 2 * PAGE + 128;
      writeSlot(mine, heap, slot2, slot2 + 8, { back: ['to', 'the', 'worker'], n: 2n ** 70n }, 'main', null);
      const read = await ask({ op: 'read', slot: slot2 });
      expect(read.end).toBe(oldEnd + 3 * PAGE);
      expectSame(read.value, { back: ['to', 'the', 'worker'], n: 2n ** 70n });
      freeSlot(mine, heap, slot2, slot2 + 8);
    } finally {
      await worker.terminate();
      rmSync(dirname(workerFile), { recursive: true, force: true });
    }
  });
});

describe('property: random values round-trip', () => {
  const key = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('__proto__', '0', '12', 'constructor'));
  const leaf = fc.oneof(
    fc.double(), fc.integer(), fc.constantFrom(-0, NaN, Infinity, -Infinity, 2 ** 31, -(2 ** 31) - 1),
    fc.string(), fc.string({ unit: 'binary' }), fc.boolean(), fc.constant(null), fc.constant(undefined),
    fc.bigInt(), fc.date({ noInvalidDate: false }),
    fc.int8Array(), fc.uint8Array(), fc.uint8ClampedArray(), fc.int16Array(), fc.uint16Array(),
    fc.int32Array(), fc.uint32Array(), fc.float32Array(), fc.float64Array(), fc.bigInt64Array(),
    fc.bigUint64Array(),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object'), tie('map'), tie('set')),
    array: fc.array(tie('value'), { maxLength: 8 }),
    object: fc.dictionary(key, tie('value'), { maxKeys: 6 }),
    map: fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 4 }).map((es) => new Map(es)),
    set: fc.array(tie('value'), { maxLength: 4 }).map((vs) => new Set(vs)),
  }));

  it('JSON values', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(diff(roundTrip(v), v)).toBeNull();
    }), { numRuns: 300 });
  });

  it('JSON-like values with typed arrays, bigints, dates, maps and sets', () => {
    fc.assert(fc.property(value, (v) => {
      const back = roundTrip(v);
      expect(diff(back, v)).toBeNull();
    }), { numRuns: 500 });
  });
});
