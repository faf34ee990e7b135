// What fork-join needs of its M (tasks/fork.ts ForkHost): ctx.fork, a nested execute for a
// joiner that helps, and running a fork inline for its joiner (docs/DESIGN.md "Fork-join", step
// 4), its common case written out by hand. This M's own thread only.

import {
  G_DEAD, G_RUNNING, G_TOKEN_SHIFT, MR_CURG, MR_FINISHED, PRIO_MASK, G_ARGC, G_ARGS, G_FN, G_PRIO,
  G_SCHEDLINK,
} from '../../../assembly/shared/layout.js';
import { TaskContext, cancelReason } from '../tasks/context.js';
import { isCancelled, KILL_TOKEN0 } from '../tasks/cancel.js';
import { num } from '../memory/gslots.js';
import { JoinRequest, TASK_FAILED, TASK_OK } from '../tasks/task.js';
import { Fork, NO_ERROR, notSyncError, type ForkHost } from '../tasks/fork.js';
import { MExecute } from './execute.js';

export abstract class MFork extends MExecute {
  // ---- ForkHost: what ctx.fork and Fork.join need (bindings/runtime/tasks/fork.ts) ----------------
  forkFrom(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown,
    a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Fork {
    return this.fj.fork(ctx, name, argc, a0, a1, a2, a3, a4, a5, a6, rest);
  }

  executeNested(g: number): void {
    this.execute(g);
  }

  /**
   * Runs fork G g inline for its joiner (DESIGN.md "Fork-join", step 4): G_RUNNING from forkPop,
   * or still G_DEAD when it never reached the deque. Settles f with its result or error; the G
   * stays with this M as a spare (fork.ts putG): nobody else knows it.
   *
   * The common case is written out here, its helpers inlined by hand (V8's inlining budget is
   * spent long before the end of a function this hot): the joiner's own context, a tree not
   * cancelled, number arguments only. Everything else is runInlineAny's.
   */
  runInline(f: Fork, g: number): void {
    const a = this.gs.addr(g);
    let u32 = this.views.u32; // read after gs.addr, which may refresh the views
    const flags = u32[(a + G_PRIO) >>> 2];
    const argc = u32[(a + G_ARGC) >>> 2];
    const ctx = this.running;
    const token = flags >>> G_TOKEN_SHIFT;
    if (ctx === null || ctx.token !== token || ctx.cls !== (flags & PRIO_MASK) || (token !== 0 && (token >= KILL_TOKEN0 || isCancelled(this.views, token))) ||
      !this.gs.numbersOnly(a, argc)) {
      this.runInlineAny(f, g, a);
      return;
    }
    const fn = this.fns[u32[(a + G_FN) >>> 2]];
    if (!f.published) u32[a >>> 2] = G_RUNNING; // see runInlineAny
    // enter(g, a), inlined
    const below = this.curg;
    u32[(a + G_SCHEDLINK) >>> 2] = below;
    this.curg = g;
    u32[(this.mAddr + MR_CURG) >>> 2] = g;
    this.depth++;
    const kbase = this.kids.top;
    const fbase = this.fj.top;
    const f64 = this.views.f64;
    const x = (a + G_ARGS) >>> 3;
    let ok = true;
    let r: unknown;
    try {
      // The arguments straight from the slots into the call (num: small integers stay small).
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
    } catch (e) {
      ok = false;
      r = e;
    }
    if (this.fj.top !== fbase || this.kids.top !== kbase ||
      (ok && r !== null && typeof r === 'object' && (r instanceof JoinRequest || typeof (r as PromiseLike<unknown>).then === 'function'))) {
      ok = this.forkEnd(f, ctx, ok, r, fbase, kbase);
      r = this.endValue;
      this.endValue = undefined;
    }
    // leave(a, below), inlined; the call may have refreshed the views
    u32 = this.views.u32;
    if (below !== 0) u32[(a + G_SCHEDLINK) >>> 2] = 0;
    this.curg = below;
    u32[(this.mAddr + MR_CURG) >>> 2] = below;
    this.depth--;
    if (this.debug) this.core.gSetStatus(g, G_RUNNING, G_DEAD);
    else u32[a >>> 2] = G_DEAD; // G_STATUS: plain, only this thread knows g
    this.fj.putG(g, a);
    this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished; // countFinished, inlined
    f.state = ok ? TASK_OK : TASK_FAILED;
    f.value = r;
  }

  /** The value forkEnd settles with (a field, so forkEnd returns one number). */
  protected endValue: unknown = undefined;

  /**
   * The end of an inline fork run, past its call: its own forks joined (implicit sync), the
   * children it spawned ended, a promise or ctx.join request refused. Returns whether it
   * succeeded, its result or error in endValue.
   */
  protected forkEnd(f: Fork, ctx: TaskContext, ok: boolean, r: unknown, fbase: number, kbase: number): boolean {
    if (this.fj.top !== fbase) {
      const err = this.fj.sync(fbase);
      if (ok && err !== NO_ERROR) { ok = false; r = err; }
    }
    if (this.kids.top !== kbase) this.kids.end(ctx, kbase, false);
    if (ok && r !== null && typeof r === 'object' && (r instanceof JoinRequest || typeof (r as PromiseLike<unknown>).then === 'function')) {
      if (!(r instanceof JoinRequest)) (r as Promise<unknown>).then(undefined, () => {}); // its failure is reported as this one
      ok = false;
      r = notSyncError(f.name, r);
    }
    this.endValue = r;
    return ok;
  }

  /** runInline for any fork: another context than the joiner's, a cancelled tree, arguments
   *  of any kind. */
  protected runInlineAny(f: Fork, g: number, a: number): void {
    const gs = this.gs;
    const fnId = gs.fn(a);
    const flags = gs.flags(a);
    // The joiner's context serves the fork when they share the tree's token and class (always,
    // unless a Fork was smuggled to another task): no context per inline run. The context names
    // no G a user can see; the M's curg says which G runs.
    const joiner = this.running;
    const token = flags >>> G_TOKEN_SHIFT;
    const shared = joiner !== null && joiner.token === token && joiner.cls === (flags & PRIO_MASK);
    const ctx = shared ? joiner : new TaskContext(token < KILL_TOKEN0 ? this : this.guard.host, g, token, flags & PRIO_MASK);
    // One that never reached the deque is still G_DEAD: it runs as G_RUNNING all the same, so
    // crash recovery sees it on the stack (a plain store: nobody else knows the G).
    if (!f.published) this.views.u32[a >>> 2] = G_RUNNING;
    const below = this.enter(g, a);
    let ok = false;
    let r: unknown;
    if (ctx.token !== 0 && isCancelled(this.views, ctx.token)) {
      gs.takeArgs(a, []);
      r = cancelReason();
    } else {
      const fn = this.fns[fnId];
      const argc = gs.argc(a);
      const base = this.kids.top;
      const fbase = this.fj.top;
      const outer = this.running;
      this.running = ctx;
      try {
        if (token >= KILL_TOKEN0) { r = this.guard.call(fn, ctx, this.allArgs(a)); } // marked killable (kill.ts)
        else switch (argc) {
          case 0: r = fn(ctx); break;
          case 1: r = fn(ctx, gs.takeArg(a, 1, 0)); break;
          case 2: { const x0 = gs.takeArg(a, 2, 0); r = fn(ctx, x0, gs.takeArg(a, 2, 1)); break; }
          default: {
            const xs = new Array<unknown>(argc);
            for (let i = 0; i < argc; i++) xs[i] = gs.takeArg(a, argc, i);
            gs.freeSpill(a);
            r = fn(ctx, ...xs);
          }
        }
        ok = true;
      } catch (e) {
        r = e;
      }
      if (this.fj.top !== fbase) {
        const err = this.fj.sync(fbase);
        if (ok && err !== NO_ERROR) { ok = false; r = err; }
      }
      this.running = outer;
      if (this.kids.top !== base) this.kids.end(ctx, base, false);
      if (ok && r !== null && typeof r === 'object' && (r instanceof JoinRequest || typeof (r as PromiseLike<unknown>).then === 'function')) {
        if (!(r instanceof JoinRequest)) (r as Promise<unknown>).then(undefined, () => {}); // its failure is reported as this one
        ok = false;
        r = notSyncError(f.name, r);
      }
    }
    if (!shared && ctx.controller !== null) this.watch.remove(ctx);
    this.leave(a, below);
    gs.freeSpill(a);
    this.setStatus(g, a, G_RUNNING, G_DEAD);
    this.fj.putG(g, a);
    this.countFinished();
    f.state = ok ? TASK_OK : TASK_FAILED;
    f.value = r;
  }

}
