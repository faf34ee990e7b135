// The M: a worker thread's loop. It holds a P, asks the core for the next G (findRunnable),
// runs it, and parks when the core finds nothing anywhere (stopM). Tasks that await keep their
// G in G_WAITING, pinned to this M, while the M runs other Gs (docs/DESIGN.md, "The M loop").
//
// Who may call what: every method runs on this M's own thread. Methods reached from promise
// continuations (settle, the inbox) may run while the M holds no P (this.p < 0); they then use
// the core's P-less forms (global queue, global free list).

import {
  G_DEAD, G_RUNNING, G_WAITING, H_MBASE, HEADER, MR_TRACE_BUF, G_PRIO, G_TOKEN_SHIFT, G_SPAWN_TIME,
  MR_HIST, MR_IDLE_MS, MR_T0, MR_YIELDS, MR_STATE, MS_EXITED, MS_SCHEDULE, MS_SHARES, MS_SLEEP, MS_SLEEP_ASYNC, MS_YIELD,
  JOIN_DONE, M_INBOX, M_PARK, M_SIZE, MR_ASYNC,
  MR_CURG, MR_FINISHED, MR_SPAWNED, PARK_MSG, PARK_P, GF_CONT, S_RT_STOP, S_RT_SHARES, S_RT_GIVEBACK,
  SCHEDLINK_PINNED, PARENT_SPAWNER, G_PARENT, PRIO_MASK, PRIO_HIGH, GF_SHAPED, GF_FORK, G_INDEX, JOIN_FORK,
} from '../../assembly/shared/layout.js';
import { encodeValue, decodeValue, encodeError, decodeError } from '../codec/index.js';
import { Stop, type Core } from '../core/core.js';
import { TaskContext, cancelReason, type ContextHost } from './context.js';
import { isCancelled } from './cancel.js';
import { LATENCY_SAMPLE, LatencyRecorder } from './latency.js';
import {
  unknownTaskError, asMemoryError, reviveError, coreFaultError, internalError, joinForeignTaskError, joinUsedTaskError, staleHandleError,
} from './errors.js';
import { applyShape, shapeOf, type Shape } from './joinshape.js';
import { GSlots } from './gslots.js';
import { macrotask, now, pendingCallbacks } from './platform.js';
import {
  JoinRequest, Task, TASK_FAILED, TASK_OK, TASK_PENDING, USE_DETACHED, USE_FREE, USE_JOINED, type TaskOwner,
} from './task.js';
import { pushInbox } from './inbox.js';
import { JOIN_TO_NOBODY, JOIN_TO_FORK, JOIN_TO_PARENT, joinAwait, joinDetach, joinFinish, joinLinked } from './joinword.js';
import { EV_PARK, EV_SETTLE, EV_UNPARK, TraceWriter, traceClock } from './trace.js';
import type { Views } from './values.js';
import { Fork, ForkJoin, NO_ERROR, forkWake, notSyncError, type ForkHost } from './fork.js';

type TaskFn = (ctx: TaskContext, ...args: unknown[]) => unknown;

/** What the M loop returns to its async driver. */
const enum Next { Sleep, Microtasks, Macrotask }

/** Async tasks started between two microtask checkpoints (so their continuations run). */
const ASYNC_BATCH = 16;
/** With async tasks pending, let timers and I/O run at least this often (ms). */
const MACRO_INTERVAL_MS = 2;

interface Waiter { resolve(v: unknown): void; reject(e: unknown): void }

export interface MConfig {
  mid: number;
  names: string[];
  fns: TaskFn[];
  spinLimit: number;
  yieldLimit: number;
  maxTasks: number;
  /** The memory's bound (options.maxMemoryMB), for the error that names it. */
  maxMemoryMB: number;
  /** Check every G state transition in the core (FLAG_DEBUG). */
  debug: boolean;
  /** This M slot's previous thread crashed (DESIGN.md "Crashed workers"): carry its counters
   *  on, resume with the P it held (`resumeP`, -1 none) instead of joining the idle list, and
   *  drop results that arrive for the dead thread's waiters. */
  restart?: { resumeP: number };
}

/** AsyncFunction's constructor: fork refuses async task functions up front. */
const AsyncFunction = (async () => {}).constructor;

export class M implements TaskOwner, ContextHost, ForkHost {
  readonly core: Core;
  readonly views: Views;
  readonly gs: GSlots;
  readonly mid: number;
  /** The P this M holds, or -1. */
  p = -1;
  private readonly fns: TaskFn[];
  private readonly names: string[];
  private readonly ids = new Map<string, number>();
  private readonly waiters = new Map<number, Waiter>();
  private readonly cfg: MConfig;
  private readonly debug: boolean;
  private readonly mAddr: number;
  private readonly parkIdx: number;
  private readonly inboxIdx: number;
  private asyncPending = 0;
  /** Tasks ran since this M's event loop last turned: callbacks they left may be pending
   *  (DESIGN.md "Stranded callbacks"). */
  private dirty = false;
  /** The first failure of a core call made inside a task (coreFault); fatal for this M. */
  private fault: Error | null = null;
  private asyncSinceYield = 0;
  private lastYield = 0;
  private spawned = 0;
  private finished = 0;
  private stopping = false;
  /** Set when this thread replaced a crashed one in the same M slot. */
  private restarted = false;
  /** Results that came back for the crashed thread's waiters, dropped. */
  orphans = 0;
  /** Children spawned by the task running synchronously now (see endKids), and its context. */
  private readonly kids: Array<Task<unknown> | null> = [];
  private kidsTop = 0;
  running: TaskContext | null = null;
  /** The G whose task runs synchronously now (the innermost: MR_CURG), 0 none. */
  curg = 0;
  /** Task calls nested on this thread's stack: the loop's, inline forks, Gs a joiner helps with. */
  depth = 0;
  /** This M's forks (DESIGN.md "Fork-join"). */
  private readonly fj: ForkJoin;
  private readonly asyncFns: boolean[];
  /** The event trace of this M, when tracing is on. */
  private readonly trace: TraceWriter | null;
  /** Latency histograms of this M, and the spawn counter that picks the sampled Gs. */
  private readonly lat: LatencyRecorder | null;
  private sampled = 0;
  /** Signals of this M's tasks, by cancellation token (only those a task asked for). */
  private readonly watched = new Map<number, Set<AbortController>>();
  /** Shared buffers received so far; set by the worker's message handler. */
  sharesSeen = 0;
  /** Time every G and charge it (chargeTime said the P's high budget is spent). Starts true:
   *  a thread that replaced a crashed one resumes a P whose state it has not seen. */
  private charging = true;
  private readonly out = { ok: true, value: undefined as unknown };

