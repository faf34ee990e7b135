// Small values: the codec's fast path (docs/DESIGN.md "Small values").
//
// What a task most often returns or passes besides numbers is small and flat: a tuple of a few
// numbers (`[nodes, leaves, depth]`), a few short strings or booleans, a small record
// (`{ id, name, ok }`), a short string. The general encoder (encode.ts) walks such a value with
// its scratch buffer, identity list and depth count, then copies the bytes into a block; the
// general decoder saves and restores its module state around its walk. Here those shapes are
// written straight into their block and read straight back, in the same bytes: every block
// encodeSmall writes is the block encode.ts would write for that value, byte for byte, so
// either decoder reads either encoder's blocks and the format table in encode.ts stays the one
// description. test/small.test.ts checks that on random values, and both against
// structuredClone.
//
// The shapes (top level only; anything else is declined, and the general codec takes it):
//   - a string of at most SMALL_STRING code units, each below 0x100 (ASCII or LATIN1);
//   - an array of at most SMALL_ITEMS elements, each a number, such a string, a boolean, null
//     or undefined, with no hole and no named property (Object.keys lists exactly its indices:
//     see `dense`); NUMBER_ARRAY when every element is a number, else ARRAY;
//   - an object with the prototype Object.prototype or null, at most SMALL_ITEMS own
//     enumerable keys, each such a string, each value as an array's element.
// Exactness: a value the fast path cannot prove it writes as encode.ts would is declined (an
// element or property that is an object, a bigint, a long or UTF-16 string; a hole; a named
// property on an array; any other prototype), and the general codec takes it. Each element or
// property is read once ([[Get]], as structuredClone and encode.ts read them): a value declined
// after some of it was read is handed over with what was read (RESUME, `handover`), and the
// general encoder goes on from there without reading it again, so a getter runs as often as
// it would without the fast path, and one that throws gives the same TypeError.
//
// Any thread; `views` must be this thread's.

import {
  K_ARRAY, K_ASCII, K_FALSE, K_FLOAT64, K_INT32, K_LATIN1, K_NULL, K_NUMBER_ARRAY, K_OBJECT, K_OBJECT_NULL,
  K_TRUE, K_UNDEFINED, HEAD_KIND_MASK, HEAD_N_SHIFT, BLOCK_PREFIX,
} from './format.js';
import type { Heap } from './hooks.js';
import { cachedKey, fromUnits, KEY_CACHE_MAX_LENGTH } from './strings.js';
import type { Views } from './views.js';

/** The most elements (or keys) a small array (or object) has. Past it the general codec's
 *  fixed costs are a small part of the whole. */
export const SMALL_ITEMS = 16;
/** The longest small string, in code units (the general decoder's own switch to TextDecoder
 *  lies at 32 too: decode.ts SHORT_STRING). */
export const SMALL_STRING = 32;

/** What decodeSmall returns for a block that is not of a small shape. */
export const NOT_SMALL: unique symbol = Symbol('not small');

/** Object.keys' strings of the indices 0..SMALL_ITEMS-1. */
const INDEX: readonly string[] = Array.from({ length: SMALL_ITEMS }, (_, i) => String(i));

const objectKeys = Object.keys;
const getPrototypeOf = Object.getPrototypeOf;
const isArray = Array.isArray;

// ---- the encoder's scratch: the items read in the first pass -------------------------------
//
// Pass 1 reads every element (or key and value) once, checks its kind and sums the block's
// size; pass 2 allocates the block at its exact size and writes it. Numbers wait in `nums` (a
// Float64Array: no boxing), strings in `strs`, the item kinds in `kinds`. A getter read in pass
// 1 may encode a value of its own (a task spawning from a getter): `busy` sends that inner one
// to the general codec, so the scratch is never shared.

const nums = new Float64Array(SMALL_ITEMS);
/** Item kinds: an array's element i at i, an object's value i at 2i + 1 (its keys are written
 *  from Object.keys' list in pass 2, which checks their code units as it copies them). */
const kinds = new Uint8Array(2 * SMALL_ITEMS);
const strs: string[] = new Array<string>(2 * SMALL_ITEMS).fill('');
let busy = false;

/** The kind of string s as a small item (K_ASCII or K_LATIN1), or -1 (too long, or a code
 *  unit above 0xFF: the general codec writes those). */
function stringKind(s: string): number {
  const n = s.length;
  if (n > SMALL_STRING) return -1;
  let all = 0;
  for (let i = 0; i < n; i++) all |= s.charCodeAt(i);
  return all < 0x80 ? K_ASCII : all < 0x100 ? K_LATIN1 : -1;
}

