// Decoding a value block (format: the table at the head of encode.ts) back into a JS value.
//
// A decoded value never aliases the block: strings, arrays, typed arrays and buffers are all
// fresh copies, so the block may be freed the moment decodeValue returns. Only SHARED_BUFFER
// and SHARED_VIEW items give shared memory back, through the registry.
//
// Identity: an item whose head carries REF_TARGET is remembered by its address as soon as its
// object exists (a container before its children, so a cycle finds it), and a REF item gives
// that very object back. A block without REFs costs one bit test per object.
//
// The walk keeps its cursor and the current views in module-level variables (no allocation
// per call); decodeValue saves and restores them in locals, so a nested decode (a registry
// lookup that decodes) is safe.

import {
  K_UNDEFINED, K_NULL, K_FALSE, K_TRUE, K_FLOAT64, K_INT32, K_BIGINT_POS, K_BIGINT_NEG,
  K_ASCII, K_LATIN1, K_UTF16, K_UTF16_LONE, K_ARRAY, K_NUMBER_ARRAY, K_OBJECT, K_OBJECT_NULL, K_DATE, K_MAP, K_SET,
  K_ERROR, K_ABSENT, K_THROWN, K_ARRAY_BUFFER, K_SHARED_BUFFER, K_TYPED, K_SHARED_VIEW,
  K_REF, K_HOLE, K_ARRAY_PROPS, K_SPARSE_ARRAY, K_REGEXP, K_BOXED,
  N_ESCAPE, HEAD_KIND_MASK, HEAD_N_SHIFT, REF_TARGET, BLOCK_PREFIX, VIEW_COUNT, VIEW_CTORS,
  align4,
} from './format.js';
import type { SharedRegistry } from './hooks.js';
import { decodeSmall, NOT_SMALL } from './small.js';
import { cachedKey, fromUnits, KEY_CACHE_MAX_LENGTH } from './strings.js';
import type { Views } from './views.js';

/** Strings up to this many code units are built from their code units (fromUnits); longer
 *  ones by TextDecoder where the kind allows it (ASCII, UTF16), else from their code units in
 *  chunks. Measured on Node 20: TextDecoder costs ~110 ns at any short length and overtakes
 *  fromCharCode.apply between 24 and 48 code units. */
const SHORT_STRING = 32;

const utf8Decoder = new TextDecoder('utf-8');
const utf16Decoder = new TextDecoder('utf-16le', { ignoreBOM: true }); // keep a leading U+FEFF

/** Whether TextDecoder accepts views on shared memory here (the Encoding standard allows it;
 *  on an engine that refuses, it gets a private copy of the bytes). */
const decodesShared: boolean = (() => {
  try {
    utf8Decoder.decode(new Uint8Array(new SharedArrayBuffer(1)));
    return true;
  } catch {
    return false;
  }
})();

let u8: Uint8Array = new Uint8Array(0);
let u16: Uint16Array = new Uint16Array(0);
let u32: Uint32Array = new Uint32Array(0);
let i32: Int32Array = new Int32Array(0);
let f64: Float64Array = new Float64Array(0);
/** Byte address of the next head word. */
let p = 0;
let registry: SharedRegistry | null = null;
/** Address of the block being decoded (REF offsets count from it). */
let base = 0;
/** REF_TARGET objects met so far, by item address; made at the first one. */
let refs: Map<number, unknown> | null = null;

/** Remembers the object of the item at `at` when its head h says a REF will come back to it. */
function remember(h: number, at: number, o: unknown): void {
  if ((h & REF_TARGET) !== 0) (refs ??= new Map()).set(at, o);
}

/** What item() returns for a HOLE: never a value. */
const HOLE = Symbol('hole');

/** Reads the n of a head word h (the cursor is just past h). */
function count(h: number): number {
  const n = h >>> HEAD_N_SHIFT;
  if (n !== N_ESCAPE) return n;
  const real = u32[p >>> 2]!;
  p += 4;
  return real;
}

function corrupt(what: string, at: number): RangeError {
  return new RangeError(`decode: ${what} at address ${at} (not a value block, or freed)`);
}

