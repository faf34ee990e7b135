// The children of a task (ctx.spawn's Tasks) that nobody awaited or joined are detached when
// the task is done: their Gs then free themselves (join.ts detachG). A task that runs
// synchronously keeps its children on its M's stack (no array per task); an async one, or one
// not running now (a continuation spawning), keeps them on its context. The owning M only.

import type { TaskContext } from './context.js';
import { detachG, type Finisher } from './join.js';
import { TASK_FAILED, USE_DETACHED, USE_FREE, type Task } from './task.js';

export class Kids {
  private readonly stack: Array<Task<unknown> | null> = [];
  /** The stack's height: a task's children lie above the height when it started. */
  top = 0;
  private readonly f: Finisher;

  constructor(f: Finisher) {
    this.f = f;
  }

  /** Records t, spawned by the task of ctx; `running` is the context running synchronously now. */
  add(ctx: TaskContext, running: TaskContext | null, t: Task<unknown>): void {
    if (ctx === running) this.stack[this.top++] = t;
    else if (ctx.children === null) ctx.children = [t];
    else ctx.children.push(t);
  }

  /** The task of ctx returned: its children above `base` move to its context (`keep`: it is
   *  async and still running), or the ones neither awaited nor joined are detached. */
  end(ctx: TaskContext, base: number, keep: boolean): void {
    const stack = this.stack;
    for (let i = base; i < this.top; i++) {
      const t = stack[i]!;
      stack[i] = null;
      if (keep) { if (ctx.children === null) ctx.children = [t]; else ctx.children.push(t); }
      else if (t.use === USE_FREE) this.detachOne(t);
    }
    this.top = base;
  }

  /** The task of ctx is done (settled, or became a join continuation): detaches the children
   *  on its context that it neither awaited nor joined. */
  detach(ctx: TaskContext): void {
    const kids = ctx.children!;
    ctx.children = null;
    for (let i = 0; i < kids.length; i++) if (kids[i].use === USE_FREE) this.detachOne(kids[i]);
  }

  private detachOne(t: Task<unknown>): void {
    t.use = USE_DETACHED;
    if (t.g === 0 && t.state === TASK_FAILED) t.owner.unobservedTask?.(t, t.value); // ran inline and failed: nobody will see it
    detachG(this.f, t);
  }
}
