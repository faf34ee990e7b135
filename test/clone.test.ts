// Structured-clone semantics: every value the codec accepts comes back as structuredClone would
// give it (holes, named and sparse array properties, -0 and NaN, shared references and cycles,
// Map and Set with object keys, invalid Dates, typed arrays sharing one ArrayBuffer, bigints,
// RegExps, boxed primitives, Errors with standard names), checked against structuredClone
// itself: explicit cases, then random values (fast-check), through the codec alone and through
// a real Scheduler (argument out, result back, a worker's own spawn, and an Error's own
// properties). What the codec keeps beyond structuredClone (a null prototype, an Error's custom
// name and extra properties) and what it refuses are pinned at the end.

import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  createViews, freeSlot, readErrorSlot, readSlot, writeErrorSlot, writeSlot, type Heap,
} from '../bindings/codec/index.js';
import { schedulers, within } from './helpers/runtime.js';

// ---- a heap that counts (every block freed exactly once) ---------------------------------

const PAGE = 65536;
const memory = new WebAssembly.Memory({ initial: 16, maximum: 4096, shared: true });
const views = createViews(memory);
const SLOT_TAG = 8 * 1024;
const SLOT = SLOT_TAG + 8;

class CountingHeap implements Heap {
  brk = PAGE;
  readonly live = new Set<number>();
  heapAlloc(size: number): number {
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
  }
}
const heap = new CountingHeap();

afterEach(() => {
  expect([...heap.live]).toEqual([]);
});

function roundTrip(value: unknown): unknown {
  writeSlot(views, heap, SLOT_TAG, SLOT, value, 'clone test', null);
  try {
    return readSlot(views, SLOT_TAG, SLOT, null);
  } finally {
    freeSlot(views, heap, SLOT_TAG, SLOT);
  }
}

function errorRoundTrip(thrown: unknown): unknown {
  writeErrorSlot(views, heap, SLOT_TAG, SLOT, thrown, 'clone test', null);
  try {
    return readErrorSlot(views, SLOT_TAG, SLOT, null);
  } finally {
    freeSlot(views, heap, SLOT_TAG, SLOT);
  }
}

// ---- the same value graph? ---------------------------------------------------------------
//
// Walks both graphs together and pairs their objects one to one: an object met again must be
// met at the same place in the other graph (shared references and cycles), and paired objects
// must agree in prototype, own enumerable keys in order (holes and named array properties
// included), and contents. Returns the first difference, or null.

const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
  Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array] as const;

