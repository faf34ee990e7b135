// Futex mutexes: sched.lock and the heap lock (docs/DESIGN.md, "Global run queue").
//
// The word is LOCK_FREE, LOCK_HELD or LOCK_CONTENDED (held, waiters maybe). Lock: one CAS
// FREE -> HELD on the fast path; otherwise swap in CONTENDED until the swap returns FREE,
// sleeping on the word between swaps where the thread may block, spinning where it may not.
// Unlock: swap FREE; if the old value was CONTENDED, some thread may sleep on the word, so
// notify one.
//
// The sleep has no timeout: unlock's notify always comes (it follows the swap that saw 2), and a
// waiter rechecks the word before it sleeps, so no wake-up is lost (docs/DESIGN.md "Global run
// queue"). A bound here could only hide a bug.

import {
  LOCK_CONTENDED, LOCK_FREE, LOCK_HELD, S_COUNTERS, S_HEAP_LOCK, S_LOCK, SC_LOCK_ACQ,
} from './shared/layout';
import { counterAdd } from './mem';
import { mayBlock } from './thread';

/** Acquires the mutex at `word`. Any thread. */
@inline export function lock(word: usize): void {
  if (atomic.cmpxchg<u32>(word, LOCK_FREE, LOCK_HELD) != LOCK_FREE) { // acquire: pairs with the xchg in unlock
    lockSlow(word);
  }
}

/** The contended path of lock. Any thread. */
function lockSlow(word: usize): void {
  while (atomic.xchg<u32>(word, LOCK_CONTENDED) != LOCK_FREE) { // acquire: pairs with the xchg in unlock
    if (mayBlock()) {
      memory.atomic.wait32(word, LOCK_CONTENDED, -1); // sleeps while held, unbounded: pairs with notify in unlock
    } else {
      while (atomic.load<u32>(word) != LOCK_FREE) {} // spin: pairs with the xchg in unlock
    }
  }
}

/** Releases the mutex at `word`. The holder only. */
@inline export function unlock(word: usize): void {
  if (atomic.xchg<u32>(word, LOCK_FREE) == LOCK_CONTENDED) { // release: pairs with the xchg/cmpxchg in lock
    atomic.notify(word, 1); // wakes one: pairs with the wait32 in lockSlow
  }
}

/** Takes sched.lock and counts the acquisition (SC_LOCK_ACQ). Any thread. */
export function schedLock(): void {
  lock(S_LOCK);
  counterAdd(S_COUNTERS + SC_LOCK_ACQ, 1);
}

/** Releases sched.lock. The holder only. */
export function schedUnlock(): void {
  unlock(S_LOCK);
}

/** Takes the heap lock (brk, memory growth, G table growth, size-class lists). Any thread. */
export function heapLock(): void {
  lock(S_HEAP_LOCK);
}

/** Releases the heap lock. The holder only. */
export function heapUnlock(): void {
  unlock(S_HEAP_LOCK);
}
