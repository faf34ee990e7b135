// Running one G on an M (Go's execute): mark it the one running (enter/leave), call its task
// function with its arguments, and take what it returns to its end: a value or an error to
// finish (join.ts finishG), a JoinRequest to join, a promise to settle later while the G waits
// pinned to this M (docs/DESIGN.md "The M loop", "Results and joins"). Also the M's side of
// awaiting a Task (TaskOwner) and of a result for a waiter on this M (Finisher).
//
// Who may call what: this M's own thread only; settle runs from a promise continuation, with or
// without a P (mstate.ts).

import {
  G_RUNNING, G_WAITING, G_TOKEN_SHIFT, G_SPAWN_TIME, MR_CURG, GF_CONT, SCHEDLINK_PINNED, PRIO_MASK, PRIO_HIGH,
  GF_SHAPED, GF_FORK, G_INDEX, G_ARGS, G_PRIO, G_SCHEDLINK,
} from '../../../assembly/shared/layout.js';
import { TaskContext, cancelReason } from '../tasks/context.js';
import { isCancelled, KILL_TOKEN0 } from '../tasks/cancel.js';
import { applyShape, type Shape } from '../tasks/joinshape.js';
import { FN_NAMED, num } from '../memory/gslots.js';
import { unknownTaskError } from '../base/errors.js';
import { now } from '../host/platform.js';
import { JoinRequest, Task, TASK_FAILED, TASK_OK, TASK_PENDING, type TaskOwner } from '../tasks/task.js';
import { finishG, joinChildren, type Finisher } from '../tasks/join.js';
import { EV_SETTLE, traceClock } from '../observe/trace.js';
import { NO_ERROR, notSyncError } from '../tasks/fork.js';
import { outcomes } from '../tasks/inline.js';
import { MState } from './mstate.js';

export abstract class MExecute extends MState {
  /** Marks G g (at a) the one running synchronously on this M (MR_CURG); a G started while
   *  another waits below it on the stack (an inline fork, a G a joiner helps with) links that
   *  one in its G_SCHEDLINK, so crash recovery finds every G on the stack. Returns the G below. */
  protected enter(g: number, a: number): number {
    const below = this.curg;
    this.gs.setSchedlink(a, below); // a running G is on no list: the link is free
    this.curg = g;
    this.views.u32[(this.mAddr + MR_CURG) >>> 2] = g;
    this.depth++;
    return below;
  }

  /** Undoes enter: the G below runs again. */
  protected leave(a: number, below: number): void {
    if (below !== 0) this.gs.setSchedlink(a, 0);
    this.curg = below;
    this.views.u32[(this.mAddr + MR_CURG) >>> 2] = below;
    this.depth--;
  }

  /**
   * Runs G g (already G_RUNNING on this M's P), from the loop or nested in a fork join. A high G, and every G while the P's high budget
   * is spent, runs between two clock reads charged to the P (DESIGN.md "High work's budget");
   * a normal G otherwise reads no clock.
   */
  protected execute(g: number): void {
    const a = this.gs.addr(g);
    const flags = this.gs.flags(a);
    if (!this.charging && (flags & PRIO_MASK) !== PRIO_HIGH) { this.run(g, a, flags); return; }
    const t0 = traceClock();
    this.run(g, a, flags);
    this.charging = this.core.chargeTime(this.p, flags & PRIO_MASK, t0, traceClock()) !== 0;
  }

