// Stopping a runaway task by force: `sched.with({ timeout | signal, kill: true })` (DESIGN.md
// "Killing a task"). Cancellation stays what it is for everything that can hear it; what kill
// adds is that a thread running the cancelled tree's own code is terminated, and crash recovery
// (recover.ts) gives its slot and P to a new thread.
//
// A thread may be terminated only while it runs the user's code, never inside the runtime or a
// core call: a thread stopped holding sched.lock, or half way through a ring put, leaves the
// shared state broken (DESIGN.md "Crashed workers", the limits). So each M publishes in its word
// MR_KILLABLE the kill-armed tree whose own code it runs right now (the tree's cancellation
// token), and 0 while it runs the runtime's. The main thread claims a thread only by a CAS from
// the token to token | KILL_CLAIMED; the M takes the mark back with a CAS to 0 whenever it leaves
// the tree's code (the task returns or throws, or calls into the runtime: a ctx call, a Fork's
// join, a Task's then). Exactly one of the two CASes wins: either the kill claimed the thread
// while it ran the tree's code, and the M then never runs the runtime's code again (it halts
// until it is terminated), or the M left that code first, and the kill terminates nothing.
// A G id would not do as the mark: ids are recycled by other threads at any time, while a token
// is recycled only by the main thread, after the tree's root is back (cancel.ts).
//
// Two halves: KillGuard, one per M, on its own thread only (the marks); Killer, on the main
// thread (the claims).

import { KILL_CLAIMED, MR_KILLABLE } from '../../../assembly/shared/layout.js';
import { isCancelled } from './cancel.js';
import { cancelReason, type ContextHost, type TaskContext } from './context.js';
import type { Fork, ForkOwner } from './fork-handle.js';
import type { TaskFn } from './taskfn.js';
import { mAddr } from '../memory/mblock.js';
import type { Views } from '../memory/values.js';

/**
 * An M's marks in MR_KILLABLE (the protocol's M side: DESIGN.md "Killing a task", steps 1, 2
 * and 5). The M's own thread only. Only the code of kill-armed trees (tokens from KILL_TOKEN0
 * up) is run through it; everything else pays nothing.
 */
export class KillGuard {
  /** The kill-armed tree whose own code this thread runs now (its token); 0 while it runs the
   *  runtime's code, or code of a tree not armed. Mirrors the word, for the runtime's checks. */
  token = 0;
  private readonly views: Views;
  /** The i32 index of this M's MR_KILLABLE. */
  private readonly w: number;
  /** Tells the main thread this thread claimed itself for tree `token`'s kill (step 5). */
  private readonly claimed: (token: number) => void;
  /** What the contexts of kill-armed tasks use as their host: the M's, with every call into the
   *  runtime made through `around`. */
  readonly host: ContextHost;
  /** The owner given to Forks made by kill-armed tasks: their join goes through `around`. */
  private forkOwner: ForkOwner | null = null;

  constructor(views: Views, mid: number, m: ContextHost, claimed: (token: number) => void) {
    this.views = views;
    this.w = (mAddr(views, mid) + MR_KILLABLE) >>> 2;
    this.claimed = claimed;
    this.host = this.guarded(m);
  }

  /**
   * Calls fn(ctx, ...args), code of the kill-armed tree `ctx.token`, with this thread marked
   * killable while it runs (steps 1 and 2). Throws the cancellation error instead when the tree
   * was cancelled before the mark was up (the caller fails the task with it, as a task cancelled
   * before it started). Called from the runtime's code only (`token` 0).
   */
  call(fn: TaskFn, ctx: TaskContext, args: unknown[]): unknown {
    const t = ctx.token;
    this.enter(t);
    try {
      return fn(ctx, ...args);
    } finally {
      this.leave(t);
    }
  }

  /**
   * Runs f, the runtime's code called from the tree's code, with the mark down; back in the
   * tree's code the mark goes up again, or the thread halts when the tree was cancelled
   * meanwhile (step 5). Outside a kill-armed tree's code it is just f().
   */
  around<T>(f: () => T): T {
    const t = this.token;
    if (t === 0) return f();
    this.leave(t);
    try {
      return f();
    } finally {
      this.resume(t);
    }
  }

  /** Marks the thread running tree t's code, before the task's function is called. */
  private enter(t: number): void {
    const i32 = this.views.i32;
    Atomics.store(i32, this.w, t); // pairs with the main thread's load and CAS in Killer.claim
    this.token = t;
    if (!isCancelled(this.views, t)) return; // the flag's store comes before Killer.claim's load: one of the two sees the other
    // Cancelled while the mark went up: take it back and do not run, unless a kill took it first.
    if (Atomics.compareExchange(i32, this.w, t, 0) === t) { // pairs with Killer.claim's CAS
      this.token = 0;
      throw cancelReason();
    }
    this.halt();
  }