// ---- strings ------------------------------------------------------------------------------

/** TextDecoder over the bytes [at, at + bytes) of memory. */
function decodeBytes(decoder: TextDecoder, at: number, bytes: number): string {
  const view = u8.subarray(at, at + bytes);
  return decoder.decode(decodesShared ? view : view.slice());
}

/** The string item of kind `kind` (a string kind) with n code units at the cursor. */
function string(kind: number, n: number): string {
  const at = p;
  if (kind <= K_LATIN1) {
    p = align4(at + n);
    return kind === K_ASCII && n > SHORT_STRING ? decodeBytes(utf8Decoder, at, n) : fromUnits(u8, at, n);
  }
  p = align4(at + 2 * n);
  return kind === K_UTF16 && n > SHORT_STRING ? decodeBytes(utf16Decoder, at, 2 * n) : fromUnits(u16, at >>> 1, n);
}

/** A string item (an object key, an error's name or message). */
function text(): string {
  const at = p;
  const h = u32[p >>> 2]!;
  p += 4;
  const kind = h & HEAD_KIND_MASK;
  if (kind === K_ASCII) {
    const n = h >>> HEAD_N_SHIFT;
    if (n <= KEY_CACHE_MAX_LENGTH) {
      const at = p;
      p = align4(at + n);
      return cachedKey(u8, at, n);
    }
  }
  if (kind >= K_ASCII && kind <= K_UTF16_LONE) return string(kind, count(h));
  throw corrupt(`expected a string item, found kind 0x${kind.toString(16)}`, at);
}

// ---- items --------------------------------------------------------------------------------

function item(): unknown {
  const at = p;
  const h = u32[p >>> 2]!;
  p += 4;
  const kind = h & HEAD_KIND_MASK;
  switch (kind) {
    case K_UNDEFINED: return undefined;
    case K_NULL: return null;
    case K_FALSE: return false;
    case K_TRUE: return true;
    case K_INT32: {
      const v = i32[p >>> 2]!;
      p += 4;
      return v;
    }
    case K_FLOAT64: {
      if ((p & 4) !== 0) p += 4;
      const v = f64[p >>> 3]!;
      p += 8;
      return v;
    }
    case K_ASCII:
    case K_LATIN1:
    case K_UTF16:
    case K_UTF16_LONE: return string(kind, count(h));
    case K_ARRAY:
    case K_ARRAY_PROPS: {
      const n = count(h);
      const a = new Array<unknown>(n);
      remember(h, at, a);
      for (let i = 0; i < n; i++) {
        const v = item();
        if (v !== HOLE) a[i] = v;
      }
      if (kind === K_ARRAY_PROPS) pairs(a);
      return a;
    }
    case K_NUMBER_ARRAY: {
      const n = count(h);
      if ((p & 4) !== 0) p += 4;
      const q = p >>> 3;
      p += 8 * n;
      const a = new Array<number>(n);
      for (let i = 0; i < n; i++) a[i] = f64[q + i]!;
      remember(h, at, a);
      return a;
    }
    case K_SPARSE_ARRAY: {
      const a = new Array<unknown>(count(h));
      remember(h, at, a);
      pairs(a);
      return a;
    }
    case K_OBJECT:
    case K_OBJECT_NULL: {
      const n = count(h);
      const o: Record<string, unknown> = kind === K_OBJECT ? {} : Object.create(null);
      remember(h, at, o);
      for (let i = 0; i < n; i++) {
        const k = text();
        const v = item();
        if (k === '__proto__') define(o, k, v, true);
        else o[k] = v;
      }
      return o;
    }
    case K_REF: {
      const off = u32[p >>> 2]!;
      p += 4;
      const o = refs?.get(base + off);
      if (o === undefined) throw corrupt(`REF to offset ${off}, where no object was remembered`, at);
      return o;
    }
    case K_HOLE: return HOLE;
    case K_DATE: {
      if ((p & 4) !== 0) p += 4;
      const t = f64[p >>> 3]!;
      p += 8;
      const d = new Date(t);
      remember(h, at, d);
      return d;
    }
    case K_MAP: {
      const n = count(h);
      const m = new Map<unknown, unknown>();
      remember(h, at, m);
      for (let i = 0; i < n; i++) {
        const k = item();
        m.set(k, item());
      }
      return m;
    }
    case K_SET: {
      const n = count(h);
      const s = new Set<unknown>();
      remember(h, at, s);
      for (let i = 0; i < n; i++) s.add(item());
      return s;
    }
    case K_ERROR: return error(h, at);
    case K_THROWN: return item();
    case K_ARRAY_BUFFER: {
      const n = count(h);
      const b = u8.slice(p, p + n).buffer;
      p = align4(p + n);
      remember(h, at, b);
      return b;
    }
    case K_SHARED_BUFFER: {
      const id = u32[p >>> 2]!;
      p += 4;
      const b = lookup(id, at);
      remember(h, at, b);
      return b;
    }
    case K_REGEXP: {
      const source = text();
      const r = new RegExp(source, text());
      remember(h, at, r);
      return r;
    }
    case K_BOXED: {
      const o = Object(item()) as object;
      remember(h, at, o);
      return o;
    }
    case K_BIGINT_POS:
    case K_BIGINT_NEG: return bigint(count(h), kind === K_BIGINT_NEG);
    default: {
      let v: ArrayBufferView;
      if (kind >= K_TYPED && kind < K_TYPED + VIEW_COUNT) v = typed(kind - K_TYPED, at);
      else if (kind >= K_SHARED_VIEW && kind < K_SHARED_VIEW + VIEW_COUNT) v = sharedView(kind - K_SHARED_VIEW, at);
      else throw corrupt(`unknown item kind 0x${kind.toString(16)}`, at);
      remember(h, at, v);
      return v;
    }
  }
}

