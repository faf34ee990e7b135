// Encoding a JS value into a value block in shared memory.
//
// Block format
// ============
// A value block is one heap block (heapAlloc; its address is 8-aligned) holding one encoded
// value. Offsets below are from the block's start, so an alignment "to 8" is also an absolute
// 8-byte alignment in memory.
//
//   +0  u32  byte length of the whole encoding, this word included (a multiple of 4)
//   +4  the top-level item
//
// Every item starts 4-aligned with a u32 head word: kind in bits 0-6, REF_TARGET in bit 7, n in
// bits 8-31. When n
// does not fit (n >= 0xFFFFFF), the head holds 0xFFFFFF and the real n follows as a u32
// ("escape"). Padding bytes are zero, so equal values give equal bytes.
//
//   kind  name              n                    then
//   ----  ----------------  -------------------  ----------------------------------------------
//   0x00  UNDEFINED         0                    -
//   0x01  NULL              0                    -
//   0x02  FALSE             0                    -
//   0x03  TRUE              0                    -
//   0x04  FLOAT64           0                    pad to 8, f64 (NaN, -0, Infinity exact)
//   0x05  INT32             0                    i32 (integers in int32 range except -0)
//   0x06  BIGINT_POS        magnitude words      n u32, least significant first (0n: n = 0)
//   0x07  BIGINT_NEG        magnitude words      same; the value is minus the magnitude
//   0x08  ASCII             length               n bytes, every one < 0x80, pad to 4
//   0x09  LATIN1            length               n bytes, one per code unit (< 0x100), pad to 4
//   0x0A  UTF16             length               n u16 code units, well-formed, pad to 4
//   0x0B  UTF16_LONE        length               n u16 code units as they are (a lone
//                                                surrogate somewhere), pad to 4
//   0x0C  ARRAY             length               n items (HOLE for a hole)
//   0x0D  NUMBER_ARRAY      length               pad to 8, n f64 (an array of numbers only)
//   0x0E  OBJECT            own enumerable keys  n x (key: a string item, value item)
//   0x0F  OBJECT_NULL       same                 same; decodes with a null prototype
//   0x10  DATE              0                    pad to 8, f64 time value (NaN: invalid date)
//   0x11  MAP               size                 n x (key item, value item), insertion order
//   0x12  SET               size                 n items, insertion order
//   0x13  ERROR             extra props          name (string), message (string, or UNDEFINED:
//                                                no own message), stack (string or UNDEFINED),
//                                                cause (item, or ABSENT), then
//                                                n x (key string item, value item)
//   0x14  ABSENT            0                    - (only as an ERROR's cause: no own cause)
//   0x15  THROWN            0                    one item: a thrown value that is not an Error
//                                                (only at the top of an error block, errors.ts)
//   0x16  ARRAY_BUFFER      byteLength           n bytes, pad to 4
//   0x17  SHARED_BUFFER     0                    u32 registry id (SharedRegistry)
//   0x18  REF               0                    u32 offset, from the block's start, of the
//                                                item where this object was first written
//   0x19  HOLE              0                    - (only as an element of an array)
//   0x1A  ARRAY_PROPS       length               n items (HOLE for a hole), u32 m, then
//                                                m x (key string item, value item): the
//                                                array's named (non-index) properties
//   0x1B  SPARSE_ARRAY      length               u32 m, m x (key string item, value item):
//                                                every own enumerable key, indices included
//   0x1C  REGEXP            0                    source string item, flags string item
//   0x1D  BOXED             0                    one item: the primitive inside a Number,
//                                                String, Boolean or BigInt object
//   0x20+t TYPED            0                    u32 byteOffset, u32 length (elements; bytes
//                                                for a DataView), then the buffer's item
//                                                (ARRAY_BUFFER, or REF to it)
//   0x30+t SHARED_VIEW      0                    u32 id, u32 byteOffset, u32 length (elements;
//                                                bytes for a DataView)
//
// View types t: 0 Int8, 1 Uint8, 2 Uint8Clamped, 3 Int16, 4 Uint16, 5 Int32, 6 Uint32,
// 7 Float32, 8 Float64, 9 BigInt64, 10 BigUint64, 11 DataView, 12 Float16 (format.ts).
//
// Identity. Every object (anything that is not a primitive) is remembered with the offset of
// its item (seen.ts); reaching it again writes a REF to that offset and sets REF_TARGET (bit 7
// of the kind byte) on the first item, so shared references and cycles decode as they were, as
// structuredClone keeps them. A decoder creates each container before its children and
// remembers the REF_TARGET ones by offset, so a cycle finds its ancestor already there. A
// typed array or DataView carries its whole ArrayBuffer (as structuredClone does, offset
// included), written once however many views share it.
//
// Arrays. An array of numbers only is NUMBER_ARRAY; otherwise ARRAY, with HOLE where an index
// is missing ([1, , 3] keeps its hole). Named properties (a RegExp match's `index`, `input`)
// make it ARRAY_PROPS. An array with more holes than elements (past SPARSE_MIN_HOLES) is
// SPARSE_ARRAY: only its present keys, so `a[1e9] = 1` costs one pair, not 4 GB of holes.
//
// The four string kinds let the decoder pick its fastest exact path: ASCII and well-formed
// UTF16 can go through TextDecoder (utf-8 and utf-16le); LATIN1 and UTF16_LONE cannot (it would
// remap 0x80-0xFF or replace lone surrogates) and are built from their code units.
//
// What the format keeps beyond structuredClone: a null prototype (OBJECT_NULL), an Error's
// custom name and its own enumerable properties (and an AggregateError's errors). What it
// refuses that structuredClone would copy: class instances and other objects whose prototype
// it cannot rebuild, resizable ArrayBuffers (and views on them); also detached buffers, which
// structuredClone refuses too. Symbol keys and non-enumerable properties are left out, as
// structuredClone leaves them.

