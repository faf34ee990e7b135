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
  PRIO_HIGH, S_RUNQH_HEAD, S_RUNQH_SIZE, S_RUNQH_TAIL, S_RUNQL_HEAD, S_RUNQL_SIZE, S_RUNQL_TAIL,
  SC_HIGH_PUT, SC_LOW_PUT,
} from '../../../assembly/shared/layout.js';
import { gLink, gSetLink } from './gtable.js';
import { schedLock, schedUnlock } from './lock.js';
import { SC_F, type Mem } from './mem.js';

const HIGH_HEAD_W = S_RUNQH_HEAD >> 2;
const HIGH_TAIL_W = S_RUNQH_TAIL >> 2;
const HIGH_SIZE_W = S_RUNQH_SIZE >> 2;
const LOW_HEAD_W = S_RUNQL_HEAD >> 2;
const LOW_TAIL_W = S_RUNQL_TAIL >> 2;
const LOW_SIZE_W = S_RUNQL_SIZE >> 2;
const SC_HIGH_PUT_F = SC_F + (SC_HIGH_PUT >> 3);
const SC_LOW_PUT_F = SC_F + (SC_LOW_PUT >> 3);

/** Gs on class c's queue (PRIO_HIGH's, else the low queue), read without the lock. Any thread. */
export function classqSize(m: Mem, c: number): number {
  return Atomics.load(m.i32, c === PRIO_HIGH ? HIGH_SIZE_W : LOW_SIZE_W); // pairs with the size stores under sched.lock
}

/** Appends g (G_RUNNABLE, owned by the caller) to class c's queue: PRIO_HIGH's, any other
 *  class the low queue. Counts SC_HIGH_PUT or SC_LOW_PUT. Any thread; takes sched.lock. */
export function classqPut(m: Mem, g: number, c: number): void {
  const high = c === PRIO_HIGH;
  const headW = high ? HIGH_HEAD_W : LOW_HEAD_W;
  const tailW = high ? HIGH_TAIL_W : LOW_TAIL_W;
  const sizeW = high ? HIGH_SIZE_W : LOW_SIZE_W;
  gSetLink(m, g, 0); // plain: g is ours until the lock publishes it
  schedLock(m);
  const i32 = m.i32;
  const tail = i32[tailW]; // plain: under sched.lock
  if (tail !== 0) gSetLink(m, tail, g);
  else i32[headW] = g; // plain: under sched.lock
  i32[tailW] = g; // plain: under sched.lock
  Atomics.store(i32, sizeW, i32[sizeW] + 1); // pairs with lock-free size loads (findRunnable, workVisible)
  m.f64[high ? SC_HIGH_PUT_F : SC_LOW_PUT_F] += 1; // plain: under sched.lock
  schedUnlock(m);
}

/** Unhooks the first G of class c's queue (see classqPut); 0 when empty. Holds sched.lock. */
export function classqPopLocked(m: Mem, c: number): number {
  const high = c === PRIO_HIGH;
  const headW = high ? HIGH_HEAD_W : LOW_HEAD_W;
  const sizeW = high ? HIGH_SIZE_W : LOW_SIZE_W;
  const size = m.i32[sizeW]; // plain: under sched.lock
  if (size === 0) return 0;
  const g = m.i32[headW]; // plain: under sched.lock
  const next = gLink(m, g); // may refresh the views: m.i32 is read again below
  const i32 = m.i32;
  i32[headW] = next; // plain: under sched.lock
  if (next === 0) i32[high ? HIGH_TAIL_W : LOW_TAIL_W] = 0;
  Atomics.store(i32, sizeW, size - 1); // pairs with lock-free size loads (findRunnable, workVisible)
  return g;
}

/** Takes the first G of class c's queue; 0 when empty. Any thread; takes sched.lock. */
export function classqGet(m: Mem, c: number): number {
  schedLock(m);
  const g = classqPopLocked(m, c);
  schedUnlock(m);
  return g;
}