  /** Runs G g at address a with G_PRIO word `flags` (execute's body). */
  protected run(g: number, a: number, flags: number): void {
    const gs = this.gs;
    let fnId = gs.fn(a);
    // A root spawned by name before the main thread knew the ids: resolved here, against this
    // thread's table (DESIGN.md "A synchronous start").
    let unknown: Error | null = null;
    if (fnId === FN_NAMED) {
      const name = gs.takeName(a);
      const id = this.ids.get(name);
      if (id === undefined) unknown = unknownTaskError(name, this.names);
      else gs.setFn(a, fnId = id);
    }
    const fn = this.fns[fnId];
    const argc = gs.argc(a);
    const token = flags >>> G_TOKEN_SHIFT;
    const ctx = new TaskContext(token < KILL_TOKEN0 ? this : this.guard.host, g, token, flags & PRIO_MASK);
    const below = this.enter(g, a);
    if (unknown !== null) {
      // A name the task module does not export: the error a spawn by that name gets on the
      // main thread once it knows the names.
      gs.takeArgs(a, []);
      this.leave(a, below);
      this.finish(g, a, ctx, unknown, true, G_RUNNING);
      return;
    }
    // A stolen fork: its P is where the joiner looks first for work to help with (leapfrogging).
    if ((flags & GF_FORK) !== 0) Atomics.store(this.views.i32, (a + G_INDEX) >>> 2, this.p + 1); // pairs with the joiner's load in waitStolen
    if (ctx.token !== 0 && isCancelled(this.views, ctx.token)) {
      // Cancelled before it started: it never runs (DESIGN.md "Cancellation").
      gs.takeArgs(a, []);
      this.leave(a, below);
      this.finish(g, a, ctx, cancelReason(), true, G_RUNNING);
      return;
    }
    // Numbers only (their tag bytes, one check): no error slot, nothing to free; read straight.
    const nums = gs.numbersOnly(a, argc);
    if ((flags & GF_CONT) !== 0 && !nums && gs.hasErrorArg(a, argc)) {
      // A join child failed: the continuation fails with the first error instead of running.
      const args: unknown[] = [];
      const failed = gs.takeArgs(a, args);
      this.leave(a, below);
      this.finish(g, a, ctx, args[failed], true, G_RUNNING);
      return;
    }
    let r: unknown;
    const base = this.kids.top;
    const fbase = this.fj.top;
    const outer = this.running;
    this.running = ctx;
    // Latency sampling: a sampled G carries the time it became runnable (DESIGN.md "Statistics").
    const spawned = this.views.f64[(a + G_SPAWN_TIME) >>> 3];
    let started = 0;
    if (spawned !== 0 && this.lat !== null) {
      started = traceClock();
      this.lat.queue(started - spawned);
      this.views.f64[(a + G_SPAWN_TIME) >>> 3] = 0; // a later join continuation in this G is not sampled
    }
    try {
      // Arguments are read (and their blocks freed) straight into the call: no array for up
      // to seven numbers (every spawnNew's), or three of any kind. A kill-armed tree's: read
      // first, then the call, marked killable (kill.ts).
      if (token >= KILL_TOKEN0) { r = this.guard.call(fn, ctx, (flags & GF_SHAPED) !== 0 ? this.shapedArgs(a) : this.allArgs(a)); }
      else if (nums) {
        const f64 = this.views.f64;
        const x = (a + G_ARGS) >>> 3;
        switch (argc) {
          case 0: r = fn(ctx); break;
          case 1: r = fn(ctx, num(f64[x])); break;
          case 2: r = fn(ctx, num(f64[x]), num(f64[x + 1])); break;
          case 3: r = fn(ctx, num(f64[x]), num(f64[x + 1]), num(f64[x + 2])); break;
          case 4: r = fn(ctx, num(f64[x]), num(f64[x + 1]), num(f64[x + 2]), num(f64[x + 3])); break;
          case 5: r = fn(ctx, num(f64[x]), num(f64[x + 1]), num(f64[x + 2]), num(f64[x + 3]), num(f64[x + 4])); break;
          case 6: r = fn(ctx, num(f64[x]), num(f64[x + 1]), num(f64[x + 2]), num(f64[x + 3]), num(f64[x + 4]), num(f64[x + 5])); break;
          default: r = fn(ctx, num(f64[x]), num(f64[x + 1]), num(f64[x + 2]), num(f64[x + 3]), num(f64[x + 4]), num(f64[x + 5]), num(f64[x + 6]));
        }
      } else if ((flags & GF_SHAPED) !== 0) r = fn(ctx, ...this.shapedArgs(a));
      else switch (argc) {
        case 0: r = fn(ctx); break;
        case 1: r = fn(ctx, gs.takeArg(a, 1, 0)); break;
        case 2: { const x0 = gs.takeArg(a, 2, 0); r = fn(ctx, x0, gs.takeArg(a, 2, 1)); break; }
        case 3: {
          const x0 = gs.takeArg(a, 3, 0);
          const x1 = gs.takeArg(a, 3, 1);
          r = fn(ctx, x0, x1, gs.takeArg(a, 3, 2));
          break;
        }
        default: {
          const xs = new Array<unknown>(argc);
          for (let i = 0; i < argc; i++) xs[i] = gs.takeArg(a, argc, i);
          gs.freeSpill(a);
          r = fn(ctx, ...xs);
        }
      }
    } catch (e) {
      if (this.fj.top !== fbase) this.fj.sync(fbase); // its forks finish first (implicit sync); its own error wins
      this.running = outer;
      this.leave(a, below);
      if (started !== 0) this.lat!.run(traceClock() - started);
      if (this.kids.top !== base) this.kids.end(ctx, base, false);
      this.finish(g, a, ctx, e, true, G_RUNNING);
      return;
    }
    const r0 = r;
    let isAsync = r !== null && typeof r === 'object' && !(r instanceof JoinRequest) &&
      typeof (r as PromiseLike<unknown>).then === 'function';
    let failed = false;
    if (this.fj.top !== fbase) {
      // Cilk's implicit sync: the forks it did not join are joined now; one that failed fails it.
      const err = this.fj.sync(fbase);
      if (err !== NO_ERROR) { failed = true; r = err; }
    }
    if ((flags & GF_FORK) !== 0 && !failed && (isAsync || r instanceof JoinRequest)) {
      failed = true; // a stolen fork's joiner waits synchronously: it must return its result
      r = notSyncError(this.names[fnId], r);
    }
    if (failed && isAsync) {
      (r0 as Promise<unknown>).then(undefined, () => {}); // the task failed already: its promise's outcome is dropped
      isAsync = false;
    }
    this.running = outer;
    this.leave(a, below);
    if (started !== 0) this.lat!.run(traceClock() - started);
    if (this.kids.top !== base) this.kids.end(ctx, base, isAsync);
    if (failed) {
      this.finish(g, a, ctx, r, true, G_RUNNING);
    } else if (r instanceof JoinRequest) {
      this.join(g, a, ctx, r, G_RUNNING);
    } else if (isAsync) {
      this.setStatus(g, a, G_RUNNING, G_WAITING);
      gs.setSchedlink(a, (SCHEDLINK_PINNED | this.mid) >>> 0); // on no list while it awaits: marks it pinned here
      this.asyncInc();
      ctx.pinned = true;
      if (ctx.awaits !== 0) this.parentWaits(1); // it began waiting for a child in its synchronous part
      this.asyncSinceYield++;
      (r as PromiseLike<unknown>).then(
        (v) => this.settle(g, ctx, v, false),
        (e) => this.settle(g, ctx, e, true));
    } else {
      this.finish(g, a, ctx, r, false, G_RUNNING);
    }
  }