/** Pass 1 for one element or property value: its kind into kinds[k] (the number into nums[j],
 *  the string into strs[k]), and the byte position after it when it starts at `pos`; -1 when
 *  the value is not small. */
function scanItem(x: unknown, k: number, j: number, pos: number): number {
  switch (typeof x) {
    case 'number':
      nums[j] = x;
      if ((x | 0) === x && (x !== 0 || 1 / x > 0)) { kinds[k] = K_INT32; return pos + 8; }
      kinds[k] = K_FLOAT64;
      pos += 4;
      return ((pos & 4) !== 0 ? pos + 4 : pos) + 8; // pad to 8, then the f64
    case 'string': {
      const kind = stringKind(x);
      if (kind < 0) return -1;
      kinds[k] = kind;
      strs[k] = x;
      return pos + 4 + ((x.length + 3) & ~3);
    }
    case 'boolean': kinds[k] = x ? K_TRUE : K_FALSE; return pos + 4;
    case 'undefined': kinds[k] = K_UNDEFINED; return pos + 4;
    default:
      if (x !== null) return -1;
      kinds[k] = K_NULL;
      return pos + 4;
  }
}

/** Pass 2 for item k (number j) at byte address p; returns the address after it. */
function writeItem(v: Views, k: number, j: number, p: number): number {
  const kind = kinds[k]!;
  switch (kind) {
    case K_INT32:
      v.u32[p >>> 2] = K_INT32;
      v.i32[(p >>> 2) + 1] = nums[j]!;
      return p + 8;
    case K_FLOAT64:
      v.u32[p >>> 2] = K_FLOAT64;
      p += 4;
      if ((p & 4) !== 0) { v.u32[p >>> 2] = 0; p += 4; }
      v.f64[p >>> 3] = nums[j]!;
      return p + 8;
    case K_ASCII:
    case K_LATIN1: {
      const s = strs[k]!;
      const n = s.length;
      v.u32[p >>> 2] = kind | (n << HEAD_N_SHIFT);
      p += 4;
      const u8 = v.u8;
      for (let i = 0; i < n; i++) u8[p + i] = s.charCodeAt(i);
      const end = p + ((n + 3) & ~3);
      for (let i = p + n; i < end; i++) u8[i] = 0; // padding bytes are zero (encode.ts)
      return end;
    }
    default:
      v.u32[p >>> 2] = kind;
      return p + 4;
  }
}

/** A block of `size` bytes (its length word written), or -size when the heap is full. */
function block(v: Views, heap: Heap, size: number): number {
  const b = heap.heapAlloc(size);
  if (b === 0) return -size;
  if (b + size > v.end) {
    try {
      v.ensure(b + size);
    } catch (e) {
      heap.heapFree(b);
      throw e;
    }
  }
  v.u32[b >>> 2] = size;
  return b;
}

/** True when array a (of length n <= SMALL_ITEMS) has every index 0..n-1 as an own enumerable
 *  property and no other own enumerable property. Object.keys lists the indices first, in
 *  ascending order, then the named keys: with exactly n keys, the last one is "n - 1" only when
 *  no index is missing (a hole would leave room for a named key, which is never an index
 *  string). One engine call, as encode.ts's ownCount; it also rules out the hole that an
 *  indexed property on Array.prototype would fill when read. */
function dense(a: unknown[], n: number): boolean {
  const keys = objectKeys(a);
  return keys.length === n && (n === 0 || keys[n - 1] === INDEX[n - 1]);
}

function smallString(v: Views, heap: Heap, s: string): number {
  const kind = stringKind(s);
  if (kind < 0) return 0;
  strs[0] = s;
  kinds[0] = kind;
  const b = block(v, heap, BLOCK_PREFIX + 4 + ((s.length + 3) & ~3));
  if (b > 0) writeItem(v, 0, 0, b + BLOCK_PREFIX);
  return b;
}

/** What encodeSmall returns when it read part of a value and met something it does not write:
 *  `handover` holds what it read, and the general encoder goes on from there (encode.ts
 *  resumeSmall), so no element or property is read twice. */
export const RESUME = -1;

