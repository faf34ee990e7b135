// Inboxes (docs/DESIGN.md "Inboxes"): how a finished G reaches the M (or the main thread)
// awaiting it.
//
// Each M slot has a Treiber stack of finished G ids (M_INBOX, linked by G_SCHEDLINK).
//   writer  pushInbox (any thread: the finisher of an awaited G, join.ts)   CAS on the head
//   reader  takeInbox (the owning M only: threads/m.ts's waiters, engine-pump.ts's pump)  exchange with 0
// The owner takes everything at once, so the stack has no ABA hazard. After a push the pusher
// sets PARK_INBOX in the owner's park word (park.ts wakeInbox), which is how the owner learns
// of it while asleep.

import { G_SCHEDLINK, M_INBOX } from '../../../assembly/shared/layout.js';
import { mAddr } from '../memory/mblock.js';
import { wakeInbox } from './park.js';
import type { Views } from '../memory/values.js';

/** The i32 index of M m's inbox head, for an owner that looks at it often (inboxPeek). */
export function inboxWord(views: Views, m: number): number {
  return (mAddr(views, m) + M_INBOX) >>> 2;
}

/** Pushes finished G g (entry at address a) to M wm's inbox and wakes it. Any thread. */
export function pushInbox(views: Views, wm: number, g: number, a: number): void {
  const i32 = views.i32;
  const head = inboxWord(views, wm);
  for (;;) {
    const h = Atomics.load(i32, head); // pairs with the owner's exchange in takeInbox
    views.u32[(a + G_SCHEDLINK) >>> 2] = h; // g is nobody else's until the CAS publishes it
    if (Atomics.compareExchange(i32, head, h, g | 0) === h) break; // publish: pairs with the owner's exchange in takeInbox
  }
  wakeInbox(views, wm);
}

/** Is M m's inbox empty now? Any thread (a snapshot). */
export function inboxEmpty(views: Views, m: number): boolean {
  return Atomics.load(views.i32, inboxWord(views, m)) === 0; // pairs with pushInbox's CAS
}

/** Is the inbox at i32 index `word` (inboxWord) non-empty? The owner, between tasks. */
export function inboxPeek(i32: Int32Array, word: number): boolean {
  return Atomics.load(i32, word) !== 0; // pairs with pushInbox's CAS
}

/** Takes every G in M m's inbox; returns the first (linked by G_SCHEDLINK), 0 if none. Owner only. */
export function takeInbox(views: Views, m: number): number {
  return Atomics.exchange(views.i32, inboxWord(views, m), 0) >>> 0; // take all: pairs with pushInbox's CAS
}
