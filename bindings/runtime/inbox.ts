// Inboxes: how a finished G reaches the M (or the main thread) awaiting it.
//
// Each M slot has a Treiber stack of finished G ids (M_INBOX, linked by G_SCHEDLINK). Any thread
// pushes; only the owning M takes, and it takes everything at once (an exchange with 0), so the
// stack has no ABA hazard. After a push the pusher ORs PARK_INBOX into the owner's park word and
// notifies it if the bit was clear; the owner swaps the park word to 0 before it drains, so a
// push that finds the bit set is covered by a drain still to come (DESIGN.md "Inboxes").

import { G_SCHEDLINK, H_MBASE, HEADER, M_INBOX, M_PARK, M_SIZE, PARK_INBOX } from '../../assembly/shared/layout.js';
import type { Views } from './values.js';

/** Pushes finished G g (entry at address a) to M wm's inbox and wakes it. Any thread. */
export function pushInbox(views: Views, wm: number, g: number, a: number): void {
  const i32 = views.i32;
  const base = views.u32[(HEADER + H_MBASE) >>> 2] + wm * M_SIZE;
  const head = (base + M_INBOX) >>> 2;
  for (;;) {
    const h = Atomics.load(i32, head);
    views.u32[(a + G_SCHEDLINK) >>> 2] = h;
    if (Atomics.compareExchange(i32, head, h, g | 0) === h) break; // publish: pairs with the owner's exchange in drain
  }
  const park = (base + M_PARK) >>> 2;
  const old = Atomics.or(i32, park, PARK_INBOX); // pairs with the owner's exchange(park, 0)
  if ((old & PARK_INBOX) === 0) Atomics.notify(i32, park, 1);
}

/** Takes every G in M m's inbox; returns the first (linked by G_SCHEDLINK), 0 if none. Owner only. */
export function takeInbox(views: Views, m: number): number {
  const base = views.u32[(HEADER + H_MBASE) >>> 2] + m * M_SIZE;
  return Atomics.exchange(views.i32, (base + M_INBOX) >>> 2, 0) >>> 0; // pairs with pushInbox's CAS
}
