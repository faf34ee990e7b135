// Cancellation without killing threads (DESIGN.md "Cancellation").
//
// A root task spawned with a signal (or a timeout) gets a token: an index into CANCEL_TOKENS flag
// bytes in shared memory. The token rides in its G (the high half of G_PRIO) and every task it
// spawns inherits it, so one byte cancels the whole tree. Aborting sets the byte:
// - a G not yet started never runs: the M that picks it finishes it with an AbortError at once;
// - a running task sees `ctx.cancelled` (a load of the byte) turn true at once, and its
//   `ctx.signal` aborts when its thread next turns its event loop (a 'stealwork:cancel' message);
// - the root Task rejects at once with an AbortError carrying the signal's reason.
// Tokens are recycled first-in first-out, so a token is reused only after 32,767 others of its
// kind. Two kinds: tokens below KILL_TOKEN0 cancel cooperatively; those from KILL_TOKEN0 up are
// the kill-armed ones (`kill: true`, kill.ts), told apart by one compare on the token the G
// carries anyway.

import { CANCEL_TOKENS, S_RT_CANCEL } from '../../../assembly/shared/layout.js';
import type { Views } from '../memory/values.js';
import { reserveError } from '../base/errors.js';

/** The first kill-armed token: tasks spawned with `kill: true` carry one of [KILL_TOKEN0,
 *  CANCEL_TOKENS), the others one of [1, KILL_TOKEN0). */
export const KILL_TOKEN0 = CANCEL_TOKENS >>> 1;

/** Main thread: hands out tokens and sets their flags. */
export class CancelTokens {
  private readonly views: Views;
  private readonly base: number;
  /** Released tokens of each kind (0: cooperative, 1: kill-armed), oldest first. */
  private readonly free: [number[], number[]] = [[], []];
  /** The next never-used token of each kind. */
  private readonly next = [1, KILL_TOKEN0];

  constructor(views: Views, heap: { heapAlloc(n: number): number }) {
    this.views = views;
    const base = heap.heapAlloc(CANCEL_TOKENS);
    if (base === 0) throw reserveError('cancellation', `the token flags (${CANCEL_TOKENS} bytes)`);
    views.refresh();
    views.u8.fill(0, base, base + CANCEL_TOKENS);
    Atomics.store(views.u32, S_RT_CANCEL >>> 2, base); // pairs with isCancelled's load of the base on the Ms (before any cancellable G reaches them)
    this.base = base;
  }

  /** A fresh token (its flag clear), kill-armed or not, or 0 when all of that kind are in use. */
  take(kill: boolean): number {
    const k = kill ? 1 : 0;
    let t: number;
    if (this.next[k] < (kill ? CANCEL_TOKENS : KILL_TOKEN0)) t = this.next[k]++;
    else if (this.free[k].length !== 0) t = this.free[k].shift()!;
    else return 0;
    Atomics.store(this.views.u8, this.base + t, 0); // pairs with isCancelled's load: a reused token starts clear
    return t;
  }

  /** Marks every task carrying token t cancelled. */
  cancel(t: number): void {
    Atomics.store(this.views.u8, this.base + t, 1); // pairs with isCancelled's load on the Ms
  }

  /** Returns a token once its root task has settled. */
  release(t: number): void {
    this.free[t >= KILL_TOKEN0 ? 1 : 0].push(t);
  }
}

/** Any thread: is token t cancelled? */
export function isCancelled(views: Views, t: number): boolean {
  if (t === 0) return false;
  const base = views.u32[S_RT_CANCEL >>> 2];
  if (base + t >= views.end) views.refresh(); // the flags may lie in memory grown since
  return Atomics.load(views.u8, base + t) !== 0; // pairs with CancelTokens.cancel
}


/**
 * One 'abort' listener per AbortSignal, however many root tasks share it: Node warns
 * (MaxListenersExceededWarning) past 10 listeners on one signal, and an application may hand
 * one signal to thousands of spawns. `watch` adds `onAbort` to the signal's set (adding the one
 * listener on first use) and returns the function that takes it out again (removing the listener
 * with the last one). Main thread.
 */
export class SignalWatch {
  private readonly watched = new WeakMap<AbortSignal, { fns: Set<() => void>; fire: () => void }>();

  watch(signal: AbortSignal, onAbort: () => void): () => void {
    let w = this.watched.get(signal);
    if (w === undefined) {
      const fns = new Set<() => void>();
      const fire = (): void => {
        this.watched.delete(signal);
        for (const f of fns) f();
        fns.clear();
      };
      w = { fns, fire };
      this.watched.set(signal, w);
      signal.addEventListener('abort', fire, { once: true });
    }
    const entry = w;
    entry.fns.add(onAbort);
    return () => {
      if (!entry.fns.delete(onAbort) || entry.fns.size !== 0) return;
      if (this.watched.get(signal) === entry) this.watched.delete(signal);
      signal.removeEventListener('abort', entry.fire);
    };
  }
}
