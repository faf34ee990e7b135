// Go's globrunqget (docs/DESIGN.md, "Global run queue"): a batch from the global queue, its
// first G returned, the rest put on the taking P's ring. Apart from globrunq.ts because it calls
// runqPut, and runq.ts's runqPutSlow calls globrunqPutBatch: each file imports one way only.

import { G_SCHEDLINK, S_RUNQ_HEAD } from './shared/layout';
import { schedLock, schedUnlock } from './lock';
import { gAddr } from './gtable';
import { globrunqGetBatch } from './globrunq';
import { runqPut } from './runq';

/**
 * Puts the n - 1 Gs linked after `first` on P p's ring, in queue order (a detached batch from
 * globrunqGetBatch). Owner P only, without sched.lock (a full ring spills to the global queue).
 */
export function runqPutBatchTail(p: i32, first: u32, n: u32): void {
  let g = first;
  let next = n > 1 ? load<u32>(gAddr(first), G_SCHEDLINK) : 0; // plain: the detached batch is ours
  for (let i: u32 = 1; i < n; i++) {
    g = next;
    // Read the link before the put: once queued, g may be stolen and relinked, or spilled.
    next = i + 1 < n ? load<u32>(gAddr(g), G_SCHEDLINK) : 0; // plain: the detached batch is ours
    runqPut(p, g, 0);
  }
}

/**
 * Takes Go's batch from the global queue under sched.lock (see globrunqGetBatch), returns its
 * first G and puts the others on P p's ring after releasing the lock; 0 when the queue is
 * empty. Owner P only.
 */
export function globrunqGet(p: i32, max: i32): u32 {
  schedLock();
  let first = load<u32>(S_RUNQ_HEAD); // plain: sched.lock held
  let n = globrunqGetBatch(max);
  schedUnlock();
  if (n == 0) return 0;
  runqPutBatchTail(p, first, n);
  return first;
}