/** u32 m, then m (key, value) pairs set on the array `a` (ARRAY_PROPS, SPARSE_ARRAY). */
function pairs(a: unknown[]): void {
  const m = u32[p >>> 2]!;
  p += 4;
  for (let i = 0; i < m; i++) {
    const k = text();
    const v = item();
    if (k === '__proto__') define(a, k, v, true);
    else (a as unknown as Record<string, unknown>)[k] = v;
  }
}

function define(o: object, key: string, value: unknown, enumerable: boolean): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable, configurable: true });
}

function bigint(words: number, negative: boolean): bigint {
  if (words === 0) return 0n;
  let hex = '0x';
  const w = p >>> 2;
  hex += u32[w + words - 1]!.toString(16);
  for (let i = words - 2; i >= 0; i--) hex += u32[w + i]!.toString(16).padStart(8, '0');
  p += 4 * words;
  const v = BigInt(hex);
  return negative ? -v : v;
}

function viewCtor(t: number, at: number): new (buffer: ArrayBufferLike, byteOffset?: number, length?: number) => ArrayBufferView {
  const ctor = VIEW_CTORS[t];
  if (ctor === null || ctor === undefined) throw corrupt(`view type ${t} (not available on this platform)`, at);
  return ctor;
}

/** TYPED: byteOffset, length, then the buffer's item (ARRAY_BUFFER, or a REF to one). */
function typed(t: number, at: number): ArrayBufferView {
  const ctor = viewCtor(t, at);
  const w = p >>> 2;
  const byteOffset = u32[w]!;
  const length = u32[w + 1]!;
  p += 8;
  const buffer = item();
  if (!(buffer instanceof ArrayBuffer)) throw corrupt('a view whose buffer item is not an ArrayBuffer', at);
  // length counts elements, or bytes for a DataView: the third argument of either constructor.
  return new ctor(buffer, byteOffset, length);
}

function sharedView(t: number, at: number): ArrayBufferView {
  const ctor = viewCtor(t, at);
  const w = p >>> 2;
  const id = u32[w]!;
  const byteOffset = u32[w + 1]!;
  const length = u32[w + 2]!;
  p += 12;
  // length counts elements, or bytes for a DataView: the third argument of either constructor.
  return new ctor(lookup(id, at), byteOffset, length);
}