/**
 * A value encodeSmall began and handed over (RESUME): the container, its keys (null for an
 * array, dense with no named property when they were listed), its kind (K_ARRAY, K_OBJECT or
 * K_OBJECT_NULL), how many of its items it read and keeps (`count`: small ones, in the scratch:
 * handedItem gives them back), then `last`, the item it read and does not write (or what its
 * read threw: `threw`), unless it stopped at a key it does not write before reading item
 * `count` (`stop`). Valid until the next encodeSmall: encode.ts takes the items first, before
 * anything of the value's own code can run.
 */
export const handover = {
  value: null as object | null,
  keys: null as string[] | null,
  kind: 0,
  count: 0,
  last: undefined as unknown,
  threw: false,
  stop: false,
};

/** Where handed-over item i's kind is in the scratch (arrays: i; objects' values: 2i + 1). */
let handedStride = 1;
let handedOff = 0;

/** Item i (< handover.count) of the value handed over, as it was read. encode.ts only, at once. */
export function handedItem(i: number): unknown {
  const k = handedStride * i + handedOff;
  switch (kinds[k]) {
    case K_INT32: case K_FLOAT64: return nums[i];
    case K_ASCII: case K_LATIN1: return strs[k];
    case K_TRUE: return true;
    case K_FALSE: return false;
    case K_NULL: return null;
    default: return undefined;
  }
}

/** Hands the container over after it read items 0..m-1 (small: in the scratch; kinds at
 *  `stride` * i + `off`) and then `last` (not small, or thrown when `threw`), or (`stop`) when
 *  it met a key it does not write before reading item m. */
function handOver(value: object, keys: string[] | null, kind: number, m: number, stride: number, off: number,
  last: unknown, threw: boolean, stop = false): number {
  handedStride = stride;
  handedOff = off;
  handover.value = value;
  handover.keys = keys;
  handover.kind = kind;
  handover.count = m;
  handover.last = last;
  handover.threw = threw;
  handover.stop = stop;
  return RESUME;
}

function smallArray(v: Views, heap: Heap, a: unknown[]): number {
  const n = a.length;
  if (n > SMALL_ITEMS || !dense(a, n)) return 0;
  let i = 0;
  let x: unknown;
  try {
    for (; i < n; i++) {
      const y = a[i]; // a number stays unboxed on its way into nums (x would box it)
      if (typeof y !== 'number') { x = y; break; }
      nums[i] = y;
    }
  } catch (e) {
    for (let j = 0; j < i; j++) kinds[j] = K_FLOAT64; // read as numbers (handedItem gives nums[j])
    return handOver(a, null, K_ARRAY, i, 1, 0, e, true);
  }
  if (i < n) {
    // Not numbers only: an ARRAY of items (the numbers read so far are items too).
    let pos = 8; // after the block's length word and the ARRAY head
    for (let j = 0; j < i; j++) pos = scanItem(nums[j], j, j, pos);
    for (;;) {
      pos = scanItem(x, i, i, pos);
      if (pos < 0) return handOver(a, null, K_ARRAY, i, 1, 0, x, false);
      if (++i === n) break;
      try {
        x = a[i];
      } catch (e) {
        return handOver(a, null, K_ARRAY, i, 1, 0, e, true);
      }
    }
    const b = block(v, heap, pos);
    if (b < 0) return b;
    v.u32[(b >>> 2) + 1] = K_ARRAY | (n << HEAD_N_SHIFT);
    let p = b + 8;
    for (let j = 0; j < n; j++) p = writeItem(v, j, j, p);
    return b;
  }
  if (n === 0) {
    const b = block(v, heap, 8);
    if (b > 0) v.u32[(b >>> 2) + 1] = K_ARRAY; // encode.ts: an empty array is an ARRAY of 0
    return b;
  }
  // NUMBER_ARRAY: the head at +4, the f64s from +8 (already 8-aligned: no pad word).
  const b = block(v, heap, 8 + 8 * n);
  if (b < 0) return b;
  v.u32[(b >>> 2) + 1] = K_NUMBER_ARRAY | (n << HEAD_N_SHIFT);
  const f64 = v.f64;
  const q = (b + 8) >>> 3;
  for (let j = 0; j < n; j++) f64[q + j] = nums[j]!;
  return b;
}