function graphDiff(a: unknown, b: unknown): string | null {
  const ab = new Map<object, object>();
  const ba = new Map<object, object>();

  function same(x: unknown, y: unknown, path: string): string | null {
    if (typeof x !== typeof y) return `${path}: ${typeof x} vs ${typeof y}`;
    if (typeof x !== 'object' || x === null || y === null) {
      return Object.is(x, y) ? null : `${path}: ${String(x)} vs ${String(y)}`;
    }
    const xo = x;
    const yo = y as object;
    const paired = ab.get(xo);
    if (paired !== undefined || ba.has(yo)) {
      return paired === yo && ba.get(yo) === xo ? null : `${path}: identity differs (a shared or cyclic reference)`;
    }
    ab.set(xo, yo);
    ba.set(yo, xo);
    if (Object.getPrototypeOf(xo) !== Object.getPrototypeOf(yo)) return `${path}: prototypes differ`;
    if (xo instanceof ArrayBuffer) {
      const xb = new Uint8Array(xo);
      const yb = new Uint8Array(yo as ArrayBuffer);
      if (xb.length !== yb.length) return `${path}: byteLength ${xb.length} vs ${yb.length}`;
      for (let i = 0; i < xb.length; i++) if (xb[i] !== yb[i]) return `${path}: byte ${i} differs`;
      return null;
    }
    if (ArrayBuffer.isView(xo)) {
      const yv = yo as ArrayBufferView;
      if (xo.byteOffset !== yv.byteOffset || xo.byteLength !== yv.byteLength) {
        return `${path}: view [${xo.byteOffset}, +${xo.byteLength}] vs [${yv.byteOffset}, +${yv.byteLength}]`;
      }
      return same(xo.buffer, yv.buffer, `${path}.buffer`);
    }
    if (xo instanceof Date) return Object.is(xo.getTime(), (yo as Date).getTime()) ? null : `${path}: dates differ`;
    if (xo instanceof RegExp) {
      const yr = yo as RegExp;
      return xo.source === yr.source && xo.flags === yr.flags && xo.lastIndex === yr.lastIndex ? null : `${path}: ${String(xo)} vs ${String(yr)}`;
    }
    if (xo instanceof Number || xo instanceof String || xo instanceof Boolean || xo instanceof BigInt) {
      return Object.is(xo.valueOf(), (yo as typeof xo).valueOf()) ? null : `${path}: boxed values differ`;
    }
    if (xo instanceof Map || xo instanceof Set) {
      const xs = [...(xo as Map<unknown, unknown>)];
      const ys = [...(yo as Map<unknown, unknown>)];
      if (xs.length !== ys.length) return `${path}: size ${xs.length} vs ${ys.length}`;
      for (let i = 0; i < xs.length; i++) {
        const d = same(xs[i], ys[i], `${path}<entry ${i}>`);
        if (d !== null) return d;
      }
      return null;
    }
    if (xo instanceof Error) {
      const ye = yo as Error;
      if (xo.name !== ye.name || xo.stack !== ye.stack) return `${path}: error name or stack differs`;
      for (const k of ['message', 'cause'] as const) {
        if (Object.hasOwn(xo, k) !== Object.hasOwn(ye, k)) return `${path}: own ${k} present on one side only`;
        const d = same(xo[k], ye[k], `${path}.${k}`);
        if (d !== null) return d;
      }
    }
    if (Array.isArray(xo) && xo.length !== (yo as unknown[]).length) return `${path}: length ${xo.length} vs ${(yo as unknown[]).length}`;
    const xk = Object.keys(xo);
    const yk = Object.keys(yo);
    if (xk.join('\u0000') !== yk.join('\u0000')) return `${path}: keys ${JSON.stringify(xk.slice(0, 8))} vs ${JSON.stringify(yk.slice(0, 8))}`;
    for (const k of xk) {
      const d = same((xo as Record<string, unknown>)[k], (yo as Record<string, unknown>)[k], `${path}[${JSON.stringify(k)}]`);
      if (d !== null) return d;
    }
    return null;
  }
  return same(a, b, '$');
}

/** The codec's copy of v against structuredClone's (taken first, so nothing can touch v). */
function expectLikeStructuredClone(v: unknown): void {
  const expected = structuredClone(v);
  expect(graphDiff(roundTrip(v), expected)).toBeNull();
}

// ---- the explicit cases ------------------------------------------------------------------

