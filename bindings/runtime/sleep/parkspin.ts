// Spinning in the park (docs/DESIGN.md "The park word", "Scaling"): before its deep wait, an M
// without a P polls its park word (spinLimit rungs) and takes short waits (yieldLimit rungs), so
// a wake-up that comes soon costs no futex sleep. That pays only while a CPU is free for it: on a
// machine with more threads that want to run than CPUs, every poll and every short wait's wake-up
// is CPU taken from a thread that runs tasks (the scheduler at procs 32 on 2 CPUs burned most of
// its extra CPU there). Go's sync.Mutex spins under the same kind of condition
// (runtime_canSpin: more than one CPU, and a P running besides the spinner).
//
// The rule: an M takes the spin and short-wait rungs only while the Ps held by an M, plus the Ms
// on those rungs (itself included), are at most ncpu. S_RT_NPARKSPIN counts the Ms on the rungs;
// each M's MR_PARKSPIN says whether it is counted, so leaving is idempotent and every way out of
// the sleep can call it. The count is advisory: it decides how long an M polls, never whether
// it waits on its park word, so no wake-up depends on it (the park word's own argument stands).
//
// No runtime import but the layout: the model checker compiles this file
// (test/model/protocols/park.mjs). Callers: park.ts (the Parker), fork.ts (the joiner's help
// rounds, through overcommitted).

import {
  H_NPROCS, HEADER, MR_PARKSPIN, S_NPIDLE, S_RT_NPARKSPIN, S_RT_NPDEAD, S_RT_NPNOM, S_RT_NPRESERVE,
} from '../../../assembly/shared/layout.js';

const NPROCS_W = (HEADER + H_NPROCS) >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const NPRESERVE_W = S_RT_NPRESERVE >> 2;
const NPNOM_W = S_RT_NPNOM >> 2;
const NPDEAD_W = S_RT_NPDEAD >> 2;
const NPARKSPIN_W = S_RT_NPARKSPIN >> 2;
const FLAG = MR_PARKSPIN >> 2;

/** Ps held by an M now: the core's npBusy (assembly/idle.ts), the Ps less the idle ones, the
 *  spares in the reserve, those without an M and those out of service. Any thread; a snapshot. */
export function busyPs(i32: Int32Array): number {
  const n = i32[NPROCS_W] - Atomics.load(i32, NPIDLE_W) - Atomics.load(i32, NPRESERVE_W) // plain: fixed at init; the rest pair with the lists' stores under sched.lock
    - Atomics.load(i32, NPNOM_W) - Atomics.load(i32, NPDEAD_W); // the same
  return n > 0 ? n : 0;
}

/** Do more threads want a CPU than there are: the Ps held by an M (a fork joiner holding its P
 *  among them) and the Ms on the park rungs, against ncpu? Any thread; a snapshot. */
export function overcommitted(i32: Int32Array, ncpu: number): boolean {
  return busyPs(i32) + Atomics.load(i32, NPARKSPIN_W) > ncpu; // pairs with the adds in parkSpin
}

/**
 * May the M whose block starts at i32 index mw take a spin or short-wait rung now? Counts it in
 * S_RT_NPARKSPIN first (then the check sees it), and out again when the CPUs are taken. The M
 * itself only, without a P.
 */
export function parkSpin(i32: Int32Array, mw: number, ncpu: number): boolean {
  const counted = i32[mw + FLAG] !== 0; // plain: this M's own word
  const n = counted ? Atomics.load(i32, NPARKSPIN_W) : Atomics.add(i32, NPARKSPIN_W, 1) + 1; // pairs with the other Ms' adds and subs
  if (busyPs(i32) + n <= ncpu) {
    i32[mw + FLAG] = 1; // plain: this M's own word
    return true;
  }
  i32[mw + FLAG] = 0; // plain: this M's own word
  Atomics.sub(i32, NPARKSPIN_W, 1); // pairs with the other Ms' adds in parkSpin
  return false;
}

/** The M leaves the rungs (deep wait, woken, or done sleeping): counted out if it was in. The M
 *  itself only. */
export function parkSpinLeave(i32: Int32Array, mw: number): void {
  if (i32[mw + FLAG] === 0) return; // plain: this M's own word
  i32[mw + FLAG] = 0; // plain: this M's own word
  Atomics.sub(i32, NPARKSPIN_W, 1); // pairs with the adds in parkSpin
}
