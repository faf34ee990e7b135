// The views one thread holds on the shared memory, and their refresh after memory growth.
//
// Every other file of the TypeScript twin reaches memory through a `Mem`: word index
// `addr >> 2` in `i32`, counter index `addr >> 3` in `f64`, the 64-bit free-G head in `i64`.
// The G table and value blocks grow the memory under the heap lock, on any thread
// (docs/DESIGN.md, "Growing the G table"); a thread notices only when an address lies past the
// end of its views, and then refreshes them (`cover`). Views are never shrunk and a stale view
// stays valid for the bytes it covers, so a function may keep a local `i32` for the fixed
// blocks (header, sched, Ps, Ms) and must re-read `m.i32` only after a G or block access that
// may have refreshed.
//
// All state here is per thread and per memory: nothing the threads share lives in JS.

import {
  HEADER, H_BRK, H_FLAGS, H_GCAP, H_GMAX, H_MBASE, H_MEMBYTES, H_NCOPRIMES, H_NPROCS,
  H_STEAL_THRESHOLD, M_SIZE, OP_CALLS, OP_CAS, OP_CAS_FAILS, P_COUNTERS, P_OPS, P_SIZE, PS, S_COUNTERS, S_NMSPINNING_MAX,
} from '../../../assembly/shared/layout.js';

// Header words (i32 indexes). Written by init() before any other thread attaches, then
// read-only except H_GCAP, H_BRK and H_MEMBYTES (heap lock).
export const H_NPROCS_W = (HEADER + H_NPROCS) >> 2;
export const H_GCAP_W = (HEADER + H_GCAP) >> 2;
export const H_GMAX_W = (HEADER + H_GMAX) >> 2;
export const H_BRK_W = (HEADER + H_BRK) >> 2;
export const H_FLAGS_W = (HEADER + H_FLAGS) >> 2;
export const H_STEAL_THRESHOLD_W = (HEADER + H_STEAL_THRESHOLD) >> 2;
export const H_NCOPRIMES_W = (HEADER + H_NCOPRIMES) >> 2;
export const H_MBASE_W = (HEADER + H_MBASE) >> 2;
export const H_MEMBYTES_W = (HEADER + H_MEMBYTES) >> 2;

/** f64 index of scheduler counter `SC_*`. */
export const SC_F = S_COUNTERS >> 3;

const P_BASE_W = PS >> 2;
const P_WORDS = P_SIZE >> 2;
const P_COUNTERS_F = (PS + P_COUNTERS) >> 3;
const P_OPS_F = (PS + P_OPS) >> 3;
const CALLS = OP_CALLS >> 3;
const CAS = OP_CAS >> 3;
const CAS_FAILS = OP_CAS_FAILS >> 3;
const SPINNING_MAX_W = S_NMSPINNING_MAX >> 2;
const P_F64S = P_SIZE >> 3;
const P_F64_BASE = PS >> 3;
const M_WORDS = M_SIZE >> 2;

/** One thread's views on one shared memory, plus that thread's scratch words. */
export class Mem {
  readonly memory: WebAssembly.Memory;
  i32: Int32Array;
  f64: Float64Array;
  /** Byte view: the tag bytes of argument slots (a neighbour's tag may be written at once). */
  u8: Uint8Array;
  i64: BigInt64Array;
  /** Bytes the views cover. */
  end: number;
  /** May this thread Atomics.wait (false on a main thread). */
  canBlock: boolean;
  /** Set by runqGet: 1 when the G came from runnext (it inherits the time slice). */
  inherit: number;
  /** Set by globrunqDetach: how many Gs the detached batch holds. */
  batchN: number;

  constructor(memory: WebAssembly.Memory, canBlock: boolean) {
    const buf = memory.buffer;
    this.memory = memory;
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.u8 = new Uint8Array(buf);
    this.i64 = new BigInt64Array(buf);
    this.end = buf.byteLength;
    this.canBlock = canBlock;
    this.inherit = 0;
    this.batchN = 0;
  }

  /** Re-creates the views over the memory's current size. This thread only. */
  refresh(): void {
    const buf = this.memory.buffer;
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.u8 = new Uint8Array(buf);
    this.i64 = new BigInt64Array(buf);
    this.end = buf.byteLength;
  }
}

/** Makes this thread's views cover every byte below `end`, refreshing them if another thread
 *  grew the memory. Throws if the memory itself is smaller (a bad address). Any thread. */
export function cover(m: Mem, end: number): void {
  if (end <= m.end) return;
  m.refresh();
  if (end > m.end) throw new RangeError(`stealwork: address ${end} past the memory end ${m.end}`);
}

/** i32 index of P p's block. Any thread. */
export function pWord(p: number): number {
  return P_BASE_W + p * P_WORDS;
}

/** f64 index of P p's block (add `P_HIGH_PERIOD >> 3`, ...). Any thread. */
export function pF64(p: number): number {
  return P_F64_BASE + p * P_F64S;
}

/** f64 index of P p's first owner counter (add `PC_* >> 3`). Any thread. */
export function pCounters(p: number): number {
  return P_COUNTERS_F + p * P_F64S;
}

/** f64 index of P p's operation counters (add `OP_* >> 3`; DESIGN.md "Scaling"). Any thread. */
export function pOps(p: number): number {
  return P_OPS_F + p * P_F64S;
}

/** Counts one compare-and-swap (or runnext exchange) on a queue word by the owner of P p, and
 *  its failure (OP_CAS, OP_CAS_FAILS: DESIGN.md "Scaling"). Returns `ok`. The owner of p only. */
export function casCount(m: Mem, p: number, ok: boolean): boolean {
  const o = pOps(p);
  m.f64[o + CAS] += 1; // plain: owner counters
  if (!ok) m.f64[o + CAS_FAILS] += 1;
  return ok;
}

/** Counts one core call by the M holding P p (OP_CALLS: DESIGN.md "Scaling"). The owner of p only. */
export function opCall(m: Mem, p: number): void {
  m.f64[pOps(p) + CALLS] += 1; // plain: owner counter
}

/** Raises the nmspinning gauge (S_NMSPINNING_MAX) to n, the count just after an increment.
 *  Plain load and store: two racing raises may leave it one low, which a gauge tolerates. Any
 *  thread. */
export function spinningSeen(m: Mem, n: number): void {
  if (n > m.i32[SPINNING_MAX_W]) m.i32[SPINNING_MAX_W] = n; // plain: a gauge (see above)
}

/** i32 index of M mi's block. Any thread. */
export function mWord(m: Mem, mi: number): number {
  return (m.i32[H_MBASE_W] >>> 2) + mi * M_WORDS; // plain: header word fixed at init
}

/** nprocs from the header. Any thread. */
export function nprocs(m: Mem): number {
  return m.i32[H_NPROCS_W]; // plain: header word fixed at init
}

/** The header flags word. Any thread. */
export function flags(m: Mem): number {
  return m.i32[H_FLAGS_W]; // plain: header word fixed at init
}

/** Number of coprimes of nprocs stored at COPRIMES. Any thread. */
export function ncoprimes(m: Mem): number {
  return m.i32[H_NCOPRIMES_W]; // plain: header word fixed at init
}