/** name -> a function making a fresh value (fresh, so no test sees another's mutations). */
const CASES: Record<string, () => unknown> = {
  // eslint-disable-next-line no-sparse-arrays
  'holes': () => [1, , 3, , , 'x', , ],
  'named properties on an array': () => Object.assign([1, 2, 3], { x: 'named', 7: 'past the end' }),
  // (without named groups: `groups` would be a null-prototype object, which the codec keeps)
  'a RegExp match (index, input, groups)': () => /(b+)/.exec('aabbbcc'),
  'a __proto__ key on an array': () => {
    const a: unknown[] = [1];
    Object.defineProperty(a, '__proto__', { value: 'own', enumerable: true, configurable: true, writable: true });
    return a;
  },
  '-0, NaN, Infinity': () => [-0, NaN, Infinity, -Infinity, { z: -0, n: NaN }, new Float64Array([-0, NaN])],
  'a sparse array (length 2^31)': () => {
    const a: unknown[] = [];
    a[5] = 'five';
    a[2 ** 31] = 'far';
    return Object.assign(a, { tag: 't' });
  },
  'a sparse array of numbers': () => {
    const a: number[] = [];
    for (let i = 0; i < 1000; i += 97) a[i] = i;
    return a;
  },
  'shared references': () => {
    const o = { shared: true };
    const arr = [o];
    return { a: o, b: [o, o], c: new Map([['k', o]]), d: new Set([arr]), e: arr };
  },
  'cycles': () => {
    const root: Record<string, unknown> = { name: 'root' };
    const list: unknown[] = [root];
    list.push(list);
    root.self = root;
    root.list = list;
    const m = new Map<unknown, unknown>();
    m.set(m, m);
    m.set('root', root);
    const s = new Set<unknown>();
    s.add(s);
    root.m = m;
    root.s = s;
    return root;
  },
  'Map and Set with object keys': () => {
    const k1 = { k: 1 };
    const k2 = [2];
    return [new Map<unknown, unknown>([[k1, 'one'], [k2, k1], [new Date(0), null]]), new Set([k1, k2, k1]), k1];
  },
  'Dates, invalid included': () => [new Date(0), new Date(-8.64e15), new Date(8.64e15), new Date(NaN), new Date(1.5)],
  'typed arrays sharing one ArrayBuffer': () => {
    const b = new ArrayBuffer(64);
    new Uint8Array(b).forEach((_, i, a) => { a[i] = i * 3; });
    return {
      a: new Uint8Array(b, 3, 5), f: new Float64Array(b, 8, 4), d: new DataView(b, 1, 30),
      whole: new Int32Array(b), buffer: b, other: new Uint16Array(new ArrayBuffer(6), 2),
    };
  },
  'a view of a Buffer (its pool travels)': () => Buffer.from('pooled bytes'),
  'bigints': () => [0n, -1n, 2n ** 64n, -(2n ** 130n) + 7n, new BigInt64Array([-5n]), Object(3n)],
  'RegExp and boxed primitives': () => {
    const r = /a.c/gimsuy;
    r.lastIndex = 4;
    return [r, /x/, new Number(-0), new String('boxed'), new Boolean(false), new Number(NaN)];
  },
  'Errors with standard names, messages, stacks and causes': () => {
    const inner = new TypeError('inner');
    return [new Error('plain'), new RangeError('with cause', { cause: inner }), inner, new Error(),
      new SyntaxError('cause is a value', { cause: { code: 7 } }), new EvalError('cause undefined', { cause: undefined })];
  },
  'nested': () => {
    let v: unknown = 'leaf';
    for (let i = 0; i < 200; i++) v = i % 3 === 0 ? [v] : i % 3 === 1 ? { v } : new Map([['v', v]]);
    return v;
  },
};