// How a block is made: the value is encoded into a module-level scratch buffer in one pass,
// then the block is allocated at its exact size and the bytes copied in (word by word when
// small). One pass means strings are scanned once and Object.keys runs once, and a TypeError
// is found before anything is allocated, so a failed encode leaks nothing. Measured against a
// two-pass prototype (size first, then write straight into shared memory), Node 20, x64:
// 10-char string 27 vs 26 ns, 40-char string 77 vs 106 ns, 100-number array 138 vs 114 ns,
// 64 KiB Float64Array 2.7 vs 2.0 us: even on small values, ahead on strings (encodeInto
// needs a buffer before the size is known), behind only on bulk binary data, whose extra
// memcpy is the price (such data is better shared through a SharedArrayBuffer: never copied).

import {
  K_UNDEFINED, K_NULL, K_FALSE, K_TRUE, K_FLOAT64, K_INT32, K_BIGINT_POS, K_BIGINT_NEG,
  K_ASCII, K_LATIN1, K_UTF16, K_UTF16_LONE, K_ARRAY, K_NUMBER_ARRAY, K_OBJECT, K_OBJECT_NULL, K_DATE, K_MAP, K_SET,
  K_ERROR, K_ABSENT, K_THROWN, K_ARRAY_BUFFER, K_SHARED_BUFFER, K_TYPED, K_SHARED_VIEW,
  K_REF, K_HOLE, K_ARRAY_PROPS, K_SPARSE_ARRAY, K_REGEXP, K_BOXED,
  N_ESCAPE, HEAD_N_SHIFT, REF_TARGET, BLOCK_PREFIX, VIEW_CTORS, VIEW_DATAVIEW, viewType,
} from './format.js';
import type { Heap, SharedRegistry } from './hooks.js';
import {
  CodecFailure, describeError, describeObject, propSegment, readFailure, toTypeError, unsupported,
} from './refusal.js';
import { Seen } from './seen.js';
import { encodeSmall, handedItem, handover, RESUME } from './small.js';
import type { Views } from './views.js';

/** Nesting deeper than this is a TypeError rather than a stack overflow (encode and decode
 *  recurse once per level; 1000 leaves ample room on every engine's default stack). */
export const MAX_DEPTH = 1000;

/** Scratch sizes: the first allocation, and the largest kept between calls (a bigger one made
 *  for a large value is dropped afterwards so it does not pin memory). */
const SCRATCH_INITIAL = 16 * 1024;
const SCRATCH_KEEP = 1 << 20;

/** Blocks up to this many bytes are copied word by word; larger ones with one set() over a
 *  subarray, which costs ~60 ns before the first byte (measured on Node 20: 256 bytes loop 51
 *  vs set 72 ns, 512 bytes 94 vs 89, 1024 bytes 209 vs 99). */
const COPY_LOOP_MAX = 512;

/** Strings this long or longer are tried with TextEncoder.encodeInto first (measured: the
 *  charCodeAt loop wins below about 48 code units, encodeInto above). */
const ENCODE_INTO_MIN = 64;
const textEncoder = new TextEncoder();

const SAB: SharedArrayBufferConstructor | null =
  typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : null;
const hasOwn = Object.prototype.hasOwnProperty;
const isEnumerable = Object.prototype.propertyIsEnumerable;
const getTime = Date.prototype.getTime;

// ---------------------------------------------------------------------------------------
// The encoder: a scratch buffer and the walk over the value.

class Encoder {
  u8!: Uint8Array;
  u16!: Uint16Array;
  u32!: Uint32Array;
  i32!: Int32Array;
  f64!: Float64Array;
  cap = 0;
  /** Next byte to write; always a multiple of 4 between items. */
  pos = 0;
  /** Containers being encoded (the depth limit). */
  depth = 0;
  /** Objects written so far and where (identity: REF items). */
  readonly seen = new Seen();
  shared: SharedRegistry | null = null;
  /** Set while an encode runs: a getter that encodes again gets a fresh Encoder. */
  busy = false;

