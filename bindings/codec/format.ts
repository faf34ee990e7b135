// The value-block byte format: kind bytes, view type codes and the head-word helpers.
//
// The format itself (what follows each kind, alignment, the block header) is drawn as a table
// at the head of encode.ts; this file only names the numbers so encode.ts and decode.ts share
// one source of truth. test/codec.test.ts pins a few whole blocks byte for byte, so a change
// here that alters the bytes fails CI.

// ---------------------------------------------------------------------------------------
// Item kinds: bits 0-6 of an item's head word. 0..3 equal TAG_UNDEFINED..TAG_TRUE.
export const K_UNDEFINED = 0x00;
export const K_NULL = 0x01;
export const K_FALSE = 0x02;
export const K_TRUE = 0x03;
export const K_FLOAT64 = 0x04; // pad to 8, f64
export const K_INT32 = 0x05; // i32 (an integer in int32 range that is not -0)
export const K_BIGINT_POS = 0x06; // n u32 magnitude words, least significant first
export const K_BIGINT_NEG = 0x07;
export const K_ASCII = 0x08; // n bytes, every one < 0x80
export const K_LATIN1 = 0x09; // n bytes, one per code unit (all < 0x100, some >= 0x80)
export const K_UTF16 = 0x0a; // n u16 code units, well-formed (surrogates only in pairs)
export const K_UTF16_LONE = 0x0b; // n u16 code units as they are, with a lone surrogate
export const K_ARRAY = 0x0c; // n items (HOLE for a hole)
export const K_NUMBER_ARRAY = 0x0d; // pad to 8, n f64 (every element a number)
export const K_OBJECT = 0x0e; // n x (key string item, value item); prototype Object.prototype
export const K_OBJECT_NULL = 0x0f; // same; prototype null
export const K_DATE = 0x10; // pad to 8, f64 time value
export const K_MAP = 0x11; // n x (key item, value item)
export const K_SET = 0x12; // n items
export const K_ERROR = 0x13; // name, message-or-undefined, stack, cause-or-absent, n x (key, value)
export const K_ABSENT = 0x14; // an Error with no own `cause`
export const K_THROWN = 0x15; // one item: a thrown value that is not an Error
export const K_ARRAY_BUFFER = 0x16; // n bytes
export const K_SHARED_BUFFER = 0x17; // u32 registry id
export const K_REF = 0x18; // u32 offset (from the block's start) of the object's first item
export const K_HOLE = 0x19; // an array hole (only as an element of ARRAY or ARRAY_PROPS)
export const K_ARRAY_PROPS = 0x1a; // n items, u32 m, m x (key string item, value item)
export const K_SPARSE_ARRAY = 0x1b; // u32 m, m x (key string item, value item); length n
export const K_REGEXP = 0x1c; // source string item, flags string item
export const K_BOXED = 0x1d; // one item: the primitive of a Number, String, Boolean or BigInt object
export const K_TYPED = 0x20; // + view type: u32 byteOffset, u32 length, the buffer's item
export const K_SHARED_VIEW = 0x30; // + view type: u32 id, u32 byteOffset, u32 length

// ---------------------------------------------------------------------------------------
// View types: added to K_TYPED or K_SHARED_VIEW. The order is fixed by the format.
export const VIEW_INT8 = 0;
export const VIEW_UINT8 = 1;
export const VIEW_UINT8_CLAMPED = 2;
export const VIEW_INT16 = 3;
export const VIEW_UINT16 = 4;
export const VIEW_INT32 = 5;
export const VIEW_UINT32 = 6;
export const VIEW_FLOAT32 = 7;
export const VIEW_FLOAT64 = 8;
export const VIEW_BIGINT64 = 9;
export const VIEW_BIGUINT64 = 10;
export const VIEW_DATAVIEW = 11;
export const VIEW_FLOAT16 = 12; // only where the platform has Float16Array
export const VIEW_COUNT = 13;

type ViewCtor = new (buffer: ArrayBufferLike, byteOffset?: number, length?: number) => ArrayBufferView;

const float16 = (globalThis as { Float16Array?: ViewCtor }).Float16Array;

/** Constructor of each view type, indexed by VIEW_*; null where the platform lacks it. */
export const VIEW_CTORS: readonly (ViewCtor | null)[] = [
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array, DataView, float16 ?? null,
];

/** View type of each constructor's prototype (a subclass such as Node's Buffer is looked up
 *  through its prototype chain by viewType). */
const VIEW_TYPE_OF = new Map<object, number>();
for (let t = 0; t < VIEW_COUNT; t++) {
  const ctor = VIEW_CTORS[t];
  if (ctor !== null) VIEW_TYPE_OF.set(ctor.prototype, t);
}

/** The VIEW_* type of an ArrayBuffer view, or -1 (an exotic view this format cannot name).
 *  Any thread. */
export function viewType(view: ArrayBufferView): number {
  let proto = Object.getPrototypeOf(view) as object | null;
  while (proto !== null) {
    const t = VIEW_TYPE_OF.get(proto);
    if (t !== undefined) return t;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------
// The head word of an item.
//
//   31                              8   7   6          0
//   +--------------------------------+---+------------+
//   |  n: count, length or 0         | R |    kind    |
//   +--------------------------------+---+------------+
//
// n == N_ESCAPE means the real n (a u32) is in the next word. R (REF_TARGET) is set on an
// object's item when a REF later in the block points at it, so the decoder remembers only the
// objects it will meet again.
export const N_ESCAPE = 0xffffff;
export const HEAD_KIND_MASK = 0x7f;
export const REF_TARGET = 0x80;
export const HEAD_N_SHIFT = 8;

/** Bytes before the first item of a block: the u32 byte length of the whole encoding. */
export const BLOCK_PREFIX = 4;

/** Rounds a byte offset (any u32, memory addresses included) up to a multiple of 4. */
export function align4(x: number): number {
  return x + (-x & 3);
}

/** Rounds a byte offset (any u32) up to a multiple of 8. */
export function align8(x: number): number {
  return x + (-x & 7);
}