describe('explicit cases match structuredClone', () => {
  for (const [name, make] of Object.entries(CASES)) {
    it(name, () => {
      expectLikeStructuredClone(make());
    });
  }

  it('holes stay holes and named properties stay on the array', () => {
    // eslint-disable-next-line no-sparse-arrays
    const back = roundTrip(Object.assign([1, , 3], { x: 1 })) as unknown[] & { x: number };
    expect(1 in back).toBe(false);
    expect(back.x).toBe(1);
    const far = roundTrip(CASES['a sparse array (length 2^31)']!()) as unknown[];
    expect(far.length).toBe(2 ** 31 + 1);
    expect(Object.keys(far)).toEqual(['5', String(2 ** 31), 'tag']);
  });

  it('an object referenced twice comes back once; a cycle comes back a cycle', () => {
    const o = { x: 1 };
    const back = roundTrip({ a: o, b: o }) as { a: object; b: object };
    expect(back.a).toBe(back.b);
    const cyc = roundTrip(CASES.cycles!()) as Record<string, unknown>;
    expect(cyc.self).toBe(cyc);
    expect((cyc.m as Map<unknown, unknown>).get(cyc.m)).toBe(cyc.m);
  });

  it('views that shared a buffer share one after the trip, offsets kept', () => {
    const back = roundTrip(CASES['typed arrays sharing one ArrayBuffer']!()) as Record<string, ArrayBufferView>;
    expect(back.a!.buffer).toBe(back.buffer);
    expect(back.f!.buffer).toBe(back.buffer);
    expect(back.d!.buffer).toBe(back.buffer);
    expect([back.a!.byteOffset, back.d!.byteOffset]).toEqual([3, 1]);
  });

  it('errors carry references and cycles through their own properties (the error block too)', () => {
    const payload = { big: 'x'.repeat(100) };
    const e = new RangeError('failed', { cause: payload }) as RangeError & Record<string, unknown>;
    e.payload = payload;
    e.self = e;
    const back = errorRoundTrip(e) as RangeError & Record<string, unknown>;
    expect(back).toBeInstanceOf(RangeError);
    expect(back.cause).toBe(back.payload);
    expect(back.self).toBe(back);
    const inValue = roundTrip({ e, again: e }) as { e: Error; again: Error };
    expect(inValue.e).toBe(inValue.again);
  });

  it('an error prop left out (it cannot cross) leaves no REF behind to what it had written', () => {
    for (const size of [3, 40, 5000]) { // the seen list's scan, its Map, and a large Map
      const objs = Array.from({ length: size }, (_, i) => ({ i }));
      const e = Object.assign(new Error('partial'), { bad: [...objs, () => 1], again: objs[size - 1], first: objs[0] });
      const back = errorRoundTrip(e) as Error & Record<string, unknown>;
      expect('bad' in back).toBe(false);
      expect(back.again).toEqual({ i: size - 1 });
      expect(back.first).toEqual({ i: 0 });
    }
  });
});

// ---- random values -----------------------------------------------------------------------
//
// A random tree of every kind the codec accepts, its typed arrays viewing a small pool of
// ArrayBuffers (so views share buffers), then random extra edges from containers to other
// objects of the tree (shared references, and cycles when the target is an ancestor). Errors
// are leaves of the edge pass: Node 20's structuredClone cannot rebuild a cycle through an
// Error ("Unable to deserialize cloned data"), so those are checked above instead.

class ViewSpec {
  constructor(readonly type: number, readonly buffer: number, readonly start: number, readonly count: number) {}
}

const key = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom('__proto__', '0', '12', 'constructor', 'length2'));
const leaf = fc.oneof(
  fc.double(), fc.integer(), fc.constantFrom(-0, NaN, Infinity, -Infinity, 2 ** 31, -(2 ** 31) - 1),
  fc.string(), fc.string({ unit: 'binary' }), fc.boolean(), fc.constant(null), fc.constant(undefined),
  fc.bigInt(), fc.date({ noInvalidDate: false }),
  fc.tuple(fc.string({ maxLength: 5 }), fc.subarray(['d', 'g', 'i', 'm', 's', 'u', 'y'])).map(([s, f]) => {
    const src = s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    return new RegExp(src, f.join(''));
  }),
  fc.oneof(fc.double(), fc.string({ maxLength: 5 }), fc.boolean(), fc.bigInt()).map((p) => Object(p) as object),
  fc.tuple(fc.nat({ max: TYPED.length }), fc.nat({ max: 2 }), fc.nat({ max: 16 }), fc.nat({ max: 4 }))
    .map(([t, b, s, c]) => new ViewSpec(t, b, s, c)),
  fc.constantFrom('buffer0', 'buffer1').map((name) => new ViewSpec(-1, name === 'buffer0' ? 0 : 1, 0, 0)),
);
const errorNames = [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError] as const;