  constructor(cap: number) {
    this.setBuffer(cap);
  }

  /** A fresh scratch of cap bytes (a multiple of 8); throws, changing nothing, when it cannot
   *  be allocated. */
  private setBuffer(cap: number): void {
    const buf = new ArrayBuffer(cap);
    this.u8 = new Uint8Array(buf);
    this.u16 = new Uint16Array(buf);
    this.u32 = new Uint32Array(buf);
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.cap = cap;
  }

  /** Room for n more bytes at pos. Views cached by a caller are stale after this. */
  reserve(n: number): void {
    if (this.pos + n > this.cap) this.grow(this.pos + n);
  }

  private grow(need: number): void {
    let cap = this.cap * 2;
    while (cap < need) cap *= 2;
    const old = this.u8;
    try {
      this.setBuffer(cap);
    } catch (e) {
      throw new CodecFailure(`is too large to encode (it needs more than ${need} bytes)`, e);
    }
    this.u8.set(old.subarray(0, this.pos));
  }

  /** Clears per-call state; drops an oversized scratch. */
  reset(): void {
    this.depth = 0;
    this.seen.clear();
    this.shared = null;
    this.busy = false;
    if (this.cap > SCRATCH_KEEP) this.setBuffer(SCRATCH_INITIAL);
  }

  head(kind: number, n: number): void {
    this.reserve(8);
    const w = this.pos >>> 2;
    if (n < N_ESCAPE) {
      this.u32[w] = kind | (n << HEAD_N_SHIFT);
      this.pos += 4;
    } else {
      this.u32[w] = kind | (N_ESCAPE << HEAD_N_SHIFT);
      this.u32[w + 1] = n;
      this.pos += 8;
    }
  }

  /** A head word with n = 0 and nothing after it. */
  word(kind: number): void {
    this.reserve(4);
    this.u32[this.pos >>> 2] = kind;
    this.pos += 4;
  }

  /** A head word with n = 0, then one u32. */
  private word2(kind: number, x: number): void {
    this.reserve(8);
    const w = this.pos >>> 2;
    this.u32[w] = kind;
    this.u32[w + 1] = x;
    this.pos += 8;
  }

  /** Head word, then pad to 8: returns the f64 index of the payload. Room for 16 reserved. */
  private head8(kind: number): number {
    this.reserve(16);
    let w = this.pos >>> 2;
    this.u32[w++] = kind;
    if ((w & 1) !== 0) this.u32[w++] = 0;
    this.pos = (w << 2) + 8;
    return w >>> 1;
  }

  /** Zero-pads the byte position p to 4 and makes it the write position. */
  private endBytes(p: number): void {
    const u8 = this.u8;
    while ((p & 3) !== 0) u8[p++] = 0;
    this.pos = p;
  }

  /** Rewrites the kind of the item at byte offset `at`, keeping its REF_TARGET bit. */
  private setKind(at: number, kind: number): void {
    this.u8[at] = kind | (this.u8[at]! & REF_TARGET);
  }

  // ---- entering and leaving containers (depth) --------------------------------------------

  enter(): void {
    if (++this.depth > MAX_DEPTH) throw new CodecFailure(`is nested more than ${MAX_DEPTH} levels deep`, undefined);
  }

  leave(): void {
    this.depth--;
  }

  /** Adds a path segment to a failure passing through a container (or turns a foreign
   *  exception thrown while reading that child into a failure). */
  within(e: unknown, segment: string | null): CodecFailure {
    const failure = e instanceof CodecFailure ? e : readFailure(e);
    if (segment !== null) failure.segments.push(segment);
    return failure;
  }

  // ---- items --------------------------------------------------------------------------------

  item(v: unknown): void {
    switch (typeof v) {
      case 'number': this.number(v); return;
      case 'string': this.string(v); return;
      case 'boolean': this.word(v ? K_TRUE : K_FALSE); return;
      case 'undefined': this.word(K_UNDEFINED); return;
      case 'object':
        if (v === null) this.word(K_NULL);
        else this.object(v);
        return;
      case 'bigint': this.bigint(v); return;
      case 'function': throw unsupported('is a function');
      case 'symbol': throw unsupported('is a symbol');
      default: throw unsupported(`is a ${typeof v}`);
    }
  }

