// The global run queue: Go's globrunqput, globrunqputbatch, and the locked half of globrunqget
// (docs/DESIGN.md, "Global run queue"). globrunqget.ts moves a batch on to a P's ring; it lives
// apart because it calls runqPut, and runqPutSlow calls in here.
//
// A FIFO list linked by G_SCHEDLINK: S_RUNQ_HEAD, S_RUNQ_TAIL and S_RUNQ_SIZE, all under
// sched.lock. S_RUNQ_SIZE is also stored atomically, so lock-free readers can skip an empty
// queue. The list is 0-terminated: an append stores 0 in its last G's schedlink; taking Gs off
// the head leaves their schedlink as it was (Go's gQueue.pop).

import {
  GLOBRUNQ_MAX_BATCH, S_RUNQ_HEAD, S_RUNQ_SIZE, S_RUNQ_TAIL, SC_GLOB_GET,
  SC_GLOB_PUT,
} from '../../../assembly/shared/layout.js';
import { gLink, gSetLink } from './gtable.js';
import { schedLock, schedUnlock } from './lock.js';
import { nprocs, SC_F, type Mem } from './mem.js';

const RUNQ_HEAD_W = S_RUNQ_HEAD >> 2;
const RUNQ_TAIL_W = S_RUNQ_TAIL >> 2;
const RUNQ_SIZE_W = S_RUNQ_SIZE >> 2;
const SC_GLOB_PUT_F = SC_F + (SC_GLOB_PUT >> 3);
const SC_GLOB_GET_F = SC_F + (SC_GLOB_GET >> 3);

/** S_RUNQ_SIZE, read lock-free. Any thread. */
export function globrunqSize(m: Mem): number {
  return Atomics.load(m.i32, RUNQ_SIZE_W); // pairs with the size stores under sched.lock
}

/** Appends the chain head..tail (n Gs, linked by G_SCHEDLINK) to the global queue. The caller
 *  owns the chain. Any thread; takes sched.lock. */
export function globrunqPutBatch(m: Mem, head: number, tail: number, n: number): void {
  if (n === 0) return;
  gSetLink(m, tail, 0); // plain: the chain is ours until the lock publishes it
  schedLock(m);
  const i32 = m.i32;
  const qt = i32[RUNQ_TAIL_W]; // plain: under sched.lock
  if (qt !== 0) gSetLink(m, qt, head);
  else i32[RUNQ_HEAD_W] = head; // plain: under sched.lock
  i32[RUNQ_TAIL_W] = tail;
  Atomics.store(i32, RUNQ_SIZE_W, i32[RUNQ_SIZE_W] + n); // pairs with lock-free size loads
  m.f64[SC_GLOB_PUT_F] += n; // plain: under sched.lock
  schedUnlock(m);
}

/** Appends g to the global queue. The caller owns g. Any thread; takes sched.lock. */
export function globrunqPut(m: Mem, g: number): void {
  globrunqPutBatch(m, g, g, 1);
}

/** Takes a batch off the global queue's head by Go's rule: n = min(size / nprocs + 1, size),
 *  then min(n, max) when max > 0, then min(n, GLOBRUNQ_MAX_BATCH). Returns the first G (0 when
 *  the queue is empty) and leaves n in m.batchN; the n Gs stay linked by G_SCHEDLINK. Holds
 *  sched.lock. */
export function globrunqDetach(m: Mem, max: number): number {
  const i32 = m.i32;
  const size = i32[RUNQ_SIZE_W]; // plain: under sched.lock
  if (size <= 0) {
    m.batchN = 0;
    return 0;
  }
  let n = ((size / nprocs(m)) >>> 0) + 1;
  if (n > size) n = size;
  if (max > 0 && n > max) n = max;
  if (n > GLOBRUNQ_MAX_BATCH) n = GLOBRUNQ_MAX_BATCH;
  const first = i32[RUNQ_HEAD_W]; // plain: under sched.lock
  let last = first;
  for (let i = 1; i < n; i++) last = gLink(m, last);
  const rest = gLink(m, last);
  i32[RUNQ_HEAD_W] = rest; // plain: under sched.lock
  if (rest === 0) i32[RUNQ_TAIL_W] = 0;
  Atomics.store(i32, RUNQ_SIZE_W, size - n); // pairs with lock-free size loads
  m.f64[SC_GLOB_GET_F] += n; // plain: under sched.lock
  m.batchN = n;
  return first;
}
