// A short string in a G's slot itself (TAG_SHORT; docs/DESIGN.md "Small values"): up to seven
// code units below 0x100, one byte each, in the slot's eight payload bytes with their count in
// the last. No value block, no heap call: a task's 'ok', 'done' or 'miss' travels as a number
// does. Any thread.
//
//   payload byte  0 .. n-1   the code units      n .. 6   zero      7   n (0..7)
//
// Byte 7 holds the f64's sign and top exponent bits: with n < 0x80 there the payload is a finite
// non-negative double (a subnormal or a small one, never a NaN, whose bits an engine may change),
// so it crosses a JS number or a Wasm f64 (the core's finishSlot) bit for bit.

import { fromUnits } from '../../codec/strings.js';
import type { Views } from '../../codec/index.js';

/** The most code units a short string has. */
export const SHORT_MAX = 7;

const word = new Float64Array(1);
const bytes = new Uint8Array(word.buffer);

/** The slot payload of s when it is short (a double >= 0), else -1. */
export function shortPayload(s: string): number {
  const n = s.length;
  if (n > SHORT_MAX) return -1;
  let all = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    all |= c;
    bytes[i] = c;
  }
  if (all > 0xff) return -1;
  for (let i = n; i < SHORT_MAX; i++) bytes[i] = 0; // equal strings, equal payloads
  bytes[SHORT_MAX] = n;
  return word[0]!;
}

/** The string in the TAG_SHORT slot whose payload is at slotAddr (8-aligned, within views). */
export function readShort(views: Views, slotAddr: number): string {
  const u8 = views.u8;
  return fromUnits(u8, slotAddr, u8[slotAddr + SHORT_MAX]!);
}
