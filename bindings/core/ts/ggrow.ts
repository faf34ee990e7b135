// Growing the G table (docs/DESIGN.md, "Growing the G table"): one chunk of G_CHUNK Gs at a
// time, under the heap lock, up to gmax; the new Gs go on the global free stack.

import {
  G_CHUNK, G_CHUNK_MASK, G_CHUNK_SHIFT, G_DEAD, G_SCHEDLINK, G_SIZE, G_STATUS, GDIR, LINE,
  SC_GROWS,
} from '../../../assembly/shared/layout.js';
import { gfStackPushChain } from './gfstack.js';
import { sbrk } from './heap.js';
import { heapLock, heapUnlock } from './lock.js';
import { H_GCAP_W, H_GMAX_W, SC_F, type Mem } from './mem.js';

const GDIR_W = GDIR >> 2;
const G_WORDS = G_SIZE >> 2;
const STATUS = G_STATUS >> 2;
const LINK = G_SCHEDLINK >> 2;
const SC_GROWS_F = SC_F + (SC_GROWS >> 3);
const CHUNK_BYTES = G_CHUNK * G_SIZE;

/** Grows the G table by one chunk (docs/DESIGN.md, "Growing the G table") and pushes its Gs on
 *  the global free stack, lowest id on top. `seenGcap` is the H_GCAP the caller saw before it
 *  found no free G: if the table grew since, nothing is added (the caller retries). Returns
 *  false when the table is at gmax or the memory cannot grow. Any thread; takes the heap lock. */
export function gGrow(m: Mem, seenGcap: number): boolean {
  heapLock(m);
  const gcap = m.i32[H_GCAP_W] >>> 0; // plain: written only under the heap lock
  if (gcap !== seenGcap) {
    heapUnlock(m); // another thread grew the table meanwhile
    return true;
  }
  if (gcap >= (m.i32[H_GMAX_W] >>> 0)) {
    heapUnlock(m);
    return false;
  }
  const chunk = sbrk(m, CHUNK_BYTES, LINE);
  if (chunk === 0) {
    heapUnlock(m);
    return false;
  }
  const i32 = m.i32; // sbrk refreshed the views
  const cw = chunk >>> 2;
  // plain: nobody can reach these Gs before H_GCAP and the free stack publish them
  i32.fill(0, cw, cw + (CHUNK_BYTES >> 2));
  for (let k = 0; k < G_CHUNK; k++) i32[cw + k * G_WORDS + STATUS] = G_DEAD; // G_IDLE -> G_DEAD
  const first = gcap === 0 ? 1 : gcap; // G id 0 is never handed out
  const last = gcap + G_CHUNK - 1;
  for (let g = first; g < last; g++) i32[cw + (g & G_CHUNK_MASK) * G_WORDS + LINK] = g + 1;
  Atomics.store(i32, GDIR_W + (gcap >>> G_CHUNK_SHIFT), chunk); // before the H_GCAP release below
  Atomics.store(i32, H_GCAP_W, gcap + G_CHUNK); // release: pairs with the id checks of gAddr callers
  m.f64[SC_GROWS_F] += 1; // plain: under the heap lock
  gfStackPushChain(m, first, last, last - first + 1);
  heapUnlock(m);
  return true;
}
