// SHA-256 as the async bench's tasks and its main thread compute it (node:crypto), so a task's
// digest is checked against one the main thread made. Any thread.

import { createHash } from 'node:crypto';

export const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

const blocks = new Map();
/** `bytes` bytes of a fixed pattern, made once per thread. */
export function block(bytes) {
  let b = blocks.get(bytes);
  if (!b) {
    b = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i++) b[i] = (i * 31 + 7) & 0xff;
    blocks.set(bytes, b);
  }
  return b;
}

/** The digest of io-bound task i: SHA-256 of i's 4 bytes (little-endian), then block(bytes). */
export function tickDigest(i, bytes) {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(i >>> 0);
  return createHash('sha256').update(head).update(block(bytes)).digest('hex');
}
