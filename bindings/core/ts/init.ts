// Laying the layout down on fresh memory (the `init` of bindings/core/core.ts; docs/DESIGN.md,
// "Memory layout", "Growing the G table").

import {
  G_CHUNK, GDIR_MAX, HEADER, H_MAGIC, H_MAXMS, H_NPROCS, H_PBASE, H_VERSION, LAYOUT_BASE,
  LAYOUT_VERSION, MAGIC, M_SIZE, MAX_MS, MAX_PROCS, P_ID, P_RAND, P_SIZE, PS,
} from '../../../assembly/shared/layout.js';
import { gGrow } from './ggrow.js';
import { memReach, memRecord } from './heap.js';
import { pidlePut } from './idle.js';
import {
  H_BRK_W, H_FLAGS_W, H_GCAP_W, H_GMAX_W, H_MBASE_W, H_NCOPRIMES_W, H_STEAL_THRESHOLD_W,
  pWord, type Mem,
} from './mem.js';
import { coprimesInit } from './steal.js';

const GOLDEN = 0x9e3779b9; // 2^32 / phi: spreads the per-P victim-order seeds

/** Checks that v is an integer in [lo, hi]; throws a RangeError naming the argument. */
function checkInt(name: string, v: number, lo: number, hi: number): void {
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new RangeError(`init: ${name}=${v} not in [${lo}, ${hi}]`);
  }
}

/** Lays the layout down: zeroes everything from LAYOUT_BASE to the fixed region's end, writes
 *  the header and the coprimes, puts every P on the idle list (P0 on top), leaves every M slot
 *  unused, and grows the G table to gcapInit (whole chunks, at most gmax) with its Gs on the
 *  global free stack. The magic word is stored last. Main thread only, once, before any other
 *  call on this memory. */
export function init(m: Mem, nprocs: number, maxMs: number, gcapInit: number, gmax: number,
  flags: number, stealThreshold: number, seed: number): void {
  checkInt('nprocs', nprocs, 1, MAX_PROCS);
  checkInt('maxMs', maxMs, 1, MAX_MS);
  checkInt('gmax', gmax >>> 0, 0, GDIR_MAX * G_CHUNK);
  checkInt('stealThreshold', stealThreshold >>> 0, 1, 0xffffffff);
  gcapInit >>>= 0;
  const mBase = PS + nprocs * P_SIZE;
  const brk = mBase + maxMs * M_SIZE;
  if (!memReach(m, brk)) throw new RangeError(`init: cannot grow memory to ${brk} bytes`);
  const i32 = m.i32;
  // plain stores throughout: no other thread touches this memory before init returns
  i32.fill(0, LAYOUT_BASE >> 2, brk >> 2);
  const h = HEADER >> 2;
  i32[h + (H_VERSION >> 2)] = LAYOUT_VERSION;
  i32[h + (H_NPROCS >> 2)] = nprocs;
  i32[h + (H_MAXMS >> 2)] = maxMs;
  i32[H_GMAX_W] = gmax;
  i32[H_BRK_W] = brk;
  i32[H_FLAGS_W] = flags;
  i32[H_STEAL_THRESHOLD_W] = stealThreshold;
  i32[h + (H_PBASE >> 2)] = PS;
  i32[H_MBASE_W] = mBase;
  memRecord(m);
  i32[H_NCOPRIMES_W] = coprimesInit(m, nprocs);
  for (let p = nprocs - 1; p >= 0; p--) {
    const w = pWord(p);
    i32[w + (P_ID >> 2)] = p;
    i32[w + (P_RAND >> 2)] = (seed ^ Math.imul(GOLDEN, p + 1)) | 1;
    pidlePut(m, p); // P_STATUS is already P_IDLE (0)
  }
  while ((i32[H_GCAP_W] >>> 0) < gcapInit) {
    if (!gGrow(m, i32[H_GCAP_W] >>> 0)) break;
  }
  Atomics.store(i32, h + (H_MAGIC >> 2), MAGIC); // layout ready: pairs with attaching threads' magic check
}
