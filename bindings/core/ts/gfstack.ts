// The global free-G stack: a lock-free Treiber stack linked by G_SCHEDLINK
// (docs/DESIGN.md, "Free Gs").
//
// Its head S_GFREE_HEAD is one 64-bit word, read and swapped as a whole by a 64-bit CAS:
//
//   bits 63..32  version: bumped (mod 2^32) by every successful CAS
//   bits 31..0   G id of the top G, 0 when empty
//
// A pop reads (v, g), then g.schedlink, then CASes (v, g) -> (v + 1, next). If g was popped
// and pushed back in between (ABA), the version differs and the CAS fails.
//
// JS can CAS 64 bits only through a BigInt64Array, and BigInts cost allocations. The cheapest
// correct form measured: read the two halves with 32-bit atomic loads (version first), build
// the expected and new words with `pack`, CAS on the BigInt64Array. A torn pair of halves is a
// word that is not (or no longer) the head, so the CAS simply fails and the loop rereads.

import { G_SCHEDLINK, S_GFREE_HEAD, S_GFREE_N } from '../../../assembly/shared/layout.js';
import { gWord } from './gtable.js';
import type { Mem } from './mem.js';

const HEAD_LO = S_GFREE_HEAD >> 2; // little-endian: the low half (G id) comes first
const HEAD_HI = HEAD_LO + 1; // the version
const HEAD_64 = S_GFREE_HEAD >> 3;
const GFREE_N = S_GFREE_N >> 2;
const LINK = G_SCHEDLINK >> 2;

/** The 64-bit head word (version v, top G g), as the signed BigInt the view holds. Any thread. */
function pack(v: number, g: number): bigint {
  return BigInt.asIntN(64, (BigInt(v >>> 0) << 32n) | BigInt(g >>> 0));
}

/** Pushes the chain first..last (n Gs, already linked by G_SCHEDLINK except last) on the
 *  global free stack. The caller owns every G of the chain. Any thread. */
export function gfStackPushChain(m: Mem, first: number, last: number, n: number): void {
  const lw = gWord(m, last) + LINK;
  const i32 = m.i32;
  const i64 = m.i64;
  for (;;) {
    const v = Atomics.load(i32, HEAD_HI); // pairs with the head CAS of other pushes and pops
    const top = Atomics.load(i32, HEAD_LO); // same word's low half; a torn pair fails the CAS
    i32[lw] = top; // plain: last is ours until the CAS below publishes it
    const old = pack(v, top);
    if (Atomics.compareExchange(i64, HEAD_64, old, pack(v + 1, first)) === old) break; // release: pairs with the loads in gfStackPop
  }
  Atomics.add(i32, GFREE_N, n); // approximate count: pairs with the sub in gfStackPop
}

/** Pushes one G on the global free stack. The caller owns g. Any thread. */
export function gfStackPush(m: Mem, g: number): void {
  gfStackPushChain(m, g, g, 1);
}

/** Pops the top G of the global free stack; 0 when empty. Any thread. */
export function gfStackPop(m: Mem): number {
  const i32 = m.i32;
  for (;;) {
    const v = Atomics.load(i32, HEAD_HI); // acquire: pairs with the head CAS in gfStackPushChain
    const g = Atomics.load(i32, HEAD_LO); // same word's low half; a torn pair fails the CAS
    if (g === 0) return 0;
    // plain: written before the push CAS that published g; if g moved since, the CAS fails
    const gw = gWord(m, g); // before reading m.i32: gWord may replace the views
    const next = m.i32[gw + LINK];
    const old = pack(v, g);
    if (Atomics.compareExchange(m.i64, HEAD_64, old, pack(v + 1, next)) === old) { // pairs with the CAS in gfStackPushChain
      Atomics.sub(i32, GFREE_N, 1); // approximate count: pairs with the add in gfStackPushChain
      return g;
    }
  }
}