  number(v: number): void {
    if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
      this.reserve(8);
      const w = this.pos >>> 2;
      this.u32[w] = K_INT32;
      this.i32[w + 1] = v;
      this.pos += 8;
      return;
    }
    const i = this.head8(K_FLOAT64);
    this.f64[i] = v;
  }

  /** ASCII or LATIN1 when every code unit is below 256 (the common case, tried first), else
   *  UTF16 or UTF16_LONE. */
  string(s: string): void {
    const n = s.length;
    const start = this.pos;
    this.head(K_ASCII, n);
    this.reserve(n + 3);
    const u8 = this.u8;
    const p = this.pos;
    if (n >= ENCODE_INTO_MIN) {
      // Native and much faster on long strings; it writes exactly n bytes only for ASCII.
      const r = textEncoder.encodeInto(s, u8.subarray(p, p + n));
      if (r.read === n && r.written === n) {
        this.endBytes(p + n);
        return;
      }
    }
    let all = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 255) {
        this.pos = start;
        this.utf16(s, n);
        return;
      }
      all |= c;
      u8[p + i] = c;
    }
    if (all >= 0x80) this.u8[start] = K_LATIN1;
    this.endBytes(p + n);
  }

  private utf16(s: string, n: number): void {
    const start = this.pos;
    this.head(K_UTF16, n);
    this.reserve(2 * n + 2);
    const u16 = this.u16;
    let q = this.pos >>> 1;
    let lone = false;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      u16[q + i] = c;
      if ((c & 0xf800) === 0xd800) {
        // A surrogate: well-formed only as a high one followed by a low one.
        const d = c < 0xdc00 && i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if ((d & 0xfc00) === 0xdc00) u16[q + ++i] = d;
        else lone = true;
      }
    }
    if (lone) this.u8[start] = K_UTF16_LONE;
    q += n;
    if ((q & 1) !== 0) u16[q++] = 0;
    this.pos = q << 1;
  }

  bigint(v: bigint): void {
    const neg = v < 0n;
    const hex = (neg ? -v : v).toString(16);
    if (hex === '0') {
      this.word(K_BIGINT_POS);
      return;
    }
    const words = Math.ceil(hex.length / 8);
    this.head(neg ? K_BIGINT_NEG : K_BIGINT_POS, words);
    this.reserve(4 * words);
    const u32 = this.u32;
    const w = this.pos >>> 2;
    for (let i = 0, end = hex.length; i < words; i++, end -= 8) {
      u32[w + i] = parseInt(hex.slice(end > 8 ? end - 8 : 0, end), 16);
    }
    this.pos += 4 * words;
  }

  /** Any object: a REF when it was written before in this value, else its own item. */
  object(o: object): void {
    const first = this.seen.record(o, this.pos);
    if (first >= 0) {
      this.u8[first] |= REF_TARGET;
      this.word2(K_REF, first);
      return;
    }
    if (Array.isArray(o)) {
      this.array(o);
      return;
    }
    const proto = Object.getPrototypeOf(o) as object | null;
    if (proto === Object.prototype) this.plain(o, K_OBJECT);
    else if (proto === null) this.plain(o, K_OBJECT_NULL);
    else if (ArrayBuffer.isView(o)) this.view(o);
    else if (proto === Date.prototype) this.date(o as Date);
    else if (proto === Map.prototype) this.map(o as Map<unknown, unknown>);
    else if (proto === Set.prototype) this.set(o as Set<unknown>);
    else if (proto === ArrayBuffer.prototype) this.arrayBuffer(o as ArrayBuffer, 'is');
    else if (SAB !== null && proto === SAB.prototype) {
      this.word2(K_SHARED_BUFFER, this.register(o as SharedArrayBuffer, 'is a SharedArrayBuffer'));
    } else if (isError(o)) this.error(o);
    else if (proto === RegExp.prototype) this.regexp(o as RegExp);
    else if (isBoxed(proto)) this.boxed(o);
    else throw unsupported(describeObject(o, proto));
  }

  date(d: Date): void {
    const t = getTime.call(d);
    const i = this.head8(K_DATE);
    this.f64[i] = t;
  }

  regexp(r: RegExp): void {
    this.word(K_REGEXP);
    this.string(regexpSource.call(r) as string);
    this.string(regexpFlags.call(r) as string);
  }

  /** A Number, String, Boolean or BigInt object: its primitive, read through the prototype's
   *  own valueOf (which checks the internal slot, so a forged object throws). */
  boxed(o: object): void {
    this.word(K_BOXED);
    this.item((Object.getPrototypeOf(o) as { valueOf(): unknown }).valueOf.call(o));
  }

  // In the containers below, `at` is the index of the child being encoded (-1 outside the
  // loop), so a failure gets the child's segment only when a child failed.

  /** NUMBER_ARRAY when every element is a number (tried when the first one is), else ARRAY
   *  (ARRAY_PROPS with named properties; SPARSE_ARRAY when mostly holes). A hole is an index
   *  that is no own enumerable property: the loop asks only of an element that reads undefined,
   *  and when the count of own enumerable properties comes out below what it wrote (an index
   *  that is not enumerable, or a hole read through an indexed property of the prototype), the
   *  array is written again asking of every index (`exact`), as structuredClone leaves a hole
   *  there. */
  array(a: unknown[], exact = false): void {
    this.enter();
    const n = a.length;
    const start = this.pos;
    const seenAfter = this.seen.count;
    let at = -1;
    try {
      if (!exact && n > 0 && typeof a[0] === 'number') {
        this.head(K_NUMBER_ARRAY, n);
        this.reserve(8 * n + 4);
        if ((this.pos & 4) !== 0) {
          this.u32[this.pos >>> 2] = 0;
          this.pos += 4;
        }
        const f64 = this.f64;
        const q = this.pos >>> 3;
        for (at = 0; at < n; at++) {
          const v = a[at];
          if (typeof v !== 'number') break;
          f64[q + at] = v;
        }
        // Numbers only, and no named property: Object.values counts the own enumerable
        // properties, the indices included (cheaper than Object.keys, which makes a string
        // per index).
        if (at === n && ownCount(a) === n) {
          this.pos += 8 * n;
          this.leave();
          return;
        }
        this.pos = start;
        at = -1;
      }
      this.head(K_ARRAY, n);
      let holes = 0;
      for (at = 0; at < n; at++) {
        const v = exact ? undefined : a[at];
        if (exact ? !isEnumerable.call(a, at) : v === undefined && !hasOwn.call(a, at)) {
          holes++;
          if (holes > SPARSE_MIN_HOLES && 2 * holes > at) {
            // Mostly holes: start again with only the keys that are there.
            this.pos = start;
            this.seen.truncate(seenAfter);
            at = -1;
            this.sparse(a, n);
            this.leave();
            return;
          }
          this.word(K_HOLE);
        } else {
          this.item(exact ? a[at] : v);
        }
      }
      at = -1;
      const present = n - holes;
      const own = ownCount(a);
      if (own < present && !exact) {
        this.pos = start;
        this.seen.truncate(seenAfter);
        this.leave();
        this.array(a, true);
        return;
      }
      if (own !== present) this.namedProps(a, start, present);
    } catch (e) {
      throw this.within(e, at < 0 ? null : `[${at}]`);
    }
    this.leave();
  }

  /** After an ARRAY's elements: the array has named properties too, so it becomes ARRAY_PROPS
   *  with m (key, value) pairs after the elements. Object.keys lists the present indices
   *  first, in ascending order: the named keys are the ones after them. */
  private namedProps(a: unknown[], start: number, present: number): void {
    this.setKind(start, K_ARRAY_PROPS);
    const keys = Object.keys(a);
    this.pairs(a, keys, present);
  }

  /** u32 m, then m (key string item, value item) pairs: keys[from..] of o. */
  private pairs(o: object, keys: string[], from: number): void {
    const m = keys.length - from;
    this.reserve(4);
    this.u32[this.pos >>> 2] = m;
    this.pos += 4;
    let at = -1;
    try {
      for (at = from; at < keys.length; at++) {
        const k = keys[at]!;
        this.string(k);
        this.item((o as Record<string, unknown>)[k]);
      }
    } catch (e) {
      throw this.within(e, at < 0 ? null : arraySegment(keys[at]!));
    }
  }

  /** SPARSE_ARRAY: the length, then every own enumerable key with its value. */
  private sparse(a: unknown[], n: number): void {
    this.head(K_SPARSE_ARRAY, n);
    this.pairs(a, Object.keys(a), 0);
  }

  plain(o: object, kind: number): void {
    this.enter();
    let keys: string[] = [];
    let at = -1;
    try {
      keys = Object.keys(o);
      const n = keys.length;
      this.head(kind, n);
      for (at = 0; at < n; at++) {
        const k = keys[at]!;
        this.string(k);
        this.item((o as Record<string, unknown>)[k]);
      }
    } catch (e) {
      throw this.within(e, at < 0 ? null : propSegment(keys[at]!));
    }
    this.leave();
  }

  map(m: Map<unknown, unknown>): void {
    this.enter();
    const n = m.size;
    let i = 0;
    let at = -1;
    let side = 'key';
    try {
      this.head(K_MAP, n);
      for (const [k, v] of m) {
        if (i === n) break;
        at = i;
        side = 'key';
        this.item(k);
        side = 'value';
        this.item(v);
        i++;
      }
      at = -1;
      if (i !== n) throw new CodecFailure('changed size while being encoded', undefined);
    } catch (e) {
      throw this.within(e, at < 0 ? null : `.<${side} #${at}>`);
    }
    this.leave();
  }

  set(s: Set<unknown>): void {
    this.enter();
    const n = s.size;
    let i = 0;
    let at = -1;
    try {
      this.head(K_SET, n);
      for (const v of s) {
        if (i === n) break;
        at = i;
        this.item(v);
        i++;
      }
      at = -1;
      if (i !== n) throw new CodecFailure('changed size while being encoded', undefined);
    } catch (e) {
      throw this.within(e, at < 0 ? null : `.<entry #${at}>`);
    }
    this.leave();
  }

  /** ARRAY_BUFFER: byteLength, then a copy of the bytes, zero-padded to 4. `is` begins the
   *  refusal's wording ("is", or "is a view on"). */
  private arrayBuffer(b: ArrayBuffer, is: string): void {
    if ((b as { resizable?: boolean }).resizable === true) {
      throw new CodecFailure(`${is} a resizable ArrayBuffer, which cannot cross threads; pass a fixed-length copy (buffer.slice())`, undefined);
    }
    const n = b.byteLength;
    if (n === 0 && isDetached(b)) {
      throw new CodecFailure(`${is} a detached ArrayBuffer (transferred away), which cannot be copied`, undefined);
    }
    this.head(K_ARRAY_BUFFER, n);
    this.reserve(n + 3);
    if (n > 0) this.u8.set(new Uint8Array(b, 0, n), this.pos);
    this.endBytes(this.pos + n);
  }

  /** A view copies its whole buffer (once per value, then REFs to it), as structuredClone
   *  does, so views that share a buffer still share one after the trip. */
  view(v: ArrayBufferView): void {
    const t = viewType(v);
    if (t < 0 || VIEW_CTORS[t] === null) throw unsupported(describeObject(v, Object.getPrototypeOf(v) as object | null));
    const buffer = v.buffer;
    const length = t === VIEW_DATAVIEW ? v.byteLength : (v as Uint8Array).length;
    if (SAB !== null && buffer instanceof SAB) {
      const id = this.register(buffer, 'is a view on a SharedArrayBuffer');
      this.reserve(16);
      const w = this.pos >>> 2;
      const u32 = this.u32;
      u32[w] = K_SHARED_VIEW + t;
      u32[w + 1] = id;
      u32[w + 2] = v.byteOffset;
      u32[w + 3] = length;
      this.pos += 16;
      return;
    }
    this.reserve(12);
    const w = this.pos >>> 2;
    this.u32[w] = K_TYPED + t;
    this.u32[w + 1] = v.byteOffset;
    this.u32[w + 2] = length;
    this.pos += 12;
    const first = this.seen.record(buffer, this.pos);
    if (first >= 0) {
      this.u8[first] |= REF_TARGET;
      this.word2(K_REF, first);
    } else {
      this.arrayBuffer(buffer as ArrayBuffer, 'is a view on');
    }
  }

  private register(sab: SharedArrayBuffer, what: string): number {
    const shared = this.shared;
    if (shared === null) throw new CodecFailure(`${what}, but no shared registry was given to share it`, undefined);
    let id: number;
    try {
      id = shared.register(sab);
    } catch (e) {
      throw new CodecFailure(`${what} that the shared registry refused (${describeError(e)})`, e);
    }
    if (id >>> 0 !== id) throw new CodecFailure(`${what}, but shared.register returned ${String(id)}, not a u32 id`, undefined);
    return id;
  }

  // ---- a value the small values' fast path began (small.ts RESUME) --------------------------

  /** Encodes the container small.ts handed over as item(value) would from the start, with the
   *  values it read taken from the handover instead of read again (the last one is the item it
   *  did not write, or what reading it threw). The top item only. */
  resumeSmall(): void {
    const h = handover;
    const o = h.value!;
    const keys = h.keys;
    const m = h.count;
    const last = h.last;
    const more = !h.stop; // `last` was read (or threw)
    h.value = null; // the handover pins nothing
    h.keys = null;
    h.last = undefined;
    this.seen.record(o, this.pos);
    this.enter();
    let at = -1;
    try {
      if (keys === null) {
        // An array that was dense, with no named property, when small.ts listed its keys (its
        // snapshot: as structuredClone lists them first too); its elements are not numbers only
        // (or reading one threw): ARRAY, as array() writes it, with no second count.
        const a = o as unknown[];
        const n = a.length;
        this.head(K_ARRAY, n);
        // The items read are primitives: no getter runs before the last of them is written.
        for (at = 0; at < m; at++) this.item(handedItem(at));
        if (h.threw) throw last;
        this.item(last);
        for (at = m + 1; at < n; at++) {
          const v = a[at];
          if (v === undefined && !hasOwn.call(a, at)) this.word(K_HOLE); // gone since the snapshot
          else this.item(v);
        }
        at = -1;
      } else {
        const n = keys.length;
        this.head(h.kind, n);
        for (at = 0; at < m; at++) {
          this.string(keys[at]!);
          this.item(handedItem(at));
        }
        if (more) {
          this.string(keys[m]!);
          if (h.threw) throw last;
          this.item(last);
          at = m + 1;
        }
        for (; at < n; at++) {
          const k = keys[at]!;
          this.string(k);
          this.item((o as Record<string, unknown>)[k]);
        }
      }
    } catch (e) {
      throw this.within(e, at < 0 ? null : keys === null ? `[${at}]` : propSegment(keys[at]!));
    }
    this.leave();
  }

  // ---- Errors: lenient, an Error always encodes --------------------------------------------

  /** name, message, stack, cause and extra own enumerable props; a cause or prop that cannot be
   *  encoded (or read) is left out rather than failing the whole error. */
  error(e: Error): void {
    this.enter();
    const at = this.pos;
    this.word(K_ERROR);
    this.string(readText(e, 'name', 'Error'));
    if (readOwns(e, 'message')) this.string(readText(e, 'message', ''));
    else this.word(K_UNDEFINED);
    const stack = readOr(e, 'stack', undefined);
    if (typeof stack === 'string') this.string(stack);
    else this.word(K_UNDEFINED);
    if (!(readOwns(e, 'cause') && this.optional(e, 'cause'))) this.word(K_ABSENT);
    let keys: string[] = [];
    try {
      keys = Object.keys(e);
    } catch {
      // a proxy that refuses ownKeys: no extra props
    }
    let count = 0;
    for (let i = 0; i < keys.length && count < N_ESCAPE - 1; i++) {
      const k = keys[i]!;
      if (k === 'name' || k === 'message' || k === 'stack' || k === 'cause') continue;
      if (this.extra(e, k)) count++;
    }
    if (isAggregate(e) && !keys.includes('errors') && readOwns(e, 'errors') &&
      this.extra(e, 'errors')) count++;
    // A REF back to this error (from its cause or a prop) has set REF_TARGET: keep it.
    this.u32[at >>> 2] = (this.u32[at >>> 2]! & REF_TARGET) | K_ERROR | (count << HEAD_N_SHIFT);
    this.leave();
  }

  /** Encodes key and value of an extra prop, or nothing (returns false) if the value fails. */
  private extra(o: object, key: string): boolean {
    const at = this.pos;
    this.string(key);
    if (this.optional(o, key)) return true;
    this.pos = at;
    return false;
  }

  /** Encodes o[key] if it can be read and encoded; else rewinds (bytes, depth and the objects
   *  it had remembered) and returns false. */
  private optional(o: object, key: string): boolean {
    const at = this.pos;
    const d = this.depth;
    const seen = this.seen.count;
    try {
      this.item((o as Record<string, unknown>)[key]);
      return true;
    } catch {
      this.depth = d;
      this.seen.truncate(seen);
      this.pos = at;
      return false;
    }
  }
}