  /** An async task settled: finish it (or start its join). Runs on this M, P or not. */
  protected settle(g: number, ctx: TaskContext, v: unknown, isError: boolean): void {
    if (this.trace !== null) this.trace.emit(traceClock(), EV_SETTLE, g, isError ? 0 : 1, 0);
    if (ctx.pinned) {
      ctx.pinned = false;
      if (ctx.awaits !== 0) this.parentWaits(-1); // settled while still waiting (Promise.race)
    }
    this.asyncDec();
    const a = this.gs.addr(g);
    this.gs.setSchedlink(a, 0); // no longer pinned (a join continuation is not)
    if (!isError && v instanceof JoinRequest) this.join(g, a, ctx, v, G_WAITING);
    else this.finish(g, a, ctx, v, isError, G_WAITING);
  }

  /** g's task is done: its result (or error) goes where join.ts's finishG says (DESIGN.md
   *  "Results and joins"). */
  protected finish(g: number, a: number, ctx: TaskContext, value: unknown, isError: boolean, from: number): void {
    this.taskDone(ctx);
    finishG(this, g, a, from, value, isError, this.names[this.gs.fn(a)] ?? '?');
    this.countFinished();
  }

  /** The task of ctx is done: the children it neither awaited nor joined are detached, its
   *  signal unwatched. */
  taskDone(ctx: TaskContext): void {
    if (ctx.children !== null) this.kids.detach(ctx);
    if (ctx.controller !== null) this.watch.remove(ctx);
  }

