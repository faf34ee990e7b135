// The G table: G ids to addresses, status transitions, growth (docs/DESIGN.md, "Free Gs" ->
// "Growing the G table", and "G states").
//
// G id g lives in chunk g >> G_CHUNK_SHIFT at slot g & G_CHUNK_MASK; GDIR holds each chunk's
// address. Chunks are added under the heap lock and never move, so an id once handed out stays
// valid. Id 0 is "no G": its slot exists in chunk 0 but is never put on a free list.

import {
  FLAG_DEBUG, GDIR, G_CHUNK, G_CHUNK_MASK, G_CHUNK_SHIFT, G_DEAD, G_IDLE, G_RUNNABLE,
  G_RUNNING, G_SIZE, G_STATUS, G_WAITING, HEADER, H_GCAP, H_GMAX, LINE, SC_GROWS, S_COUNTERS,
} from './shared/layout';
import { counterAdd, flags } from './mem';
import { heapLock, heapUnlock } from './lock';
import { sbrk } from './heap';
import { gfPushBatch } from './gfree';
import { beginAbort } from './abort';

/** Byte address of G g's entry. g must be below H_GCAP. Any thread. */
export function gAddr(g: u32): usize {
  let chunk = atomic.load<u32>(<usize>(g >> G_CHUNK_SHIFT) << 2, GDIR); // pairs with the GDIR store in growTable
  return <usize>chunk + (<usize>(g & G_CHUNK_MASK) * <usize>G_SIZE);
}

/** Whether from -> to is a legal G transition (DESIGN.md "G states"). Any thread. */
function legal(from: u32, to: u32): bool {
  switch (to) {
    case G_DEAD: return from == G_IDLE || from == G_RUNNING || from == G_WAITING || from == G_RUNNABLE;
    case G_RUNNABLE: return from == G_DEAD || from == G_WAITING;
    case G_RUNNING: return from == G_RUNNABLE;
    case G_WAITING: return from == G_RUNNING;
  }
  return false;
}

/**
 * Moves G g from status `from` to `to`. With FLAG_DEBUG the pair must be legal and g must be in
 * `from` (checked by CAS); otherwise the status is simply stored. The thread that owns g's
 * current state (the M running it, or whoever took it off a queue or free list).
 */
export function gSetStatus(g: u32, from: u32, to: u32): void {
  let gp = gAddr(g);
  if ((flags() & FLAG_DEBUG) == 0) {
    store<u32>(gp, to, G_STATUS); // plain: the run-queue or join atomic that hands g over publishes it
    return;
  }
  let ok = legal(from, to);
  let was = ok
    ? atomic.cmpxchg<u32>(gp, from, to, G_STATUS) // pairs with other gSetStatus CAS and loads
    : atomic.load<u32>(gp, G_STATUS); // pairs with the status store/CAS of the last transition
  if (!ok || was != from) {
    beginAbort();
    throw new Error('gSetStatus: bad transition g=' + g.toString() + ' from=' + from.toString() +
      ' to=' + to.toString() + ' (is ' + was.toString() + ')');
  }
}

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