function lookup(id: number, at: number): SharedArrayBuffer {
  if (registry === null) {
    throw new TypeError(`decode: the value shares SharedArrayBuffer #${id} (address ${at}), but no shared registry was given`);
  }
  return registry.lookup(id);
}

// ---- errors -------------------------------------------------------------------------------

type ErrorCtor = new (message?: string, options?: { cause: unknown }) => Error;

/** Built-in error classes, by name: an error of one of these names decodes as that class. */
const ERROR_CTORS: Record<string, ErrorCtor> = Object.assign(Object.create(null) as Record<string, ErrorCtor>, {
  Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError,
});

/** The ERROR item after its head h (at `at`): rebuilds the error with the class its name names
 *  (else a plain Error carrying the name), its message, stack, cause and extra props. The
 *  error exists before its cause and props are decoded, so they may refer back to it. */
function error(h: number, at: number): Error {
  const extras = count(h);
  const name = text();
  const message = item() as string | undefined;
  const stack = item();
  let e: Error;
  if (name === 'AggregateError' && typeof AggregateError === 'function') {
    e = new AggregateError([], message);
  } else {
    const ctor = ERROR_CTORS[name];
    e = ctor === undefined ? new Error(message) : new ctor(message);
    if (ctor === undefined) define(e, 'name', name, false);
  }
  define(e, 'stack', stack, false);
  remember(h, at, e);
  if ((u32[p >>> 2]! & HEAD_KIND_MASK) !== K_ABSENT) define(e, 'cause', item(), false);
  else p += 4;
  for (let i = 0; i < extras; i++) {
    const k = text();
    const v = item();
    if (k === 'errors' && name === 'AggregateError') define(e, k, v, false);
    else if (k === '__proto__') define(e, k, v, true);
    else (e as unknown as Record<string, unknown>)[k] = v;
  }
  return e;
}

// ---- entry points -------------------------------------------------------------------------

/** The kind of a block's top-level item. Any thread. */
export function blockKind(views: Views, addr: number): number {
  views.ensure(addr + BLOCK_PREFIX + 4);
  return views.u32[(addr + BLOCK_PREFIX) >>> 2]! & HEAD_KIND_MASK;
}

/** The byte length of a block's encoding (its first word). Any thread. */
export function blockSize(views: Views, addr: number): number {
  views.ensure(addr + BLOCK_PREFIX);
  return views.u32[addr >>> 2]!;
}

/**
 * Decodes the value block at `addr`. Does not free it: the block stays valid (and may be
 * decoded again) until someone calls heapFree / freeSlot. The result shares nothing with the
 * block. Any thread; `views` must be this thread's; `shared` is needed only when the value holds
 * SharedArrayBuffers (a TypeError otherwise).
 */
export function decodeValue(views: Views, addr: number, shared: SharedRegistry | null): unknown {
  const small = decodeSmall(views, addr); // a small shape, read straight (small.ts)
  return small !== NOT_SMALL ? small : decodeGeneral(views, addr, shared);
}

/** decodeValue without the small values' fast path: the general decoder alone, for the tests
 *  and benchmarks that compare the two. Any thread. */
export function decodeGeneral(views: Views, addr: number, shared: SharedRegistry | null): unknown {
  const size = blockSize(views, addr);
  if (size < BLOCK_PREFIX + 4 || (size & 3) !== 0) throw corrupt(`bad block length ${size}`, addr);
  views.ensure(addr + size);
  const s8 = u8, s16 = u16, s32 = u32, si32 = i32, sf64 = f64, sp = p, sreg = registry;
  const sbase = base, srefs = refs;
  base = addr;
  refs = null;
  u8 = views.u8;
  u16 = views.u16;
  u32 = views.u32;
  i32 = views.i32;
  f64 = views.f64;
  p = addr + BLOCK_PREFIX;
  registry = shared;
  try {
    const v = item();
    if (p > addr + size) throw corrupt(`block overran its ${size} bytes`, addr);
    return v;
  } finally {
    u8 = s8;
    u16 = s16;
    u32 = s32;
    i32 = si32;
    f64 = sf64;
    p = sp;
    registry = sreg;
    base = sbase;
    refs = srefs;
  }
}