const { value: treeArb } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object'), tie('map'), tie('set'), tie('error')),
  array: fc.tuple(
    fc.sparseArray(tie('value'), { maxLength: 10, maxNumElements: 6 }),
    fc.dictionary(fc.constantFrom('x', 'index', 'input', '__proto__', '-1', '4294967295'), tie('value'), { maxKeys: 2, noNullPrototype: true }),
    fc.boolean(),
  ).map(([a, named, far]) => {
    for (const [k, v] of Object.entries(named)) {
      Object.defineProperty(a, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    if (far) a[5000] = 'far'; // sparse: more holes than elements
    return a;
  }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5, noNullPrototype: true }), // (a null prototype is kept: not structuredClone's)
  map: fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 4 }).map((es) => new Map(es)),
  set: fc.array(tie('value'), { maxLength: 4 }).map((vs) => new Set(vs)),
  error: fc.tuple(fc.nat({ max: errorNames.length - 1 }), fc.option(fc.string({ maxLength: 8 })), fc.option(tie('value'))).map(([i, msg, cause]) => {
    const C = errorNames[i]!;
    const e = cause === null ? new C(msg ?? undefined) : new C(msg ?? undefined, { cause });
    return e as unknown;
  }),
}));

/** Replaces every ViewSpec in the tree (made fresh for this value) by a view on one of the
 *  pool's buffers, or by the buffer itself. Errors' causes included. */
