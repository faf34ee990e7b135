// Laying the layout down on fresh memory (docs/DESIGN.md, "Memory layout").

import {
  GDIR_MAX, G_CHUNK, HEADER, H_BRK, H_FLAGS, H_GCAP, H_GMAX, H_MAGIC, H_MAXMS,
  H_MBASE, H_NPROCS, H_PBASE, H_STEAL_THRESHOLD, H_VERSION, LAYOUT_BASE, LAYOUT_VERSION, MAGIC,
  MAX_MS, MAX_PROCS, M_SIZE, PS, P_ID, P_RAND, P_SIZE,
} from './shared/layout';
import { pAddr } from './mem';
import { memReach, memRecord } from './heap';
import { growTable } from './ggrow';
import { coprimesInit } from './steal';
import { pidlePut } from './idle';
import { beginAbort } from './abort';

/** Go's golden-ratio constant, spreading the per-P seeds of the victim order. */
const SEED_MIX: u32 = 0x9e3779b9;

/**
 * Lays the layout down: zeroes everything from LAYOUT_BASE to the fixed region's end, writes
 * the header and the coprimes, puts every P on the idle list (P0 on top), leaves every M slot
 * unused, and grows the G table to gcapInit (whole chunks, at most gmax). The magic word is
 * stored last. Main thread only, once, before any other call on this memory.
 */
export function init(nprocs: i32, maxMs: i32, gcapInit: u32, gmax: u32, flags: u32,
  stealThreshold: u32, seed: u32): void {
  if (__heap_base > <usize>LAYOUT_BASE) {
    beginAbort();
    throw new Error('init: static data ends at ' + __heap_base.toString() + ', past LAYOUT_BASE ' + LAYOUT_BASE.toString());
  }
  if (nprocs < 1 || nprocs > MAX_PROCS) {
    beginAbort();
    throw new Error('init: nprocs=' + nprocs.toString() + ' not in [1, ' + MAX_PROCS.toString() + ']');
  }
  if (maxMs < 1 || maxMs > MAX_MS) {
    beginAbort();
    throw new Error('init: maxMs=' + maxMs.toString() + ' not in [1, ' + MAX_MS.toString() + ']');
  }
  if (gmax > <u32>(GDIR_MAX * G_CHUNK)) {
    beginAbort();
    throw new Error('init: gmax=' + gmax.toString() + ' above ' + (GDIR_MAX * G_CHUNK).toString());
  }
  if (stealThreshold < 1) {
    beginAbort();
    throw new Error('init: stealThreshold=' + stealThreshold.toString() + ' below 1');
  }

  let mBase = <u32>PS + <u32>nprocs * <u32>P_SIZE;
  let brk = mBase + <u32>maxMs * <u32>M_SIZE;
  if (!memReach(<u64>brk)) {
    beginAbort();
    throw new Error('init: cannot grow memory to ' + brk.toString() + ' bytes');
  }
  memory.fill(LAYOUT_BASE, 0, brk - <u32>LAYOUT_BASE);

  // plain stores: no other thread touches this memory before init returns
  store<u32>(HEADER, LAYOUT_VERSION, H_VERSION);
  store<u32>(HEADER, <u32>nprocs, H_NPROCS);
  store<u32>(HEADER, <u32>maxMs, H_MAXMS);
  store<u32>(HEADER, 0, H_GCAP);
  store<u32>(HEADER, gmax, H_GMAX);
  store<u32>(HEADER, brk, H_BRK);
  store<u32>(HEADER, flags, H_FLAGS);
  store<u32>(HEADER, stealThreshold, H_STEAL_THRESHOLD);
  store<u32>(HEADER, PS, H_PBASE);
  store<u32>(HEADER, mBase, H_MBASE);
  memRecord();
  coprimesInit(<u32>nprocs);

  for (let p = nprocs - 1; p >= 0; p--) {
    let pp = pAddr(p);
    store<u32>(pp, <u32>p, P_ID);
    store<u32>(pp, (seed ^ (SEED_MIX * (<u32>p + 1))) | 1, P_RAND);
    pidlePut(p); // P_STATUS is already P_IDLE (0)
  }

  while (load<u32>(HEADER, H_GCAP) < gcapInit) {
    if (!growTable(load<u32>(HEADER, H_GCAP))) break;
  }
  atomic.store<u32>(HEADER, MAGIC, H_MAGIC); // layout ready: pairs with attaching threads' magic check
}