function smallObject(v: Views, heap: Heap, o: Record<string, unknown>, kind: number): number {
  const keys = objectKeys(o);
  const n = keys.length;
  if (n > SMALL_ITEMS) return 0;
  // Pass 1 reads the values and sizes the keys; their code units are checked as pass 2 writes
  // them (a key above 0xFF: the block goes back and what was read is handed over).
  let pos = 8; // after the block's length word and the OBJECT head
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    const kn = key.length;
    if (kn > SMALL_STRING) return i === 0 ? 0 : handOver(o, keys, kind, i, 2, 1, undefined, false, true);
    let x: unknown;
    try {
      x = o[key];
    } catch (e) {
      return handOver(o, keys, kind, i, 2, 1, e, true);
    }
    pos = scanItem(x, 2 * i + 1, i, pos + 4 + ((kn + 3) & ~3));
    if (pos < 0) return handOver(o, keys, kind, i, 2, 1, x, false);
  }
  const b = block(v, heap, pos);
  if (b < 0) return b;
  v.u32[(b >>> 2) + 1] = kind | (n << HEAD_N_SHIFT);
  const u8 = v.u8;
  let p = b + 8;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    const kn = key.length;
    const q = p + 4;
    let all = 0;
    for (let j = 0; j < kn; j++) {
      const c = key.charCodeAt(j);
      all |= c;
      u8[q + j] = c;
    }
    if (all > 0xff) { // a UTF-16 key: the general encoder writes it
      heap.heapFree(b);
      return handOver(o, keys, kind, n, 2, 1, undefined, false, true);
    }
    v.u32[p >>> 2] = (all < 0x80 ? K_ASCII : K_LATIN1) | (kn << HEAD_N_SHIFT);
    p = q + ((kn + 3) & ~3);
    for (let j = q + kn; j < p; j++) u8[j] = 0; // padding bytes are zero (encode.ts)
    p = writeItem(v, 2 * i + 1, i, p);
  }
  return b;
}

/**
 * Writes `value` into a new value block when it has one of the small shapes; returns the block's
 * address. Otherwise: 0 when it read nothing of it (not an array or a plain object, too many
 * items, a key not small, a hole, a named property on an array; the caller encodes it with the
 * general codec from the start), RESUME when it read some of it and met an item it does not
 * write (`handover` has what it read; the general encoder goes on from there), or -size when
 * it has a small shape but the heap has no block of its size bytes (the caller's RangeError).
 * Any thread; `views` must be this thread's.
 */
export function encodeSmall(views: Views, heap: Heap, value: unknown): number {
  if (busy) return 0;
  if (typeof value === 'string') return smallString(views, heap, value);
  if (typeof value !== 'object' || value === null) return 0;
  busy = true;
  try {
    if (isArray(value)) return smallArray(views, heap, value);
    const proto = getPrototypeOf(value) as object | null;
    if (proto === Object.prototype) return smallObject(views, heap, value as Record<string, unknown>, K_OBJECT);
    if (proto === null) return smallObject(views, heap, value as Record<string, unknown>, K_OBJECT_NULL);
    return 0;
  } catch {
    return 0; // a proxy's trap threw before any value was read: the general codec says where
  } finally {
    busy = false;
  }
}

// ---- decoding ---------------------------------------------------------------------------------

/** Where the item read by `item` or `key` ends (set just before it returns). */
let after = 0;

/** The primitive item at address p (one smallItems checked): the number, string, boolean,
 *  null or undefined encode.ts writes there; `after` is set to the address after it. */
function item(v: Views, p: number): unknown {
  const h = v.u32[p >>> 2]!;
  switch (h & HEAD_KIND_MASK) {
    case K_INT32: after = p + 8; return v.i32[(p >>> 2) + 1];
    case K_FLOAT64:
      p += 4;
      if ((p & 4) !== 0) p += 4;
      after = p + 8;
      return v.f64[p >>> 3];
    case K_TRUE: after = p + 4; return true;
    case K_FALSE: after = p + 4; return false;
    case K_NULL: after = p + 4; return null;
    case K_UNDEFINED: after = p + 4; return undefined;
    default: { // K_ASCII, K_LATIN1
      const n = h >>> HEAD_N_SHIFT;
      after = p + 4 + ((n + 3) & ~3);
      return fromUnits(v.u8, p + 4, n);
    }
  }
}

/** The key string item at p (ASCII or LATIN1, smallItems checked); `after` set as by item. */
function key(v: Views, p: number): string {
  const h = v.u32[p >>> 2]!;
  const n = h >>> HEAD_N_SHIFT;
  after = p + 4 + ((n + 3) & ~3);
  return (h & HEAD_KIND_MASK) === K_ASCII && n <= KEY_CACHE_MAX_LENGTH ? cachedKey(v.u8, p + 4, n) : fromUnits(v.u8, p + 4, n);
}