function materialize(tree: unknown, pool: ArrayBuffer[]): unknown {
  const done = new Set<object>();
  const fix = (v: unknown): unknown => {
    if (v instanceof ViewSpec) {
      const b = pool[v.buffer % pool.length]!;
      if (v.type < 0) return b;
      const C = TYPED[v.type] ?? DataView;
      const size = C === DataView ? 1 : C.BYTES_PER_ELEMENT;
      const start = Math.min(v.start - (v.start % size), b.byteLength - (b.byteLength % size));
      const count = Math.min(v.count, Math.floor((b.byteLength - start) / size));
      return new (C as unknown as new (b: ArrayBuffer, o: number, n: number) => ArrayBufferView)(b, start, count);
    }
    if (typeof v !== 'object' || v === null || done.has(v)) return v;
    done.add(v);
    if (v instanceof Map) {
      const es = [...v].map(([k, x]) => [fix(k), fix(x)] as const);
      v.clear();
      for (const [k, x] of es) v.set(k, x);
    } else if (v instanceof Set) {
      const xs = [...v].map(fix);
      v.clear();
      for (const x of xs) v.add(x);
    } else if (v instanceof Error) {
      if (Object.hasOwn(v, 'cause')) Object.defineProperty(v, 'cause', { value: fix(v.cause), enumerable: false, writable: true, configurable: true });
    } else if (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype) {
      for (const k of Object.keys(v)) {
        Object.defineProperty(v, k, { value: fix((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
      }
    }
    return v;
  };
  return fix(tree);
}

/** The containers of the tree (arrays, plain objects, Maps, Sets; not inside Errors) and every
 *  object, in a stable order. */
function collect(root: unknown): { containers: object[]; objects: object[] } {
  const containers: object[] = [];
  const objects: object[] = [];
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v) || v instanceof Error) return;
    seen.add(v);
    objects.push(v);
    if (v instanceof Map) for (const [k, x] of v) { walk(k); walk(x); }
    else if (v instanceof Set) for (const x of v) walk(x);
    else if (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype) {
      containers.push(v);
      for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
    }
    if (v instanceof Map || v instanceof Set) containers.push(v);
  };
  walk(root);
  return { containers, objects };
}

/** Adds the edges (container index, target index, key) to the tree: shared references, and a
 *  cycle whenever the target is an ancestor (or the container itself). */
function addEdges(root: unknown, edges: [number, number, string][]): unknown {
  const { containers, objects } = collect(root);
  if (containers.length === 0 || objects.length === 0) return root;
  for (const [from, to, k] of edges) {
    const c = containers[from % containers.length]!;
    const t = objects[to % objects.length]!;
    if (c instanceof Map) c.set(c.size % 2 === 0 ? t : k, t);
    else if (c instanceof Set) c.add(t);
    else if (Array.isArray(c) && c.length < 50) c.push(t);
    else Object.defineProperty(c, `ref ${k}`, { value: t, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

const bufferPool = fc.array(fc.uint8Array({ maxLength: 24 }), { minLength: 2, maxLength: 2 });
const edges = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 3 })), { maxLength: 5 });

/** A random value the codec accepts, fresh each time it is drawn. */
const cloneable = fc.tuple(treeArb, bufferPool, edges).map(([tree, pool, es]) => {
  // Each draw gets its own buffers. (Shrinking may reuse a subtree already materialized and
  // given edges: still a value the codec accepts, compared with its own structuredClone.)
  const buffers = pool.map((bytes) => new Uint8Array(bytes).buffer as ArrayBuffer);
  return addEdges(materialize(tree, buffers), es);
});

const RUNS = 1000;

describe('random values match structuredClone', () => {
  it(`${RUNS} random values through the codec`, () => {
    fc.assert(fc.property(cloneable, (v) => {
      const d = graphDiff(roundTrip(v), structuredClone(v));
      if (d !== null) throw new Error(d);
    }), { numRuns: RUNS });
  });
});

// ---- through a real Scheduler --------------------------------------------------------------

const start = schedulers();
const SCHED_RUNS = 150;

describe.each(['wasm', 'js'] as const)('through a Scheduler (%s backend)', (backend) => {
  it(`${SCHED_RUNS} random values: argument out, result back; a worker's own spawn; an Error's own properties`, async () => {
    const s = await start(backend, 2);
    for (const [name, make] of Object.entries(CASES)) {
      const v = make();
      const d = graphDiff(await within(s.run('echo', v), 20000, `echo ${name}`), structuredClone(v));
      expect(d, name).toBeNull();
    }
    await fc.assert(fc.asyncProperty(cloneable, async (v) => {
      const expected = structuredClone(v);
      const echoed = await within(s.run('echo', v), 20000, 'echo');
      let d = graphDiff(echoed, expected);
      if (d !== null) throw new Error(`echo: ${d}`);
      d = graphDiff(await within(s.run('echoChild', v), 20000, 'echoChild'), expected);
      if (d !== null) throw new Error(`echoChild: ${d}`);
      const err = await within(s.run('throwWith', v), 20000, 'throwWith').then(() => null, (e: unknown) => e) as
        (RangeError & { value: unknown; again: unknown; self: unknown }) | null;
      if (!(err instanceof RangeError)) throw new Error(`throwWith did not reject with a RangeError: ${String(err)}`);
      if (err.self !== err) throw new Error('the error lost its own cycle');
      d = graphDiff([err.value, err.again], [expected, expected]);
      if (d !== null) throw new Error(`throwWith: ${d}`);
    }), { numRuns: SCHED_RUNS });
    await within(s.close(), 20_000, 'close');
  }, 120_000);
});

// ---- what the codec keeps beyond structuredClone, and what it refuses ----------------------

describe('beyond structuredClone', () => {
  it('keeps a null prototype, an Error\'s custom name and its extra own properties', () => {
    const dict = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    expect(Object.getPrototypeOf(roundTrip(dict))).toBeNull();
    const e = Object.assign(new Error('m'), { name: 'ValidationError', code: 'E_X' });
    const back = roundTrip(e) as Error & { code: string };
    expect([back.name, back.code]).toEqual(['ValidationError', 'E_X']);
  });

  it('refuses with the path what it cannot keep', () => {
    class Point { x = 1; }
    expect(() => writeSlot(views, heap, SLOT_TAG, SLOT, { p: [new Point()] }, "spawn('f'): argument 1", null))
      .toThrow("spawn('f'): argument 1 .p[0] is an instance of class Point;");
    expect(() => writeSlot(views, heap, SLOT_TAG, SLOT, Object.assign([1], { f: () => 1 }), "spawn('f'): argument 1", null))
      .toThrow("spawn('f'): argument 1 .f is a function;");
    expect(() => writeSlot(views, heap, SLOT_TAG, SLOT, [new WeakMap()], 'the result of task \'f\'', null))
      .toThrow("the result of task 'f' [0] is a WeakMap;");
  });
});
