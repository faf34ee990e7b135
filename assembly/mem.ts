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
  HEADER, H_FLAGS, H_MBASE, H_NPROCS, M_SIZE, OP_CALLS, OP_CAS, OP_CAS_FAILS, PS, P_OPS, P_SIZE, S_NMSPINNING_MAX,
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

/**
 * Counts one compare-and-swap on a queue word by the owner of P block pp, and its failure
 * (OP_CAS, OP_CAS_FAILS: DESIGN.md "Scaling"). Returns `ok`. The owner of pp only.
 */
@inline export function casCount(pp: usize, ok: bool): bool {
  counterAdd(pp + (P_OPS + OP_CAS), 1);
  if (!ok) counterAdd(pp + (P_OPS + OP_CAS_FAILS), 1);
  return ok;
}

/** Counts one core call by the M holding P p (OP_CALLS: DESIGN.md "Scaling"). The owner of p only. */
@inline export function opCall(p: i32): void {
  counterAdd(pAddr(p) + (P_OPS + OP_CALLS), 1);
}

/**
 * Raises the nmspinning gauge (S_NMSPINNING_MAX) to n, the count just after an increment. Plain
 * load and store: two racing raises may leave it one low, which a gauge tolerates. Any thread.
 */
@inline export function spinningSeen(n: i32): void {
  if (<u32>n > load<u32>(S_NMSPINNING_MAX)) store<u32>(S_NMSPINNING_MAX, <u32>n); // plain: a gauge (see above)
}
