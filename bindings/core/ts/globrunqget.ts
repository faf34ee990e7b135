// Go's globrunqget (docs/DESIGN.md, "Global run queue"): a batch from the global queue, its
// first G returned, the rest put on the taking P's ring. Apart from globrunq.ts because it calls
// runqPut, and runq.ts's runqPutSlow calls globrunqPutBatch: each file imports one way only.

import { gLink } from './gtable.js';
import { schedLock, schedUnlock } from './lock.js';
import type { Mem } from './mem.js';
import { globrunqDetach } from './globrunq.js';
import { runqPut } from './runq.js';

/** Puts the n - 1 Gs after `first` of a detached batch on P p's ring, in queue order.
 *  Owner P only, without sched.lock (a full ring spills to the global queue, which locks). */
export function globrunqRequeue(m: Mem, p: number, first: number, n: number): void {
  let g = gLink(m, first);
  for (let i = 1; i < n; i++) {
    const next = i + 1 < n ? gLink(m, g) : 0; // read before runqPut, whose spill may relink g
    runqPut(m, p, g, 0);
    g = next;
  }
}

/** Go's globrunqget: takes a batch from the global queue, returns its first G and queues the
 *  rest on P p; 0 when the queue is empty. Owner P only; takes sched.lock. */
export function globrunqGet(m: Mem, p: number, max: number): number {
  schedLock(m);
  const g = globrunqDetach(m, max);
  const n = m.batchN;
  schedUnlock(m);
  if (n > 1) globrunqRequeue(m, p, g, n);
  return g;
}