  constructor(core: Core, gs: GSlots, cfg: MConfig) {
    this.core = core;
    this.gs = gs;
    this.views = gs.views;
    this.mid = cfg.mid;
    this.cfg = cfg;
    this.debug = cfg.debug;
    this.fns = cfg.fns;
    this.names = cfg.names;
    cfg.names.forEach((n, i) => this.ids.set(n, i));
    this.asyncFns = cfg.fns.map((f) => f instanceof AsyncFunction);
    this.fj = new ForkJoin(this);
    this.mAddr = this.views.u32[(HEADER + H_MBASE) >>> 2] + cfg.mid * M_SIZE;
    this.parkIdx = (this.mAddr + M_PARK) >>> 2;
    this.inboxIdx = (this.mAddr + M_INBOX) >>> 2;
    this.trace = this.views.u32[(this.mAddr + MR_TRACE_BUF) >>> 2] !== 0 ? new TraceWriter(this.views, this.mAddr) : null;
    const hist = this.views.u32[(this.mAddr + MR_HIST) >>> 2];
    this.lat = hist !== 0 ? new LatencyRecorder(this.views, hist) : null;
    this.views.f64[(this.mAddr + MR_T0) >>> 3] = traceClock();
    if (cfg.restart !== undefined) {
      this.restarted = true;
      this.spawned = this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3];
      this.finished = this.views.f64[(this.mAddr + MR_FINISHED) >>> 3];
      this.p = cfg.restart.resumeP;
    }
  }

  /** Records what this M does now (MS_*), for stats. */
  private state(s: number): void {
    this.views.u32[(this.mAddr + MR_STATE) >>> 2] = s; // plain: stats reads it, and a stale value only misreports
  }

  /** Runs until the scheduler closes. Starts without a P, on the idle list. */
  async loop(): Promise<void> {
    this.lastYield = now();
    for (;;) {
      if (this.fault !== null) throw this.fault; // a core call inside an async task's continuation failed (coreFault)
      if (this.p < 0) {
        const woken = this.sleep();
        if (woken !== null) await woken;
        if (this.stopping) { this.state(MS_EXITED); return; }
        continue;
      }
      this.state(MS_SCHEDULE);
      const next = this.schedule();
      if (next !== Next.Sleep) { this.views.f64[(this.mAddr + MR_YIELDS) >>> 3]++; this.state(MS_YIELD); }
      if (next === Next.Microtasks) await null;
      else if (next === Next.Macrotask) {
        await macrotask();
        await this.receiveShares();
        this.lastYield = now();
      }
    }
  }

  /**
   * The synchronous heart: find a G, run it, repeat, while this M holds a P. Returns when the
   * core found no work anywhere (the P is released: Sleep), or when async tasks need the event
   * loop (DESIGN.md "Giving the event loop its turn").
   */
  private schedule(): Next {
    const core = this.core;
    const m = this.mid;
    let n = 0;
    for (;;) {
      if ((this.waiters.size !== 0 || this.restarted) && Atomics.load(this.views.i32, this.inboxIdx) !== 0) this.drainInbox();
      const tr = this.trace;
      let g = core.findRunnable(this.p, m);
      if (tr !== null) tr.tick(); // the core wrote this step's events (a start, a steal): date them
      if (g === 0) {
        const s = core.stopM(this.p, m);
        if (s === Stop.Sleep) {
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
          this.p = -1;
          if (n !== 0) this.dirty = true;
          return Next.Sleep;
        }
        if (s === Stop.Retry) { this.p = core.acquireP(m); continue; }
        g = s;
      }
      this.execute(g);
      if (this.fault !== null) throw this.fault; // a core call inside the task failed: fatal (coreFault)
      if (this.fj.spareN !== 0) this.fj.flush(); // the Gs its forks left for the next forks go back between tasks
      if ((++n & 63) === 0) {
        const i32 = this.views.i32;
        if (Atomics.load(i32, S_RT_SHARES >>> 2) !== this.sharesSeen) return Next.Macrotask;
        // The monitor wants a lent spare back and no P goes idle: whoever looks first gives its
        // own P back (DESIGN.md "sysmon and handoff").
        if (Atomics.load(i32, S_RT_GIVEBACK >>> 2) !== 0 && Atomics.compareExchange(i32, S_RT_GIVEBACK >>> 2, 1, 0) === 1) { // pairs with the monitor's stores
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
          core.pGiveBack(this.p, m);
          this.p = -1;
          return Next.Sleep;
        }
      }
      if (this.asyncPending !== 0) {
        if (this.asyncSinceYield >= ASYNC_BATCH) { this.asyncSinceYield = 0; return Next.Microtasks; }
        if ((n & 63) === 0 && now() - this.lastYield > MACRO_INTERVAL_MS) return Next.Macrotask;
      }
    }
  }

  /**
   * Sleeps on M_PARK until a P is handed over (PARK_P), finished Gs arrive for this M's
   * waiters (PARK_INBOX), or the scheduler stops. The ladder: poll, short timed waits, then
   * Atomics.wait; with async tasks pending, Atomics.waitAsync so their I/O still completes.
   * Returns null when it slept and woke synchronously, the common case (nothing async on this
   * M), so a woken M goes straight back to schedule() without a turn through promises (DESIGN.md
   * "The M loop", Sleeping). Otherwise returns a promise of the rest of the sleep.
   */
  private sleep(): Promise<void> | null {
    const t0 = now();
    if (this.sleepSync()) {
      this.views.f64[(this.mAddr + MR_IDLE_MS) >>> 3] += now() - t0; // owner only
      return null;
    }
    return this.sleepAsync().finally(() => {
      this.views.f64[(this.mAddr + MR_IDLE_MS) >>> 3] += now() - t0;
    });
  }

  /**
   * The ladder without the event loop: true when woken (holding a P, or stopping); false as soon
   * as the sleep needs the event loop (async tasks or waiters pending on this M, or a shared
   * buffer to receive), with the park word's bits left for sleepAsync.
   */
  private sleepSync(): boolean {
    const i32 = this.views.i32;
    const idx = this.parkIdx;
    let rung = 0;
    for (;;) {
      if (this.asyncPending !== 0 || this.waiters.size !== 0) return false;
      const x = Atomics.exchange(i32, idx, 0); // pairs with wakep's store and pushInbox's or
      if ((x & PARK_MSG) !== 0) {
        Atomics.or(i32, idx, x); // sleepAsync takes them (no notify needed: it looks first)
        return false;
      }
      if (this.woke(x)) return true;
      // Before a deep sleep, callbacks the tasks left (a timer, a promise reaction) get the event
      // loop: sleepAsync takes a turn first and does not block while they are pending.
      if (rung >= this.cfg.spinLimit + this.cfg.yieldLimit && (this.dirty || pendingCallbacks())) {
        return false; // woke(x) acted on the bits seen already
      }
      this.rung(i32, idx, rung++);
    }
  }

  /** Rung k of the park ladder: the first spinLimit are polls, the next yieldLimit waits of
   *  1 us (a way of yielding the CPU, not a deadline), then an unbounded Atomics.wait: every
   *  writer of the park word notifies after its write and this M looks at the word before each
   *  wait, so no wake-up is lost (DESIGN.md "Why no wake-up is lost"). */
  private rung(i32: Int32Array, idx: number, k: number): void {
    this.state(MS_SLEEP);
    if (k < this.cfg.spinLimit) return;
    Atomics.wait(i32, idx, 0, k < this.cfg.spinLimit + this.cfg.yieldLimit ? 0.001 : Infinity); // pairs with the notify of every park-word writer
  }

  /** The park word's bits x (PARK_MSG aside) after a sleep: true when the sleep is over. */
  private woke(x: number): boolean {
    if (Atomics.load(this.views.i32, S_RT_STOP >>> 2) !== 0) { this.stopping = true; return true; }
    if (Atomics.load(this.views.i32, this.inboxIdx) !== 0) this.drainInbox();
    if ((x & PARK_P) === 0) return false;
    this.p = this.core.acquireP(this.mid);
    this.lastYield = now();
    if (this.trace !== null) this.trace.emit(traceClock(), EV_UNPARK, 0, this.p, 0);
    return true;
  }

  /** sleepSync's ladder for when the event loop must turn: shared buffers to receive, or async
   *  tasks and waiters pending (Atomics.waitAsync). */
  private async sleepAsync(): Promise<void> {
    const i32 = this.views.i32;
    const idx = this.parkIdx;
    let rung = 0;
    for (;;) {
      const x = Atomics.exchange(i32, idx, 0); // pairs with wakep's store and pushInbox's or
      if ((x & PARK_MSG) !== 0) {
        // Stop first, as in woke(); then the buffers, before woke() drains the inbox (a result
        // may hold one of them) and takes the P.
        if (Atomics.load(i32, S_RT_STOP >>> 2) !== 0) { this.stopping = true; return; }
        await this.receiveShares();
      }
      if (this.woke(x)) return;
      if (this.dirty) {
        // A turn of the event loop for what the tasks left behind: microtasks, immediates and
        // due timers run now, not inside a later unrelated task.
        this.dirty = false;
        this.state(MS_YIELD);
        await macrotask();
        continue;
      }
      if (this.asyncPending !== 0 || this.waiters.size !== 0 || pendingCallbacks()) {
        this.state(MS_SLEEP_ASYNC);
        const w = Atomics.waitAsync(i32, idx, 0); // unbounded: pairs with the notify of every park-word writer; settles run meanwhile
        if (w.async) await w.value;
        continue;
      }
      this.rung(i32, idx, rung++);
    }
  }

  /** Takes turns of the event loop until the message handler has received every shared
   *  buffer announced in S_RT_SHARES (DESIGN.md "Shared buffers"). */
  private async receiveShares(): Promise<void> {
    while (Atomics.load(this.views.i32, S_RT_SHARES >>> 2) > this.sharesSeen) {
      this.state(MS_SHARES);
      await new Promise((r) => setTimeout(r, 0));
    }
  }

  /** Marks G g (at a) the one running synchronously on this M (MR_CURG); a G started while
   *  another waits below it on the stack (an inline fork, a G a joiner helps with) links that
   *  one in its G_SCHEDLINK, so crash recovery finds every G on the stack. Returns the G below. */
  private enter(g: number, a: number): number {
    const below = this.curg;
    this.gs.setSchedlink(a, below); // a running G is on no list: the link is free
    this.curg = g;
    this.views.u32[(this.mAddr + MR_CURG) >>> 2] = g;
    this.depth++;
    return below;
  }

  /** Undoes enter: the G below runs again. */
  private leave(a: number, below: number): void {
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
  private execute(g: number): void {
    const a = this.gs.addr(g);
    const flags = this.gs.flags(a);
    if (!this.charging && (flags & PRIO_MASK) !== PRIO_HIGH) { this.run(g, a, flags); return; }
    const t0 = traceClock();
    this.run(g, a, flags);
    this.charging = this.core.chargeTime(this.p, flags & PRIO_MASK, t0, traceClock()) !== 0;
  }

  /** Runs G g at address a with G_PRIO word `flags` (execute's body). */
  private run(g: number, a: number, flags: number): void {
    const gs = this.gs;
    const fnId = gs.fn(a);
    const fn = this.fns[fnId];
    const argc = gs.argc(a);
    const ctx = new TaskContext(this, g, flags >>> G_TOKEN_SHIFT, flags & PRIO_MASK);
    const below = this.enter(g, a);
    // A stolen fork: its P is where the joiner looks first for work to help with (leapfrogging).
    if ((flags & GF_FORK) !== 0) Atomics.store(this.views.i32, (a + G_INDEX) >>> 2, this.p + 1); // pairs with the joiner's load in waitStolen
    if (ctx.token !== 0 && isCancelled(this.views, ctx.token)) {
      // Cancelled before it started: it never runs (DESIGN.md "Cancellation").
      gs.takeArgs(a, []);
      this.leave(a, below);
      this.finish(g, a, ctx, cancelReason(), true, G_RUNNING);
      return;
    }
    if ((flags & GF_CONT) !== 0 && gs.hasErrorArg(a, argc)) {
      // A join child failed: the continuation fails with the first error instead of running.
      const args: unknown[] = [];
      const failed = gs.takeArgs(a, args);
      this.leave(a, below);
      this.finish(g, a, ctx, args[failed], true, G_RUNNING);
      return;
    }
    let r: unknown;
    const base = this.kidsTop;
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
      // Arguments are read (and their blocks freed) straight into the call: no array for <= 3.
      if ((flags & GF_SHAPED) !== 0) r = fn(ctx, ...this.shapedArgs(a));
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
      if (this.kidsTop !== base) this.endKids(ctx, base, false);
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
    if (this.kidsTop !== base) this.endKids(ctx, base, isAsync);
    if (failed) {
      this.finish(g, a, ctx, r, true, G_RUNNING);
    } else if (r instanceof JoinRequest) {
      this.join(g, a, ctx, r, G_RUNNING);
    } else if (isAsync) {
      this.setStatus(g, a, G_RUNNING, G_WAITING);
      gs.setSchedlink(a, (SCHEDLINK_PINNED | this.mid) >>> 0); // on no list while it awaits: marks it pinned here
      this.asyncPending++;
      this.asyncSinceYield++;
      this.views.u32[(this.mAddr + MR_ASYNC) >>> 2] = this.asyncPending;
      (r as PromiseLike<unknown>).then(
        (v) => this.settle(g, ctx, v, false),
        (e) => this.settle(g, ctx, e, true));
    } else {
      this.finish(g, a, ctx, r, false, G_RUNNING);
    }
  }

  /** G status transition: checked by the core in debug builds, a plain store otherwise. */
  private setStatus(g: number, a: number, from: number, to: number): void {
    if (this.debug) this.core.gSetStatus(g, from, to);
    else this.views.u32[a >>> 2] = to; // G_STATUS (offset 0): plain, published by the queue or join atomics that follow
  }

  /** An async task settled: finish it (or start its join). Runs on this M, P or not. */
  private settle(g: number, ctx: TaskContext, v: unknown, isError: boolean): void {
    if (this.trace !== null) this.trace.emit(traceClock(), EV_SETTLE, g, isError ? 0 : 1, 0);
    this.asyncPending--;
    this.views.u32[(this.mAddr + MR_ASYNC) >>> 2] = this.asyncPending;
    const a = this.gs.addr(g);
    this.gs.setSchedlink(a, 0); // no longer pinned (a join continuation is not)
    if (!isError && v instanceof JoinRequest) this.join(g, a, ctx, v, G_WAITING);
    else this.finish(g, a, ctx, v, isError, G_WAITING);
  }

  /**
   * Stores g's result and hands it on (DESIGN.md "Results and joins"): into the parent's
   * argument slot when g is a join child, to the M awaiting it, or nowhere when detached.
   */
  private finish(g: number, a: number, ctx: TaskContext, value: unknown, isError: boolean, from: number): void {
    const gs = this.gs;
    if (ctx.children !== null) this.detach(ctx);
    if (ctx.controller !== null) this.unwatch(ctx);
    const name = this.names[gs.fn(a)];
    if (joinLinked(this.views.i32, a)) {
      // Already linked to a join continuation, which nobody else can await or detach: write
      // the result straight into its slot; no DONE bit is needed (the parent's count is).
      const pg = gs.parentOf(a);
      const pa = gs.addr(pg);
      gs.setParentSlot(pa, gs.indexOf(a), value, isError, name);
      this.setStatus(g, a, from, G_DEAD);
      this.core.gfPut(this.p, g);
      if (gs.release(pa)) this.core.ready(this.p, pg, 1);
    } else {
      gs.setResult(a, value, isError, name);
      this.setStatus(g, a, from, G_DEAD);
      const to = joinFinish(this.views.i32, a); // publish the result: who takes it
      if (to === JOIN_TO_PARENT) {
        const pg = gs.parentOf(a);
        const pa = gs.addr(pg);
        gs.moveResultToParent(a, pa, gs.indexOf(a));
        this.core.gfPut(this.p, g);
        if (gs.release(pa)) this.core.ready(this.p, pg, 1);
      } else if (to > 0) {
        const wm = to - 1;
        if (wm === this.mid) this.deliverLocal(g, a);
        else pushInbox(this.views, wm, g, a);
      } else if (to === JOIN_TO_NOBODY) {
        gs.dropResult(a);
        this.core.gfPut(this.p, g);
      }
      else if (to === JOIN_TO_FORK) forkWake(this.views); // its joiner may sleep: pairs with joinForkMark in waitStolen
    }
    this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished;
  }

  private unwatch(ctx: TaskContext): void {
    const set = this.watched.get(ctx.token);
    if (set !== undefined) { set.delete(ctx.controller!); if (set.size === 0) this.watched.delete(ctx.token); }
  }

  /** Turns g into a join continuation over req.tasks; the last child to finish readies it. A
   *  shaped join's slot 0 holds its shape, the children's results follow. */
  private join(g: number, a: number, ctx: TaskContext, req: JoinRequest, from: number): void {
    const gs = this.gs;
    if (ctx.children !== null) this.detach(ctx);
    if (ctx.controller !== null) this.unwatch(ctx);
    if (from === G_RUNNING) this.setStatus(g, a, G_RUNNING, G_WAITING);
    const tasks = req.tasks;
    const n = tasks.length;
    for (let i = 0; i < n; i++) {
      if (tasks[i].g === 0 && tasks[i].state === TASK_PENDING) { this.joinLater(g, a, ctx, req); return; }
    }
    const off = req.shape !== 0 ? 1 : 0;
    gs.makeContinuation(a, req.fn, n + off, off !== 0 ? GF_CONT | GF_SHAPED : GF_CONT);
    if (off !== 0) {
      gs.setBlockArg(a, n + 1, 0, req.shape);
      gs.release(a); // the shape's slot is filled: it waits for no child (cannot reach 0: the guard is held)
    }
    for (let i = 0; i < n; i++) {
      const t = tasks[i];
      if (t.g === 0) {
        // Ran inline (at capacity) and settled: its result goes straight into its slot.
        gs.setParentSlot(a, i + off, t.value, t.state === TASK_FAILED, t.name);
        gs.release(a); // cannot reach 0: the joiner's guard is still held
        continue;
      }
      const c = t.g;
      const ca = gs.addr(c);
      if (!gs.linkChild(ca, g, i + off)) {
        // Already finished: its result waits in its own slot; move it now.
        gs.moveResultToParent(ca, a, i + off);
        this.core.gfPut(this.p, c);
        gs.release(a); // cannot reach 0: the joiner's guard is still held
      }
    }
    if (gs.release(a)) this.core.ready(this.p, g, 1); // drop the guard
  }

  /**
   * A join over an inline child still running (async, DESIGN.md "Spawning at capacity"): g
   * waits pinned to this M, as an awaiting async task does (so a crash of this thread fails it),
   * with every child awaited instead of linked; once all are settled it joins as usual.
   */
  private joinLater(g: number, a: number, ctx: TaskContext, req: JoinRequest): void {
    this.gs.setSchedlink(a, (SCHEDLINK_PINNED | this.mid) >>> 0);
    this.asyncInc();
    const tasks = req.tasks;
    void this.outcomes(tasks).then(({ settled }) => this.settle(g, ctx, new JoinRequest(req.fn, settled, req.shape), false));
  }

  /** Awaits every child and gives settled, G-less Tasks carrying their outcomes (in a box: a
   *  Task is a thenable, which a promise would adopt). */
  private outcomes(tasks: Task<unknown>[]): Promise<{ settled: Task<unknown>[] }> {
    const settled = new Array<Task<unknown>>(tasks.length);
    return Promise.all(tasks.map((t, i) => this.awaitTask(t).then(
      (v) => { settled[i] = this.settledTask(t.name, true, v); },
      (e: unknown) => { settled[i] = this.settledTask(t.name, false, e); }))).then(() => ({ settled }));
  }

  /** A Task that is already settled with (ok, value) and owns no G. */
  private settledTask(name: string, ok: boolean, value: unknown): Task<unknown> {
    const t = new Task(this, 0, 0, name);
    t.settle(ok, value, true);
    return t;
  }

  /** The arguments of a shaped join continuation (slot 0 its shape, then the results). */
  private shapedArgs(a: number): unknown[] {
    const xs: unknown[] = [];
    this.gs.takeArgs(a, xs);
    return applyShape(xs[0] as Shape, xs, 1);
  }

  private asyncInc(): void {
    this.asyncPending++;
    this.views.u32[(this.mAddr + MR_ASYNC) >>> 2] = this.asyncPending;
  }

  private asyncDec(): void {
    this.asyncPending--;
    this.views.u32[(this.mAddr + MR_ASYNC) >>> 2] = this.asyncPending;
  }

  /**
   * The children spawned while a task's function ran synchronously sit on this M's kids stack
   * above `base` (no array per task). An async task keeps them until it settles; otherwise the
   * ones neither awaited nor joined are detached now.
   */
  private endKids(ctx: TaskContext, base: number, keep: boolean): void {
    const kids = this.kids;
    for (let i = base; i < this.kidsTop; i++) {
      const t = kids[i]!;
      kids[i] = null;
      if (keep) { if (ctx.children === null) ctx.children = [t]; else ctx.children.push(t); }
      else if (t.use === USE_FREE) this.detachOne(t);
    }
    this.kidsTop = base;
  }

  private detachOne(t: Task<unknown>): void {
    t.use = USE_DETACHED;
    if (t.g === 0) return; // ran inline: nothing to free
    const ca = this.gs.addr(t.g);
    if (joinDetach(this.views.i32, ca) & JOIN_DONE) { this.gs.dropResult(ca); this.core.gfPut(this.p, t.g); }
  }

  /** Detaches the children a finishing async task neither awaited nor joined. */
  private detach(ctx: TaskContext): void {
    const kids = ctx.children!;
    ctx.children = null;
    for (let i = 0; i < kids.length; i++) if (kids[i].use === USE_FREE) this.detachOne(kids[i]);
  }

  private deliverLocal(g: number, a: number): void {
    const w = this.waiters.get(g);
    if (w === undefined) {
      if (!this.restarted) throw internalError(`no waiter for g=${g} on M${this.mid}`);
      // Awaited by a task that died with this slot's previous thread: nobody will read it.
      this.gs.dropResult(a);
      this.core.gfPut(this.p, g);
      this.orphans++;
      return;
    }
    this.waiters.delete(g);
    const out = this.out;
    this.gs.takeResult(a, out);
    this.core.gfPut(this.p, g);
    if (out.ok) w.resolve(out.value); else w.reject(out.value);
    out.value = undefined;
  }

  /** Settles the waiters whose Gs other Ms finished (pushed on M_INBOX). */
  private drainInbox(): void {
    let g = Atomics.exchange(this.views.i32, this.inboxIdx, 0) >>> 0; // take all: pairs with pushInbox's CAS
    while (g !== 0) {
      const a = this.gs.addr(g);
      const next = this.gs.schedlink(a);
      this.deliverLocal(g, a);
      g = next;
    }
  }

  // ---- TaskOwner: awaiting a Task spawned on this M ----------------------------------------
  awaitTask(task: Task<unknown>): Promise<unknown> {
    if (task.g === 0) {
      // Ran inline (at capacity): settled already, or an async child still running here.
      if (task.state === TASK_OK) return Promise.resolve(task.value);
      if (task.state === TASK_FAILED) return Promise.reject(task.value);
      return new Promise((resolve, reject) => { task.res = resolve; task.rej = reject; });
    }
    const gs = this.gs;
    const a = gs.addr(task.g);
    if (gs.gen(a) !== task.gen) return Promise.reject(staleHandleError(task.name, task.g, task.gen, gs.gen(a)));
    if (joinAwait(this.views.i32, a, this.mid)) { // done already: take it now
      const out = { ok: true, value: undefined as unknown };
      gs.takeResult(a, out);
      this.views.u32[(a + G_PARENT) >>> 2] = 0; // consumed without a join bit: not an orphan (recover.ts)
      try { this.core.gfPut(this.p, task.g); } catch (e) { return Promise.reject(this.coreFault('gfPut', e)); }
      return out.ok ? Promise.resolve(out.value) : Promise.reject(out.value);
    }
    return new Promise((resolve, reject) => { this.waiters.set(task.g, { resolve, reject }); });
  }

  // ---- ContextHost: what ctx.spawn and ctx.join do -----------------------------------------
  spawnFrom(ctx: TaskContext, name: string, args: unknown[], cls: number): Task<unknown> {
    const id = this.ids.get(name);
    if (id === undefined) throw unknownTaskError(name, this.names);
    const core = this.core;
    let g: number;
    try { g = core.gfGet(this.p); } catch (e) { throw this.coreFault('gfGet', e); }
    if (g === 0) return this.spawnInline(ctx, id, name, args, cls); // at maxTasks or maxMemoryMB
    const a = this.gs.addr(g);
    try {
      this.gs.init(g, a, id, args, name);
    } catch (e) {
      try { core.gfPut(this.p, g); } catch (f) { throw this.coreFault('gfPut', f); }
      throw asMemoryError(e, `spawn('${name}')`, this.cfg.maxMemoryMB);
    }
    this.views.u32[(a + G_PARENT) >>> 2] = (PARENT_SPAWNER | this.mid) >>> 0; // whose handle it is, until a join links it
    const prio = (ctx.token << G_TOKEN_SHIFT) | (cls < 0 ? ctx.cls : cls); // children inherit the token and the class
    if (prio !== 0) this.views.u32[(a + G_PRIO) >>> 2] = prio;
    if ((++this.sampled & (LATENCY_SAMPLE - 1)) === 0) this.views.f64[(a + G_SPAWN_TIME) >>> 3] = traceClock();
    const t = new Task(this, g, this.gs.gen(a), name);
    if (ctx === this.running) this.kids[this.kidsTop++] = t;
    else if (ctx.children === null) ctx.children = [t];
    else ctx.children.push(t);
    this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3] = ++this.spawned;
    // newproc records the spawn (dated by the clock reads around this task); an M that does not trace
    // calls ready, newproc's other half, and pays nothing for tracing.
    try {
      if (this.trace === null) core.ready(this.p, g, 1);
      else core.newproc(this.p, this.mid, g, ctx.g);
    } catch (e) {
      throw this.coreFault(this.trace === null ? 'ready' : 'newproc', e);
    }
    return t;
  }

  /**
   * A core call made from inside a task failed (a trap, or the debug core's abort): the shared
   * state may be half updated, so this M must not go on. Records the first such failure, which
   * schedule() throws as the M's own failure as soon as the running task is done, whatever the
   * task did with the error it saw (DESIGN.md "Core faults"). Returns the error the task sees.
   */
  private coreFault(op: string, e: unknown): Error {
    const err = coreFaultError(op, this.mid, e);
    if (this.fault === null) this.fault = err;
    return err;
  }

  isCancelled(token: number): boolean {
    return isCancelled(this.views, token);
  }

  /** Aborts `controller` when the main thread announces that `token` was cancelled. */
  watchCancel(token: number, controller: AbortController): void {
    let set = this.watched.get(token);
    if (set === undefined) { set = new Set(); this.watched.set(token, set); }
    set.add(controller);
  }

  /** The main thread cancelled `token`: abort the signals of this M's tasks that carry it. */
  cancelToken(token: number): void {
    const set = this.watched.get(token);
    if (set === undefined) return;
    this.watched.delete(token);
    for (const c of set) c.abort(cancelReason());
  }

  // ---- ForkHost: what ctx.fork and Fork.join need (bindings/runtime/fork.ts) ----------------
  forkFrom(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, rest: unknown[] | null): Fork {
    return this.fj.fork(ctx, name, argc, a0, a1, a2, rest);
  }

  /** The last name taskId resolved: a fork tree forks one name over and over. */
  private lastName = '';
  private lastId = -1;

  taskId(name: string): number {
    if (name === this.lastName) return this.lastId;
    const id = this.ids.get(name);
    if (id === undefined) throw unknownTaskError(name, this.names);
    this.lastName = name;
    this.lastId = id;
    return id;
  }

  isAsyncTask(id: number): boolean {
    return this.asyncFns[id] === true;
  }

  countSpawned(): void {
    this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3] = ++this.spawned;
  }

  executeNested(g: number): void {
    this.execute(g);
  }

  /**
   * Runs fork G g inline for its joiner (DESIGN.md "Fork-join", step 4): G_RUNNING from forkPop,
   * or still G_DEAD when it never reached the deque. Settles f with its result or error; the G
   * goes straight back to this P's free list (nobody else knows it).
   */
  runInline(f: Fork, g: number): void {
    const gs = this.gs;
    const a = gs.addr(g);
    const fnId = gs.fn(a);
    const flags = gs.flags(a);
    // The joiner's context serves the fork when they share the tree's token and class (always,
    // unless a Fork was smuggled to another task): no context per inline run. The context names
    // no G a user can see; the M's curg says which G runs.
    const joiner = this.running;
    const shared = joiner !== null && joiner.token === flags >>> G_TOKEN_SHIFT && joiner.cls === (flags & PRIO_MASK);
    const ctx = shared ? joiner : new TaskContext(this, g, flags >>> G_TOKEN_SHIFT, flags & PRIO_MASK);
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
      const base = this.kidsTop;
      const fbase = this.fj.top;
      const outer = this.running;
      this.running = ctx;
      try {
        switch (argc) {
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
      if (this.kidsTop !== base) this.endKids(ctx, base, false);
      if (ok && r !== null && typeof r === 'object' && (r instanceof JoinRequest || typeof (r as PromiseLike<unknown>).then === 'function')) {
        if (!(r instanceof JoinRequest)) (r as Promise<unknown>).then(undefined, () => {}); // its failure is reported as this one
        ok = false;
        r = notSyncError(f.name, r);
      }
    }
    if (!shared && ctx.controller !== null) this.unwatch(ctx);
    this.leave(a, below);
    gs.freeSpill(a);
    this.setStatus(g, a, G_RUNNING, G_DEAD);
    this.fj.putG(g, a);
    this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished;
    f.state = ok ? TASK_OK : TASK_FAILED;
    f.value = r;
  }

  joinFrom(_ctx: TaskContext, name: string, args: unknown[]): JoinRequest {
    const id = this.ids.get(name);
    if (id === undefined) throw unknownTaskError(name, this.names);
    const { tasks, shape } = shapeOf(args, isTask, (t, where) => {
      if (t.owner !== this) throw joinForeignTaskError(name, where);
      if (t.use !== USE_FREE) throw joinUsedTaskError(name, t.name, where);
    });
    let block = 0;
    if (shape !== null) {
      try {
        block = encodeValue(this.views, this.gs.heap, shape, `ctx.join('${name}'): its plain arguments`, this.gs.shared);
      } catch (e) {
        throw asMemoryError(e, `ctx.join('${name}')`, this.cfg.maxMemoryMB);
      }
    }
    for (let i = 0; i < tasks.length; i++) tasks[i].use = USE_JOINED;
    return new JoinRequest(id, tasks, block);
  }

  // ---- Spawning at capacity (DESIGN.md "Spawning at capacity") -----------------------------

  /**
   * The G table is at maxTasks (or the memory at maxMemoryMB): run child `id` now, on this
   * thread, inside ctx's task (work-first, as Cilk does under pressure). Its arguments and
   * result still go through the codec (copies, the same TypeErrors); the Task it returns is
   * settled (or, for an async child, settles when it does) and is awaited, joined or detached
   * like any other. Its own spawns find the table as they find it.
   */
  private spawnInline(ctx: TaskContext, id: number, name: string, args: unknown[], cls: number): Task<unknown> {
    const copies = new Array<unknown>(args.length);
    for (let i = 0; i < args.length; i++) copies[i] = this.copy(args[i], `spawn('${name}'): argument ${i + 1}`);
    const t = new Task(this, 0, 0, name);
    const child = new TaskContext(this, ctx.g, ctx.token, cls < 0 ? ctx.cls : cls);
    this.inlineRun(t, child, this.fns[id], copies);
    if (ctx === this.running) this.kids[this.kidsTop++] = t;
    else if (ctx.children === null) ctx.children = [t];
    else ctx.children.push(t);
    return t;
  }

  /** A copy of v through the codec, as a value crossing threads would be. */
  private copy(v: unknown, label: string): unknown {
    const type = typeof v;
    if (v === null || type === 'number' || type === 'boolean' || type === 'undefined') return v; // travel in the slot itself
    let block: number;
    try {
      block = encodeValue(this.views, this.gs.heap, v, label, this.gs.shared);
    } catch (e) {
      throw asMemoryError(e, label, this.cfg.maxMemoryMB);
    }
    try {
      return decodeValue(this.views, block, this.gs.shared);
    } finally {
      this.gs.heap.heapFree(block);
    }
  }

  /** A copy of a thrown value through the codec, as a failure crossing threads would be; the
   *  value itself when the memory is full. */
  private copyError(e: unknown, name: string): unknown {
    let block: number;
    try {
      block = encodeError(this.views, this.gs.heap, e, `task '${name}' threw`, this.gs.shared);
    } catch {
      return e;
    }
    try {
      return reviveError(decodeError(this.views, block, this.gs.shared));
    } finally {
      this.gs.heap.heapFree(block);
    }
  }

  /** Runs fn(ctx, ...args) for inline Task t and settles t with what it gives (a value, a
   *  throw, a join, or a promise of either). */
  private inlineRun(t: Task<unknown>, ctx: TaskContext, fn: TaskFn, args: unknown[]): void {
    if (ctx.token !== 0 && isCancelled(this.views, ctx.token)) { this.inlineSettle(t, ctx, false, cancelReason()); return; }
    const prev = this.running;
    const base = this.kidsTop;
    this.running = ctx;
    let r: unknown;
    try {
      r = fn(ctx, ...args);
    } catch (e) {
      this.running = prev;
      if (this.kidsTop !== base) this.endKids(ctx, base, false);
      this.inlineSettle(t, ctx, false, e);
      return;
    }
    this.running = prev;
    const isAsync = r !== null && typeof r === 'object' && !(r instanceof JoinRequest) && typeof (r as PromiseLike<unknown>).then === 'function';
    if (this.kidsTop !== base) this.endKids(ctx, base, isAsync);
    if (r instanceof JoinRequest) { this.inlineJoin(t, ctx, r); return; }
    if (!isAsync) { this.inlineSettle(t, ctx, true, r); return; }
    // Its continuation lives in this thread's heap: the M keeps its event loop turning, and close
    // waits for it (counted spawned now, finished when it settles; recover.ts counts it lost).
    this.asyncInc();
    this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3] = ++this.spawned;
    (r as PromiseLike<unknown>).then((v) => {
      this.asyncDec();
      this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished;
      if (v instanceof JoinRequest) this.inlineJoin(t, ctx, v); else this.inlineSettle(t, ctx, true, v);
    }, (e: unknown) => {
      this.asyncDec();
      this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished;
      this.inlineSettle(t, ctx, false, e);
    });
  }

  /** The join an inline task returned: run its function here once every child is settled. */
  private inlineJoin(t: Task<unknown>, ctx: TaskContext, req: JoinRequest): void {
    if (ctx.children !== null) this.detach(ctx);
    const tasks = req.tasks;
    let ready = true;
    for (let i = 0; i < tasks.length; i++) if (tasks[i].g !== 0 || tasks[i].state === TASK_PENDING) { ready = false; break; }
    if (ready) { this.inlineJoinNow(t, ctx, req, tasks); return; }
    this.asyncInc();
    void this.outcomes(tasks).then(({ settled }) => { this.asyncDec(); this.inlineJoinNow(t, ctx, req, settled); });
  }

  private inlineJoinNow(t: Task<unknown>, ctx: TaskContext, req: JoinRequest, settled: Task<unknown>[]): void {
    const results = new Array<unknown>(settled.length);
    for (let i = 0; i < settled.length; i++) {
      if (settled[i].state === TASK_FAILED) {
        if (req.shape !== 0) this.gs.heap.heapFree(req.shape);
        this.inlineSettle(t, ctx, false, settled[i].value);
        return;
      }
      results[i] = settled[i].value;
    }
    let args = results;
    if (req.shape !== 0) {
      const shape = decodeValue(this.views, req.shape, this.gs.shared) as Shape;
      this.gs.heap.heapFree(req.shape);
      args = applyShape(shape, results, 0);
    }
    const cont = new TaskContext(this, ctx.g, ctx.token, ctx.cls); // a continuation is a new call, as in a G
    if (ctx.controller !== null) this.unwatch(ctx);
    this.inlineRun(t, cont, this.fns[req.fn], args);
  }

  /** Settles inline Task t (quietly: nobody may observe a child's failure, as for a G). */
  private inlineSettle(t: Task<unknown>, ctx: TaskContext, ok: boolean, v: unknown): void {
    if (ctx.children !== null) this.detach(ctx);
    if (ctx.controller !== null) this.unwatch(ctx);
    let value: unknown;
    if (ok) {
      try {
        value = this.copy(v, `the result of task '${t.name}'`);
      } catch (e) {
        ok = false;
        v = e;
      }
    }
    if (!ok) value = this.copyError(v, t.name);
    t.settle(ok, value, true);
  }
}

function isTask(x: unknown): x is Task<unknown> {
  return x instanceof Task;
}
