// Strings from a block's code units, shared by the general decoder (decode.ts) and the small
// values' fast path (small.ts): fromUnits, and the key cache that gives a repeated short ASCII
// key the very string it gave last time. Any thread; the cache is per thread (module state),
// never shared.

const fromCharCode = String.fromCharCode;

/** Chunk for fromCharCode.apply: far below every engine's argument-count limit. */
const APPLY_CHUNK = 4096;

/** The string of n code units at index q of `units` (u8 or u16), without TextDecoder. Up to
 *  8 units, one direct fromCharCode call (measured 2-6x faster than apply for n <= 8; a single
 *  unit hits the engine's one-character string cache). */
export function fromUnits(u: Uint8Array | Uint16Array, q: number, n: number): string {
  switch (n) {
    case 0: return '';
    case 1: return fromCharCode(u[q]!);
    case 2: return fromCharCode(u[q]!, u[q + 1]!);
    case 3: return fromCharCode(u[q]!, u[q + 1]!, u[q + 2]!);
    case 4: return fromCharCode(u[q]!, u[q + 1]!, u[q + 2]!, u[q + 3]!);
    case 5: return fromCharCode(u[q]!, u[q + 1]!, u[q + 2]!, u[q + 3]!, u[q + 4]!);
    case 6: return fromCharCode(u[q]!, u[q + 1]!, u[q + 2]!, u[q + 3]!, u[q + 4]!, u[q + 5]!);
    case 7: return fromCharCode(u[q]!, u[q + 1]!, u[q + 2]!, u[q + 3]!, u[q + 4]!, u[q + 5]!, u[q + 6]!);
    case 8: return fromCharCode(u[q]!, u[q + 1]!, u[q + 2]!, u[q + 3]!, u[q + 4]!, u[q + 5]!, u[q + 6]!, u[q + 7]!);
  }
  if (n <= APPLY_CHUNK) {
    const codes = new Array<number>(n);
    for (let i = 0; i < n; i++) codes[i] = u[q + i]!;
    return fromCharCode.apply(null, codes);
  }
  let s = '';
  for (let i = 0; i < n; i += APPLY_CHUNK) s += fromUnits(u, q + i, n - i < APPLY_CHUNK ? n - i : APPLY_CHUNK);
  return s;
}

// ---- the key cache ----------------------------------------------------------------------
//
// Object keys repeat (an array of records has the same few keys over and over), and building a
// string costs an allocation and, when it becomes a property key, a string-table lookup. So
// short ASCII keys go through a direct-mapped cache: hash the bytes, compare them with the
// bytes the cached string was made from, and on a hit return the very string used last time.
// A cached string is interned when made (the engine's string table, through a property key),
// so every object built with it finds its property without that lookup. A miss only costs the
// hash and the compare.

/** ASCII keys up to this many bytes go through the cache. */
export const KEY_CACHE_MAX_LENGTH = 24;
const KEY_CACHE_SIZE = 1024; // a power of two
const keyCache: string[] = new Array<string>(KEY_CACHE_SIZE).fill('');
/** The bytes of each cached key, KEY_CACHE_MAX_LENGTH per slot (its length: the string's). */
const keyBytes = new Uint8Array(KEY_CACHE_SIZE * KEY_CACHE_MAX_LENGTH);

/** The engine's interned copy of s (a property key is interned; Object.keys gives it back). The
 *  object has no prototype, so "__proto__" is a key like any other. */
function intern(s: string): string {
  const o = Object.create(null) as Record<string, number>;
  o[s] = 0;
  return Object.keys(o)[0]!;
}

/** The ASCII string of the n bytes at u8[at] (n <= KEY_CACHE_MAX_LENGTH), from the cache when
 *  it holds it. */
export function cachedKey(u8: Uint8Array, at: number, n: number): string {
  let hash = n;
  for (let i = 0; i < n; i++) hash = Math.imul(hash ^ u8[at + i]!, 0x01000193);
  const slot = (hash ^ (hash >>> 16)) & (KEY_CACHE_SIZE - 1);
  const cached = keyCache[slot]!;
  const q = slot * KEY_CACHE_MAX_LENGTH;
  if (cached.length === n) {
    let i = 0;
    while (i < n && keyBytes[q + i] === u8[at + i]) i++;
    if (i === n) return cached;
  }
  const s = intern(fromUnits(u8, at, n));
  keyCache[slot] = s;
  keyBytes.set(u8.subarray(at, at + n), q);
  return s;
}
