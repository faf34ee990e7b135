// Growing the G table (docs/DESIGN.md, "Free Gs" -> "Growing the G table"): one chunk of
// G_CHUNK Gs under the heap lock, pushed on the global free stack. The TypeScript twin is
// bindings/core/ts/ggrow.ts.

import {
  FLAG_DEBUG, GDIR, G_CHUNK, G_CHUNK_SHIFT, G_DEAD, G_IDLE, G_SIZE, G_STATUS, HEADER, H_GCAP,
  H_GMAX, LINE, SC_GROWS, S_COUNTERS,
} from './shared/layout';
import { counterAdd, flags } from './mem';
import { heapLock, heapUnlock } from './lock';
import { sbrk } from './heap';
import { gSetStatus } from './gtable';
import { gfPushBatch } from './gfstack';

/**
 * Adds one chunk of G_CHUNK Gs if H_GCAP still equals `seenGcap` and is below H_GMAX, and
 * pushes its Gs on the global free stack (lowest id on top) before releasing the heap lock.
 * Returns true when the caller should look for a free G again: this call grew the table, or
 * another thread did since the caller read `seenGcap`. False at gmax or when memory is
 * exhausted. Any thread.
 */
export function growTable(seenGcap: u32): bool {
  heapLock();
  let gcap = atomic.load<u32>(HEADER, H_GCAP); // pairs with the H_GCAP store below (other growers)
  if (gcap != seenGcap) {
    heapUnlock();
    return true;
  }
  if (gcap >= load<u32>(HEADER, H_GMAX)) { // plain: read-only after init
    heapUnlock();
    return false;
  }
  let chunk = sbrk(G_CHUNK * G_SIZE, LINE);
  if (chunk == 0) {
    heapUnlock();
    return false;
  }
  memory.fill(chunk, 0, G_CHUNK * G_SIZE);
  let debug = (flags() & FLAG_DEBUG) != 0;
  atomic.store<u32>(<usize>(gcap >> G_CHUNK_SHIFT) << 2, <u32>chunk, GDIR); // pairs with the GDIR load in gAddr
  // Mark every G of the chunk dead (id 0 included: it is never handed out).
  for (let i: u32 = 0; i < <u32>G_CHUNK; i++) {
    if (debug) {
      gSetStatus(gcap + i, G_IDLE, G_DEAD);
    } else {
      store<u32>(chunk + <usize>i * G_SIZE, G_DEAD, G_STATUS); // plain: unpublished until H_GCAP covers it
    }
  }
  atomic.store<u32>(HEADER, gcap + G_CHUNK, H_GCAP); // release: pairs with H_GCAP loads in gfGet and growTable
  counterAdd(S_COUNTERS + SC_GROWS, 1); // heap lock held
  let first = gcap == 0 ? 1 : gcap;
  gfPushBatch(first, gcap + G_CHUNK - 1);
  heapUnlock();
  return true;
}