/** Holes past this many, when they outnumber the elements seen so far, make an array
 *  SPARSE_ARRAY (a few holes cost a word each; a huge empty range would cost gigabytes). */
const SPARSE_MIN_HOLES = 64;

const objectValues = Object.values;

/** The number of own enumerable string-keyed properties of an array, indices included. */
function ownCount(a: unknown[]): number {
  return objectValues(a).length;
}

/** The path segment of an array key from Object.keys: `[3]` for an index, else as for an
 *  object. */
function arraySegment(key: string): string {
  return /^(?:0|[1-9]\d*)$/.test(key) ? `[${key}]` : propSegment(key);
}

const regexpSource = Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')!.get!;
const regexpFlags = Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags')!.get!;

/** The prototype of a boxed primitive (new Number(1), Object(1n), ...). */
function isBoxed(proto: object | null): boolean {
  return proto === Number.prototype || proto === String.prototype || proto === Boolean.prototype ||
    proto === BigInt.prototype;
}

/** True for an ArrayBuffer whose memory was transferred away (a view on it cannot be made).
 *  Only asked for an empty buffer. */
function isDetached(b: ArrayBuffer): boolean {
  const flag = (b as { detached?: boolean }).detached;
  if (typeof flag === 'boolean') return flag;
  try {
    void new Uint8Array(b);
    return false;
  } catch {
    return true;
  }
}

