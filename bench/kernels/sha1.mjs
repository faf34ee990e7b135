// SHA-1 (FIPS 180-4) of one 64-byte block, for UTS's splittable random number generator: every
// message UTS hashes (a 20-byte seed block, or a 20-byte parent state and a 4-byte child
// number) fits one block. Words are big-endian, as the standard reads bytes. Any thread may
// call it: its scratch is per module instance, i.e. per thread, and it never yields.

const W = new Int32Array(80);
/** The digest of the last sha1Block call: five 32-bit words (h0..h4), as signed ints. */
export const DIGEST = new Int32Array(5);

/** Hashes the block W[0..15] (already padded) from the standard initial value into DIGEST. */
function compress() {
  for (let t = 16; t < 80; t++) {
    const x = W[t - 3] ^ W[t - 8] ^ W[t - 14] ^ W[t - 16];
    W[t] = (x << 1) | (x >>> 31);
  }
  const h0 = 0x67452301, h1 = 0xefcdab89 | 0, h2 = 0x98badcfe | 0, h3 = 0x10325476, h4 = 0xc3d2e1f0 | 0;
  let a = h0, b = h1, c = h2, d = h3, e = h4;
  let t = 0;
  for (; t < 20; t++) {
    const f = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + W[t]) | 0;
    e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = f;
  }
  for (; t < 40; t++) {
    const f = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + W[t]) | 0;
    e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = f;
  }
  for (; t < 60; t++) {
    const f = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + W[t]) | 0;
    e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = f;
  }
  for (; t < 80; t++) {
    const f = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + W[t]) | 0;
    e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = f;
  }
  DIGEST[0] = (h0 + a) | 0;
  DIGEST[1] = (h1 + b) | 0;
  DIGEST[2] = (h2 + c) | 0;
  DIGEST[3] = (h3 + d) | 0;
  DIGEST[4] = (h4 + e) | 0;
}

/**
 * SHA-1 of a message of `len` bytes (at most 55) given as big-endian words m (unused bytes of
 * the last word zero). The digest is left in DIGEST.
 */
export function sha1Words(m, len) {
  const n = (len + 3) >>> 2;
  for (let i = 0; i < 16; i++) W[i] = i < n ? m[i] : 0;
  // The padding: a 1 bit right after the message, the bit length in the last word.
  W[len >>> 2] |= 0x80 << (24 - 8 * (len & 3));
  W[15] = len * 8;
  compress();
}

/** UTS's rng_spawn: the state of child `i` of the node whose 20-byte state is s0..s4. */
export function spawnDigest(s0, s1, s2, s3, s4, i) {
  W[0] = s0; W[1] = s1; W[2] = s2; W[3] = s3; W[4] = s4; W[5] = i;
  W[6] = 0x80000000 | 0;
  W[7] = 0; W[8] = 0; W[9] = 0; W[10] = 0; W[11] = 0; W[12] = 0; W[13] = 0; W[14] = 0;
  W[15] = 24 * 8;
  compress();
}