/** An array of the n f64s from f64 index q, packed (a literal, or pushes: never holey). */
function numbers(f64: Float64Array, q: number, n: number): number[] {
  switch (n) {
    case 1: return [f64[q]!];
    case 2: return [f64[q]!, f64[q + 1]!];
    case 3: return [f64[q]!, f64[q + 1]!, f64[q + 2]!];
    case 4: return [f64[q]!, f64[q + 1]!, f64[q + 2]!, f64[q + 3]!];
  }
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(f64[q + i]!);
  return a;
}

/**
 * Checks the n items (with keys when `keyed`) from address p of a block ending at `end`: true
 * when every one is a small item (and key) that lies inside the block, so the block can be
 * built without a second look. Builds nothing, makes no string.
 */
function smallItems(v: Views, p: number, end: number, n: number, keyed: boolean): boolean {
  const u32 = v.u32;
  for (let i = 0; i < n; i++) {
    if (keyed) {
      const k = u32[p >>> 2]!;
      const kk = k & HEAD_KIND_MASK;
      const kn = k >>> HEAD_N_SHIFT;
      if ((kk !== K_ASCII && kk !== K_LATIN1) || kn > SMALL_STRING) return false;
      p += 4 + ((kn + 3) & ~3);
      if (p > end) return false;
    }
    const h = u32[p >>> 2]!;
    switch (h & HEAD_KIND_MASK) {
      case K_INT32: p += 8; break;
      case K_FLOAT64: p += 4; if ((p & 4) !== 0) p += 4; p += 8; break;
      case K_ASCII:
      case K_LATIN1: {
        const sn = h >>> HEAD_N_SHIFT;
        if (sn > SMALL_STRING) return false;
        p += 4 + ((sn + 3) & ~3);
        break;
      }
      case K_TRUE: case K_FALSE: case K_NULL: case K_UNDEFINED: p += 4; break;
      default: return false;
    }
    if (p > end) return false;
  }
  return true;
}

/**
 * The value in the block at `addr` when its top item has a small shape (as encodeSmall writes
 * them, whoever wrote the block), else NOT_SMALL: the caller then decodes it with decodeGeneral,
 * which gives the same value for a small block and a RangeError for a corrupt one. A container's
 * items are all checked before it is built, so a block that is not small costs a scan of its
 * top items, no allocation. Does not free the block. Any thread; `views` must be this thread's.
 */
export function decodeSmall(views: Views, addr: number): unknown {
  if (addr + 8 > views.end) {
    views.refresh();
    if (addr + 8 > views.end) return NOT_SMALL;
  }
  const size = views.u32[addr >>> 2]!;
  const end = addr + size;
  if (size < 8 || (size & 3) !== 0) return NOT_SMALL;
  if (end > views.end) {
    views.refresh();
    if (end > views.end) return NOT_SMALL;
  }
  const h = views.u32[(addr + 4) >>> 2]!;
  const kind = h & HEAD_KIND_MASK;
  const n = h >>> HEAD_N_SHIFT;
  let p = addr + 8;
  switch (kind) {
    case K_NUMBER_ARRAY:
      if (n > SMALL_ITEMS || p + 8 * n > end) return NOT_SMALL;
      return n === 0 ? [] : numbers(views.f64, p >>> 3, n);
    case K_ARRAY: {
      if (n > SMALL_ITEMS || !smallItems(views, p, end, n, false)) return NOT_SMALL;
      const a: unknown[] = [];
      for (let i = 0; i < n; i++) {
        a.push(item(views, p));
        p = after;
      }
      return a;
    }
    case K_OBJECT:
    case K_OBJECT_NULL: {
      if (n > SMALL_ITEMS || !smallItems(views, p, end, n, true)) return NOT_SMALL;
      const o: Record<string, unknown> = kind === K_OBJECT ? {} : Object.create(null) as Record<string, unknown>;
      for (let i = 0; i < n; i++) {
        const k = key(views, p);
        const x = item(views, after);
        p = after;
        // As decode.ts: an own "__proto__" is defined, not set (setting it would change the
        // prototype).
        if (k === '__proto__') Object.defineProperty(o, k, { value: x, writable: true, enumerable: true, configurable: true });
        else o[k] = x;
      }
      return o;
    }
    case K_ASCII:
    case K_LATIN1:
      if (!smallItems(views, addr + 4, end, 1, false)) return NOT_SMALL;
      return item(views, addr + 4);
    default:
      return NOT_SMALL;
  }
}