  unwatch(ctx: TaskContext): void {
    this.watch.remove(ctx);
  }

  /** Turns g into a join continuation over req.tasks (join.ts joinChildren); one over an
   *  inline child still running waits for it first (joinLater). */
  protected join(g: number, a: number, ctx: TaskContext, req: JoinRequest, from: number): void {
    this.taskDone(ctx);
    if (from === G_RUNNING) this.setStatus(g, a, G_RUNNING, G_WAITING);
    const tasks = req.tasks;
    for (let i = 0; i < tasks.length; i++) {
      if (tasks[i].g === 0 && tasks[i].state === TASK_PENDING) { this.joinLater(g, a, ctx, req); return; }
    }
    joinChildren(this, g, a, req);
  }

  /**
   * A join over an inline child still running (async, DESIGN.md "Spawning at capacity"): g
   * waits pinned to this M, as an awaiting async task does (so a crash of this thread fails it),
   * with every child awaited instead of linked; once all are settled it joins as usual.
   */
  protected joinLater(g: number, a: number, ctx: TaskContext, req: JoinRequest): void {
    this.gs.setSchedlink(a, (SCHEDLINK_PINNED | this.mid) >>> 0);
    this.asyncInc();
    void outcomes(this, req.tasks).then(({ settled }) => this.settle(g, ctx, new JoinRequest(req.fn, settled, req.shape), false));
  }

  /** The arguments of the G at a, read and their blocks freed. */
  protected allArgs(a: number): unknown[] {
    const xs: unknown[] = [];
    this.gs.takeArgs(a, xs);
    return xs;
  }

  /** The arguments of a shaped join continuation (slot 0 its shape, then the results). */
  protected shapedArgs(a: number): unknown[] {
    const xs: unknown[] = [];
    this.gs.takeArgs(a, xs);
    return applyShape(xs[0] as Shape, xs, 1);
  }

  // ---- Finisher: a result for a waiter on this M (join.ts) ----------------------------------
  deliverLocal(g: number, a: number): void {
    this.waiters.deliver(g, a);
  }

  // ---- TaskOwner: awaiting a Task spawned on this M ----------------------------------------
  awaitTask(task: Task<unknown>): Promise<unknown> {
    if (this.guard.token !== 0) return this.guard.around(() => this.awaitTaskNow(task)); // from a kill-armed task's code (kill.ts)
    return this.awaitTaskNow(task);
  }

  protected awaitTaskNow(task: Task<unknown>): Promise<unknown> {
    if (task.g === 0) {
      // Ran inline (at capacity): settled already, or an async child still running here.
      if (task.state === TASK_OK) return Promise.resolve(task.value);
      if (task.state === TASK_FAILED) return Promise.reject(task.value);
      return new Promise((resolve, reject) => { task.res = resolve; task.rej = reject; });
    }
    const parent = task.parent;
    if (parent === null) return this.waiters.await(task);
    // A task waiting for its child does not count toward asyncLimit meanwhile (DESIGN.md "Async
    // tasks: where they start"): its M may start the child, or other work, while it waits.
    if (parent.awaits++ === 0 && parent.pinned) this.parentWaits(1);
    const done = (): void => {
      if (--parent.awaits === 0 && parent.pinned) this.parentWaits(-1);
    };
    return this.waiters.await(task).then((v) => { done(); return v; }, (e: unknown) => { done(); throw e; });
  }
}