  /** Back in tree t's code after a call into the runtime. */
  private resume(t: number): void {
    const i32 = this.views.i32;
    Atomics.store(i32, this.w, t); // pairs with Killer.claim's load and CAS
    this.token = t;
    if (!isCancelled(this.views, t)) return; // as in enter
    // The tree was cancelled while this thread ran the runtime's code for it, so no claim could
    // reach it then; its code must not go on. The thread claims itself and asks to be ended.
    if (Atomics.compareExchange(i32, this.w, t, t | KILL_CLAIMED) === t) this.claimed(t); // pairs with Killer.claim's CAS
    this.halt();
  }

  /** Leaves tree t's code: for the runtime's, or for good. Halts if a kill claimed the thread. */
  private leave(t: number): void {
    this.token = 0;
    if (Atomics.compareExchange(this.views.i32, this.w, t, 0) !== t) this.halt(); // pairs with Killer.claim's CAS
  }

  /** Waits to be terminated: a claimed thread runs none of the runtime's code again (step 4).
   *  Nothing notifies the word; the main thread rewrites it only once the thread is gone.
   *  (Protected: the protocol's one-thread test replaces it with a throw.) */
  protected halt(): never {
    for (;;) Atomics.wait(this.views.i32, this.w, Atomics.load(this.views.i32, this.w));
  }

  /** The M's ContextHost with each call into the runtime made through `around`. */
  private guarded(m: ContextHost): ContextHost {
    return {
      mid: m.mid,
      spawnFrom: (ctx, name, cls, argc, a0, a1, a2, a3, a4, a5, a6, rest) => this.around(() => m.spawnFrom(ctx, name, cls, argc, a0, a1, a2, a3, a4, a5, a6, rest)),
      joinFrom: (ctx, name, args) => this.around(() => m.joinFrom(ctx, name, args)),
      // A data-parallel call is the runtime's code as a whole (its job's encoding, the shared
      // header): a kill lands when it returns (DESIGN.md "Data-parallel calls").
      parFrom: (ctx, what, kind, name, source, combine, options) => this.around(() => m.parFrom(ctx, what, kind, name, source, combine, options)),
      forkFrom: (ctx, name, argc, a0, a1, a2, a3, a4, a5, a6, rest) => {
        const f = this.around(() => m.forkFrom(ctx, name, argc, a0, a1, a2, a3, a4, a5, a6, rest));
        this.forkOwner ??= this.guardedOwner(f.owner);
        (f as { owner: ForkOwner }).owner = this.forkOwner;
        return f;
      },
      isCancelled: (t) => m.isCancelled(t), // reads only
      watchCancel: (t, c) => m.watchCancel(t, c), // this thread's own list
    };
  }

  private guardedOwner(inner: ForkOwner): ForkOwner {
    return { join: (f: Fork) => this.around(() => inner.join(f)) };
  }
}

/** What a kill stops: the task's name and the error its Task rejected with. */
export interface KillCause { task: string; err: Error }

/**
 * The main thread's side: claims the threads running a cancelled kill-armed tree's code (steps
 * 3 and 4) and remembers why, for threads that claim themselves later (step 5).
 */
export class Killer {
  private readonly views: Views;
  private readonly nms: number;
  /** Each cancelled kill-armed token, until its root is back and the token released. */
  private readonly fired = new Map<number, KillCause>();

  constructor(views: Views, nms: number) {
    this.views = views;
    this.nms = nms;
  }

  private word(m: number): number {
    return (mAddr(this.views, m) + MR_KILLABLE) >>> 2;
  }

  /**
   * Tree `token` was just cancelled (its flag stored first): claims every worker M running its
   * code now and returns their slots, for the caller to terminate.
   */
  claim(token: number, why: KillCause): number[] {
    this.fired.set(token, why);
    const i32 = this.views.i32;
    const out: number[] = [];
    for (let m = 1; m < this.nms; m++) {
      const w = this.word(m);
      if (Atomics.load(i32, w) === token && // pairs with the M's store in enter/resume
        Atomics.compareExchange(i32, w, token, token | KILL_CLAIMED) === token) out.push(m); // pairs with the M's CAS in leave, enter and resume
    }
    return out;
  }

  /** Does M slot m's word say it claimed itself for tree `token`'s kill (step 5)? */
  halted(m: number, token: number): boolean {
    return Atomics.load(this.views.i32, this.word(m)) === (token | KILL_CLAIMED); // pairs with the M's CAS in resume
  }

  /** Why tree `token` was killed; undefined once its root is back (a detached child of it that
   *  claims itself later has no record). */
  cause(token: number): KillCause | undefined {
    return this.fired.get(token);
  }

  /** Token released (its root is back): no kill will name it again. */
  forget(token: number): void {
    this.fired.delete(token);
  }

  /** Slot m's thread is gone: its successor starts unmarked. */
  reset(m: number): void {
    Atomics.store(this.views.i32, this.word(m), 0); // the old thread is gone; the new one starts after this
  }
}