const objectToString = Object.prototype.toString;

/** An Error of this realm or another (an error from a vm context or an iframe carries the
 *  [[ErrorData]] slot that Object.prototype.toString reports). Any thread. */
export function isError(v: unknown): v is Error {
  try {
    return v instanceof Error || (typeof v === 'object' && v !== null && objectToString.call(v) === '[object Error]');
  } catch {
    return false; // a proxy whose traps throw
  }
}

/** AggregateError keeps its `errors` non-enumerable; they travel as an extra prop. */
function isAggregate(e: Error): boolean {
  try {
    return typeof AggregateError === 'function' && e instanceof AggregateError;
  } catch {
    return false;
  }
}

function readOr(o: object, key: string, fallback: unknown): unknown {
  try {
    return (o as Record<string, unknown>)[key];
  } catch {
    return fallback;
  }
}

function readText(o: object, key: string, fallback: string): string {
  const v = readOr(o, key, undefined);
  if (typeof v === 'string') return v;
  if (v === undefined) return fallback;
  try {
    return String(v);
  } catch {
    return fallback;
  }
}

function readOwns(o: object, key: string): boolean {
  try {
    return hasOwn.call(o, key);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------
// Entry points.

const main = new Encoder(SCRATCH_INITIAL);

/** The RangeError of a full heap: no value block of `size` bytes for `label`'s value. */
function outOfMemory(label: string, size: number): RangeError {
  return new RangeError(`${label}: out of shared memory (a value block of ${size} bytes)`);
}

/** Allocates a block for the encoding in `enc` and copies it in; returns the block address. */
function copyOut(views: Views, heap: Heap, enc: Encoder, label: string): number {
  const size = enc.pos;
  enc.u32[0] = size;
  const addr = heap.heapAlloc(size);
  if (addr === 0) throw outOfMemory(label, size);
  if (addr + size > views.end) {
    try {
      views.ensure(addr + size);
    } catch (e) {
      heap.heapFree(addr);
      throw e;
    }
  }
  if (size <= COPY_LOOP_MAX) {
    const dst = views.u32;
    const src = enc.u32;
    const a = addr >>> 2;
    for (let i = 0, n = size >>> 2; i < n; i++) dst[a + i] = src[i]!;
  } else {
    views.u8.set(enc.u8.subarray(0, size), addr);
  }
  return addr;
}

/** The block of `value` (after the item `wrap`, unless 0) from the general encoder; with
 *  `resume`, of the value small.ts handed over (RESUME), taken from where it stopped. */
function encodeBlock(views: Views, heap: Heap, value: unknown, label: string,
  shared: SharedRegistry | null, wrap: number, resume = false): number {
  const enc = main.busy ? new Encoder(256) : main;
  enc.busy = true;
  enc.shared = shared;
  enc.pos = BLOCK_PREFIX;
  try {
    if (wrap !== 0) enc.word(wrap);
    if (resume) enc.resumeSmall();
    else enc.item(value);
  } catch (e) {
    enc.reset();
    throw toTypeError(e, label);
  }
  try {
    return copyOut(views, heap, enc, label);
  } finally {
    enc.reset();
  }
}

/**
 * Encodes `value` into a new value block; returns its address (for a TAG_BLOCK slot). Throws a
 * TypeError naming `label` and the path inside the value when it holds something that cannot
 * cross threads, before allocating anything; a RangeError when the heap is exhausted. The
 * caller owns the block until it hands it on; whoever decodes it last frees it (heapFree, or
 * freeSlot on the slot holding it). Any thread; `views` must be this thread's.
 */
export function encodeValue(views: Views, heap: Heap, value: unknown, label: string,
  shared: SharedRegistry | null): number {
  return encodeLabelled(views, heap, value, shared, asLabel, label, 0);
}

/** A label given as it is (encodeValue's). */
function asLabel(label: string): string {
  return label;
}

/**
 * encodeValue with the label made only when the general encoder is needed or the value fails:
 * `labelOf(name, index)`. The runtime's argument and result writes name the task and the
 * argument this way, so a small value pays for no string. Any thread.
 */
export function encodeLabelled(views: Views, heap: Heap, value: unknown, shared: SharedRegistry | null,
  labelOf: (name: string, index: number) => string, name: string, index: number): number {
  const small = encodeSmall(views, heap, value); // the same bytes, written straight (small.ts)
  if (small > 0) return small;
  if (small < RESUME) throw outOfMemory(labelOf(name, index), -small); // -size: no block that big
  // One call site: encodeBlock is large. With two here, a 40-char string's round trip (the
  // general encoder's) measured 0.57 us against 0.44 us without the fast path; with one, the
  // same within the noise.
  return encodeBlock(views, heap, value, labelOf(name, index), shared, 0, small === RESUME);
}

/** encodeValue without the small values' fast path: the general encoder alone, for the tests
 *  and benchmarks that compare the two. Any thread. */
export function encodeGeneral(views: Views, heap: Heap, value: unknown, label: string,
  shared: SharedRegistry | null): number {
  return encodeBlock(views, heap, value, label, shared, 0);
}

/**
 * Like encodeValue, for a thrown value that is not an Error: the block's top item is THROWN
 * wrapping the value, so an error block says which kind of failure it holds. errors.ts only.
 */
export function encodeThrown(views: Views, heap: Heap, value: unknown, label: string,
  shared: SharedRegistry | null): number {
  return encodeBlock(views, heap, value, label, shared, K_THROWN);
}
