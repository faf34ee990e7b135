// The high and low class queues (docs/DESIGN.md, "Priority classes").
//
// Two FIFOs of Gs linked by G_SCHEDLINK exactly like the global run queue: head and tail on
// sched.lock's line (S_RUNQH_HEAD/TAIL, S_RUNQL_HEAD/TAIL), changed only under the lock; the
// size on the lock-free-read line (S_RUNQH_SIZE, S_RUNQL_SIZE), stored atomically under the
// lock so findRunnable, stopM's recheck and the runtime can skip an empty queue without it.
// Gs leave one at a time, never in a batch: a batch would put class Gs on a P's ring, where
// they would run (and be stolen) as normal work. A G taken off keeps its stale G_SCHEDLINK, as
// on the global queue; the tail's link is 0.

import {
  G_SCHEDLINK, PRIO_HIGH, SC_HIGH_PUT, SC_LOW_PUT, S_COUNTERS, S_RUNQH_HEAD, S_RUNQH_SIZE,
  S_RUNQH_TAIL, S_RUNQL_HEAD, S_RUNQL_SIZE, S_RUNQL_TAIL,
} from './shared/layout';
import { counterAdd } from './mem';
import { schedLock, schedUnlock } from './lock';
import { gAddr } from './gtable';

/** Address of class c's head word: PRIO_HIGH's, else the low queue's. Any thread. */
@inline function qHead(c: u32): usize {
  return c == PRIO_HIGH ? <usize>S_RUNQH_HEAD : <usize>S_RUNQL_HEAD;
}

/** Address of class c's tail word (see qHead). Any thread. */
@inline function qTail(c: u32): usize {
  return c == PRIO_HIGH ? <usize>S_RUNQH_TAIL : <usize>S_RUNQL_TAIL;
}

/** Address of class c's size word (see qHead). Any thread. */
@inline function qSize(c: u32): usize {
  return c == PRIO_HIGH ? <usize>S_RUNQH_SIZE : <usize>S_RUNQL_SIZE;
}

/** Gs on class c's queue (PRIO_HIGH, else low), read without the lock. Any thread. */
@inline export function classqSize(c: u32): u32 {
  return atomic.load<u32>(qSize(c)); // pairs with the size stores under sched.lock
}

/**
 * Appends g (G_RUNNABLE, owned by the caller) at the tail of class c's queue: PRIO_HIGH's, any
 * other class the low queue. Counts SC_HIGH_PUT or SC_LOW_PUT. Any thread; takes sched.lock.
 */
export function classqPut(g: u32, c: u32): void {
  store<u32>(gAddr(g), 0, G_SCHEDLINK); // plain: g is ours until the lock publishes it
  schedLock();
  let tail = load<u32>(qTail(c)); // plain: sched.lock held
  if (tail != 0) {
    store<u32>(gAddr(tail), g, G_SCHEDLINK); // plain: sched.lock held
  } else {
    store<u32>(qHead(c), g); // plain: sched.lock held
  }
  store<u32>(qTail(c), g); // plain: sched.lock held
  let size = atomic.load<u32>(qSize(c)); // pairs with the size stores under the lock
  atomic.store<u32>(qSize(c), size + 1); // pairs with lock-free size loads in findRunnable/workAnywhere
  counterAdd(S_COUNTERS + (c == PRIO_HIGH ? SC_HIGH_PUT : SC_LOW_PUT), 1); // sched.lock held
  schedUnlock();
}

/** Unhooks the first G of class c's queue (see classqPut); 0 when empty. Holds sched.lock. */
export function classqPopLocked(c: u32): u32 {
  let size = atomic.load<u32>(qSize(c)); // pairs with the size stores under the lock
  if (size == 0) return 0;
  let g = load<u32>(qHead(c)); // plain: sched.lock held
  let next = load<u32>(gAddr(g), G_SCHEDLINK); // plain: sched.lock held
  store<u32>(qHead(c), next); // plain: sched.lock held
  if (next == 0) store<u32>(qTail(c), 0); // plain: sched.lock held
  atomic.store<u32>(qSize(c), size - 1); // pairs with lock-free size loads in findRunnable/workAnywhere
  return g;
}

/** Takes the first G of class c's queue; 0 when empty. Any thread; takes sched.lock. */
export function classqGet(c: u32): u32 {
  schedLock();
  let g = classqPopLocked(c);
  schedUnlock();
  return g;
}
