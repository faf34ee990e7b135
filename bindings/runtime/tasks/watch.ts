// The ctx.signal of an M's tasks (DESIGN.md "Cancellation"): a task that asks for its signal
// gets an AbortController, kept here by the task's cancellation token until the task is done;
// when the main thread announces the token cancelled ('stealwork:cancel'), every signal that
// carries it aborts. The owning M only.

import { cancelReason, type TaskContext } from './context.js';

export class CancelWatch {
  private readonly byToken = new Map<number, Set<AbortController>>();

  /** Aborts `controller` when `token` is cancelled. */
  add(token: number, controller: AbortController): void {
    let set = this.byToken.get(token);
    if (set === undefined) { set = new Set(); this.byToken.set(token, set); }
    set.add(controller);
  }

  /** The task of ctx (which asked for its signal: ctx.controller set) is done. */
  remove(ctx: TaskContext): void {
    const set = this.byToken.get(ctx.token);
    if (set !== undefined) { set.delete(ctx.controller!); if (set.size === 0) this.byToken.delete(ctx.token); }
  }

  /** The main thread cancelled `token`: abort the signals of the tasks that carry it. */
  cancel(token: number): void {
    const set = this.byToken.get(token);
    if (set === undefined) return;
    this.byToken.delete(token);
    for (const c of set) c.abort(cancelReason());
  }
}
