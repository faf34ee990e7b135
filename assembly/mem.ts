// Raw access to the shared memory (docs/DESIGN.md, "Memory layout").
//
// Field access is written at the call site with the builtin load/store and atomic.* functions,
// passing the layout's field offset as the instruction's immediate (`atomic.load<u32>(pp,
// P_HEAD)`), so each access names the word it touches and the golden test can find it in the
// compiled text. This file holds what every other file needs to get there: the address of each
// block, the header's read-only words, and the counter bump.
//
// Nothing here keeps state: every word lives at a layout address in the one shared memory.

import {
  HEADER, H_FLAGS, H_MBASE, H_NPROCS, M_SIZE, PS, P_SIZE,
} from './shared/layout';

/** Byte address of P p's block. Any thread. */
@inline export function pAddr(p: i32): usize {
  return <usize>PS + <usize>p * <usize>P_SIZE;
}

/** Byte address of M m's block; the M blocks follow the nprocs P blocks. Any thread. */
@inline export function mAddr(m: i32): usize {
  // plain: H_MBASE is written once by init, before any other thread attaches
  return <usize>load<u32>(HEADER, H_MBASE) + <usize>m * <usize>M_SIZE;
}

/** nprocs (GOMAXPROCS), fixed at init. Any thread. */
@inline export function nprocs(): i32 {
  return load<i32>(HEADER, H_NPROCS); // plain: read-only after init
}

/** The header FLAGS word (FLAG_*), fixed at init. Any thread. */
@inline export function flags(): u32 {
  return load<u32>(HEADER, H_FLAGS); // plain: read-only after init
}

/**
 * Adds `by` to the f64 counter at `addr`. Counters have one writer at a time (the P's owner,
 * or the holder of the lock that guards them), so a plain read-modify-write loses nothing;
 * readers on other threads see a possibly stale value (DESIGN.md "Memory layout", rule 3).
 * The single writer only.
 */
@inline export function counterAdd(addr: usize, by: f64): void {
  store<f64>(addr, load<f64>(addr) + by);
}
