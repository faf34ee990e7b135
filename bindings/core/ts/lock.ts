// The futex mutexes: sched.lock and the heap lock (docs/DESIGN.md, "Global run queue").
//
// Word states: LOCK_FREE, LOCK_HELD, LOCK_CONTENDED (held, waiters maybe). The fast path is one
// CAS FREE -> HELD. The slow path swaps in CONTENDED until it sees FREE; where the thread may
// block it waits on the word between swaps, else it spins. Unlock swaps in FREE and wakes one
// waiter if it saw CONTENDED.

import {
  LOCK_CONTENDED, LOCK_FREE, LOCK_HELD, S_COUNTERS, S_HEAP_LOCK, S_LOCK, SC_LOCK_ACQ,
} from '../../../assembly/shared/layout.js';
import type { Mem } from './mem.js';

const S_LOCK_W = S_LOCK >> 2;
const S_HEAP_LOCK_W = S_HEAP_LOCK >> 2;
const SC_LOCK_ACQ_F = (S_COUNTERS + SC_LOCK_ACQ) >> 3;

/** Acquires the mutex at i32 index w. Any thread; not reentrant. */
export function lockWord(m: Mem, w: number): void {
  if (Atomics.compareExchange(m.i32, w, LOCK_FREE, LOCK_HELD) === LOCK_FREE) return; // acquire: pairs with the exchange in unlockWord
  lockSlow(m, w);
}

/** The contended path of lockWord: mark the word "waiters" and sleep or spin until it was free.
 *  Any thread. */
function lockSlow(m: Mem, w: number): void {
  const i32 = m.i32;
  while (Atomics.exchange(i32, w, LOCK_CONTENDED) !== LOCK_FREE) { // acquire (as CONTENDED): pairs with the exchange in unlockWord
    if (m.canBlock) {
      Atomics.wait(i32, w, LOCK_CONTENDED); // sleeps while held, unbounded as in the Wasm core: woken by the notify in unlockWord
    } else {
      while (Atomics.load(i32, w) !== LOCK_FREE) { /* spin: pairs with the exchange in unlockWord */ }
    }
  }
}

/** Releases the mutex at i32 index w. The holder only. */
export function unlockWord(m: Mem, w: number): void {
  if (Atomics.exchange(m.i32, w, LOCK_FREE) === LOCK_CONTENDED) { // release: pairs with the CAS/exchange in lockWord
    Atomics.notify(m.i32, w, 1); // wakes one sleeper in lockSlow
  }
}

/** Takes sched.lock and counts the acquisition (SC_LOCK_ACQ). Any thread. */
export function schedLock(m: Mem): void {
  lockWord(m, S_LOCK_W);
  m.f64[SC_LOCK_ACQ_F] += 1; // plain: under sched.lock
}

/** Releases sched.lock. The holder only. */
export function schedUnlock(m: Mem): void {
  unlockWord(m, S_LOCK_W);
}

/** Takes the heap lock (chunk bump allocation, memory growth, size-class lists). Any thread. */
export function heapLock(m: Mem): void {
  lockWord(m, S_HEAP_LOCK_W);
}

/** Releases the heap lock. The holder only. */
export function heapUnlock(m: Mem): void {
  unlockWord(m, S_HEAP_LOCK_W);
}
