// Where the M and P blocks lie (docs/DESIGN.md "Memory layout"): the only place in the runtime
// that turns an M or P index into the byte address of its block. Callers add a field offset
// from assembly/shared/layout.ts (M_*, MR_*, P_*) to the address these give.
//
// The bases (H_MBASE, H_PBASE) are written once by the core's init, before any thread starts,
// and never move (the blocks sit below the G table), so plain loads suffice. Any thread.

import { H_MBASE, H_PBASE, HEADER, M_SIZE, P_SIZE, PS } from '../../../assembly/shared/layout.js';
import type { Views } from './values.js';

/** Byte address of M slot m's block (M0: the main thread). */
export function mAddr(views: Views, m: number): number {
  return views.u32[(HEADER + H_MBASE) >>> 2] + m * M_SIZE;
}

/** Byte address of P p's block. */
export function pAddr(views: Views, p: number): number {
  return views.u32[(HEADER + H_PBASE) >>> 2] + p * P_SIZE;
}

/** Bytes below the G table for nprocs P blocks and nms M blocks (the memory's fixed part). */
export function blocksEnd(nprocs: number, nms: number): number {
  return PS + nprocs * P_SIZE + nms * M_SIZE;
}
