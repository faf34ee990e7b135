// An M's side of awaiting a Task spawned by its tasks (DESIGN.md "How an awaiting task
// resumes"): the promise it gives the awaiting code, and its settling when the result comes,
// from the finisher on this M (deliverLocal) or from another M through this M's inbox (drain).
// The owning M only.
//
// Late results (DESIGN.md "Late results"): the join word names the waiter by its M slot, and a
// slot's thread can die (a crash, a kill) with tasks awaiting children that live on elsewhere.
// Their results still come to the slot, to whichever thread it has by then: the dead one's
// successor, a thread started after that one idled out, or none (the main thread frees them:
// recover.ts dropLateResults). One rule holds for every thread however it came to be: in a slot
// where an earlier thread died with waiters (orphansPossible, which the main thread sets for
// every later thread of the slot), a result with no waiter here is late, and freed; in any other
// slot it is a bug. (A stamp on each awaited G would keep the bug check in such a slot too, but
// the G has no free word for it: G_INDEX names the spawner there, which the task dump reads.)

import { inboxPeek, inboxWord, takeInbox } from '../sleep/inbox.js';
import { awaitDone, type Finisher } from './join.js';
import type { Task } from './task.js';
import { internalError, staleHandleError } from '../base/errors.js';

interface Waiter { resolve(v: unknown): void; reject(e: unknown): void }

export class Waiters {
  private readonly map = new Map<number, Waiter>();
  private readonly f: Finisher;
  /** This thread's epoch in its M slot (1 for the slot's first thread, one more for each
   *  thread started there since); errors name it. */
  readonly epoch: number;
  /** An earlier thread of this slot died with waiters: late results may still arrive, and the
   *  loop looks at the inbox even with no waiter of its own. */
  readonly orphansPossible: boolean;
  /** Waiters registered and not settled yet (the map's size, as a plain field: the loop reads
   *  it before every G, and a Map's size getter there cost several percent of a tiny task). */
  live = 0;
  /** The i32 index of this M's inbox head. */
  private readonly inbox: number;
  /** A core call failed inside a task: the error the task sees (threads/mstate.ts coreFault). */
  private readonly fault: (op: string, e: unknown) => Error;
  private readonly out = { ok: true, value: undefined as unknown };
  /** Late results (for an earlier thread's waiters), freed. */
  orphans = 0;

  constructor(f: Finisher, epoch: number, orphansPossible: boolean, fault: (op: string, e: unknown) => Error) {
    this.f = f;
    this.epoch = epoch;
    this.orphansPossible = orphansPossible;
    this.inbox = inboxWord(f.views, f.mid);
    this.fault = fault;
  }

  /** Is this M's inbox non-empty? The loop asks only when live !== 0 or orphansPossible. */
  inboxWaiting(): boolean {
    return inboxPeek(this.f.views.i32, this.inbox);
  }

  /** Awaiting Task t, spawned by this M's tasks (a G; Tasks run inline settle themselves). */
  await(t: Task<unknown>): Promise<unknown> {
    const f = this.f;
    const a = f.gs.addr(t.g);
    if (f.gs.gen(a) !== t.gen) return Promise.reject(staleHandleError(t.name, t.g, t.gen, f.gs.gen(a)));
    const out = { ok: true, value: undefined as unknown };
    if (awaitDone(f, a, out)) { // done already: taken now
      try { f.core.gfPut(f.p, t.g); } catch (e) { return Promise.reject(this.fault('gfPut', e)); }
      return out.ok ? Promise.resolve(out.value) : Promise.reject(out.value);
    }
    return new Promise((resolve, reject) => { this.map.set(t.g, { resolve, reject }); this.live++; });
  }

  /** G g (at a), done, is awaited on this M: settles its waiter and frees it. */
  deliver(g: number, a: number): void {
    const f = this.f;
    const w = this.map.get(g);
    if (w === undefined) {
      if (!this.orphansPossible) throw internalError(`no waiter for g=${g} on M${f.mid} (epoch ${this.epoch})`);
      // Awaited by a task that died with an earlier thread of this slot: nobody will read it.
      f.gs.dropResult(a);
      f.core.gfPut(f.p, g);
      this.orphans++;
      return;
    }
    this.map.delete(g);
    this.live--;
    const out = this.out;
    f.gs.takeResult(a, out);
    f.core.gfPut(f.p, g);
    if (out.ok) w.resolve(out.value); else w.reject(out.value);
    out.value = undefined;
  }

  /** Settles the waiters whose Gs other Ms finished (pushed on this M's inbox). */
  drain(): void {
    const gs = this.f.gs;
    let g = takeInbox(this.f.views, this.f.mid);
    while (g !== 0) {
      const a = gs.addr(g);
      const next = gs.schedlink(a);
      this.deliver(g, a);
      g = next;
    }
  }

  /** The sleep's form of drain: only when the inbox holds something. */
  drainIfAny(): void {
    if (inboxPeek(this.f.views.i32, this.inbox)) this.drain();
  }
}
