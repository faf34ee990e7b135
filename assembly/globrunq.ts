// The global run queue (docs/DESIGN.md, "Global run queue"; Go's globrunqput,
// globrunqputbatch, and the locked half of globrunqget). globrunqget.ts moves a batch on to a
// P's ring; it lives apart because it calls runqPut, and runqPutSlow calls in here.
//
// A FIFO of Gs linked by G_SCHEDLINK from S_RUNQ_HEAD to S_RUNQ_TAIL, all under sched.lock.
// S_RUNQ_SIZE is also stored atomically so lock-free readers can skip an empty queue. A G taken
// off the queue keeps its stale G_SCHEDLINK (as Go's gQueue does); the tail's link is 0.

import {
  GLOBRUNQ_MAX_BATCH, G_SCHEDLINK, SC_GLOB_GET, SC_GLOB_PUT, S_COUNTERS, S_RUNQ_HEAD, S_RUNQ_SIZE, S_RUNQ_TAIL,
} from './shared/layout';
import { counterAdd, nprocs } from './mem';
import { schedLock, schedUnlock } from './lock';
import { gAddr } from './gtable';

/** Puts g at the tail of the global queue. Any thread. */
export function globrunqPut(g: u32): void {
  globrunqPutBatch(g, g, 1);
}

/**
 * Appends the n Gs head..tail (already linked by G_SCHEDLINK; tail's link is set to 0 here) at
 * the tail of the global queue. n == 0 does nothing. Any thread.
 */
export function globrunqPutBatch(head: u32, tail: u32, n: u32): void {
  if (n == 0) return;
  store<u32>(gAddr(tail), 0, G_SCHEDLINK); // plain: the batch is ours until the lock publishes it
  schedLock();
  let qtail = load<u32>(S_RUNQ_TAIL); // plain: sched.lock held
  if (qtail != 0) {
    store<u32>(gAddr(qtail), head, G_SCHEDLINK); // plain: sched.lock held
  } else {
    store<u32>(S_RUNQ_HEAD, head); // plain: sched.lock held
  }
  store<u32>(S_RUNQ_TAIL, tail); // plain: sched.lock held
  let size = atomic.load<u32>(S_RUNQ_SIZE); // pairs with the size stores under the lock
  atomic.store<u32>(S_RUNQ_SIZE, size + n); // pairs with lock-free size loads in findRunnable/stopM
  counterAdd(S_COUNTERS + SC_GLOB_PUT, <f64>n); // sched.lock held
  schedUnlock();
}

/**
 * Detaches Go's batch from the head of the global queue: n = min(size / nprocs + 1, size),
 * then min(n, max) when max > 0, then min(n, GLOBRUNQ_MAX_BATCH). Returns n (0 when empty);
 * the batch stays linked by G_SCHEDLINK from the old head, which the caller read first.
 * Holds sched.lock.
 */
export function globrunqGetBatch(max: i32): u32 {
  let size = atomic.load<u32>(S_RUNQ_SIZE); // pairs with the size stores under the lock
  if (size == 0) return 0;
  let n = size / <u32>nprocs() + 1;
  if (n > size) n = size;
  if (max > 0 && n > <u32>max) n = <u32>max;
  if (n > <u32>GLOBRUNQ_MAX_BATCH) n = GLOBRUNQ_MAX_BATCH;
  let g = load<u32>(S_RUNQ_HEAD); // plain: sched.lock held
  for (let i: u32 = 0; i < n; i++) {
    g = load<u32>(gAddr(g), G_SCHEDLINK); // plain: sched.lock held
  }
  store<u32>(S_RUNQ_HEAD, g); // plain: sched.lock held
  if (g == 0) store<u32>(S_RUNQ_TAIL, 0); // plain: sched.lock held
  atomic.store<u32>(S_RUNQ_SIZE, size - n); // pairs with lock-free size loads in findRunnable/stopM
  counterAdd(S_COUNTERS + SC_GLOB_GET, <f64>n); // sched.lock held
  return n;
}
