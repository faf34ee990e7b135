// The M: a worker thread's loop. It holds a P, asks the core for the next G (findRunnable),
// runs it, and parks when the core finds nothing anywhere (stopM). Tasks that await keep their
// G in G_WAITING, pinned to this M, while the M runs other Gs (docs/DESIGN.md "The M loop").
// This file is the loop and execute; what a task does through its context lives beside it:
// spawn.ts (ctx.spawn, ctx.join), inline.ts (spawning at capacity), join.ts (results and joins),
// waiters.ts (awaiting), kids.ts (detaching), watch.ts (ctx.signal), park.ts (the sleep).
//
// Who may call what: every method runs on this M's own thread. Methods reached from promise
// continuations (settle, the inbox) may run while the M holds no P (this.p < 0); they then use
// the core's P-less forms (global queue, global free list).

import {
  G_DEAD, G_RUNNING, G_WAITING, MR_TRACE_BUF, G_TOKEN_SHIFT, G_SPAWN_TIME,
  MR_HIST, MR_IDLE_MS, MR_T0, MR_YIELDS, MR_STATE, MR_ASYNC, MR_CURG, MR_FINISHED, MR_SPAWNED,
  MS_EXITED, MS_SCHEDULE, MS_SHARES, MS_YIELD, GF_CONT, S_RT_SHARES, S_RT_GIVEBACK, GIVEBACK_ASKED, GIVEBACK_TAKEN, GIVEBACK_NONE,
  S_RT_SHRINK,
  SCHEDLINK_PINNED, PRIO_MASK, PRIO_HIGH, GF_SHAPED, GF_FORK, G_INDEX, G_ARGC, G_ARGS, G_FN, G_PRIO, G_SCHEDLINK,
} from '../../assembly/shared/layout.js';
import { Stop, type Core } from '../core/core.js';
import { TaskContext, cancelReason, type ContextHost } from './context.js';
import { isCancelled, KILL_TOKEN0 } from './cancel.js';
import { KillGuard } from './kill.js';
import { LATENCY_SAMPLE, LatencyRecorder } from './latency.js';
import { coreFaultError, unknownTaskError } from './errors.js';
import { applyShape, type Shape } from './joinshape.js';
import { GSlots, num } from './gslots.js';
import { macrotask, now } from './platform.js';
import { JoinRequest, Task, TASK_FAILED, TASK_OK, TASK_PENDING, type TaskOwner } from './task.js';
import { finishG, joinChildren, type Finisher } from './join.js';
import { EV_PARK, EV_SETTLE, EV_UNPARK, TraceWriter, traceClock } from './trace.js';
import type { Views } from './values.js';
import { Fork, ForkJoin, NO_ERROR, notSyncError, type ForkHost } from './fork.js';
import { mAddr } from './mblock.js';
import { Parker, type Sleeper } from './park.js';
import { Kids } from './kids.js';
import { Waiters } from './waiters.js';
import { CancelWatch } from './watch.js';
import { outcomes, type TaskFn } from './inline.js';
import { joinRequest, spawnChild, type SpawnHost } from './spawn.js';

/** What the M loop returns to its async driver. */
const enum Next { Sleep, Microtasks, Macrotask }

/** Async tasks started between two microtask checkpoints (so their continuations run). */
const ASYNC_BATCH = 16;
/** With async tasks pending, let timers and I/O run at least this often (ms). */
const MACRO_INTERVAL_MS = 2;

export interface MConfig {
  mid: number;
  names: string[];
  fns: TaskFn[];
  spinLimit: number;
  yieldLimit: number;
  /** The CPUs this process may use: the park ladder polls and a fork joiner spins only while
   *  none is short (parkspin.ts). */
  ncpu: number;
  maxTasks: number;
  /** The memory's bound (options.maxMemoryMB), for the error that names it. */
  maxMemoryMB: number;
  /** Check every G state transition in the core (FLAG_DEBUG). */
  debug: boolean;
  /** This M slot's previous thread crashed (DESIGN.md "Crashed workers"): resume with the P it
   *  held (`resumeP`, -1 none) instead of joining the idle list, and drop results that arrive for
   *  the dead thread's waiters. (Every thread carries its slot's counters on.) */
  restart?: { resumeP: number };
  /** How long (ms) this M sleeps idle before it may end its thread (Infinity: never), and how
   *  many Ms stay live whatever their idleness (DESIGN.md "Threads that come and go"). */
  idleTimeout: number;
  minLive: number;
  /** Tells the main thread this thread claimed itself for the kill of tree `token` and halts
   *  (kill.ts KillGuard.resume). */
  killClaimed?: (token: number) => void;
}

/** AsyncFunction's constructor: fork refuses async task functions up front. */
const AsyncFunction = (async () => {}).constructor;

export class M implements TaskOwner, ContextHost, ForkHost, Finisher, Sleeper, SpawnHost {
  readonly core: Core;
  readonly views: Views;
  readonly gs: GSlots;
  readonly mid: number;
  /** The P this M holds, or -1. */
  p = -1;
  readonly maxMemoryMB: number;
  /** The CPUs this process may use (MConfig.ncpu). */
  readonly ncpu: number;
  private readonly fns: TaskFn[];
  private readonly names: string[];
  private readonly ids = new Map<string, number>();
  private readonly debug: boolean;
  /** This M's block (mblock.ts). */
  private readonly mAddr: number;
  private asyncPending = 0;
  /** Tasks ran since this M's event loop last turned: callbacks they left may be pending
   *  (DESIGN.md "Stranded callbacks"). */
  dirty = false;
  /** The first failure of a core call made inside a task (coreFault); fatal for this M. */
  private fault: Error | null = null;
  private asyncSinceYield = 0;
  private lastYield = 0;
  private spawned = 0;
  private finished = 0;
  private stopping = false;
  /** The loop ended because this M idled out (mExit), not because the scheduler closed. */
  idledOut = false;
  private readonly minLive: number;
  /** Children spawned by the tasks running now (kids.ts). */
  readonly kids: Kids;
  /** This M's waiters for the results of Tasks its tasks spawned (waiters.ts). */
  private readonly waiters: Waiters;
  private readonly parker: Parker;
  /** The context of the task running synchronously now (the innermost), or null. */
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
  readonly tracing: boolean;
  /** Latency histograms of this M, and the spawn counter that picks the sampled Gs. */
  private readonly lat: LatencyRecorder | null;
  private sampled = 0;
  /** Signals of this M's tasks, by cancellation token (only those a task asked for). */
  private readonly watch = new CancelWatch();
  /** Shared buffers received so far; set by the worker's message handler. */
  sharesSeen = 0;
  /** Marks this thread killable while it runs a kill-armed tree's own code (kill.ts). */
  readonly guard: KillGuard;
  /** Time every G and charge it (chargeTime said the P's high budget is spent). Starts true:
   *  a thread that replaced a crashed one resumes a P whose state it has not seen. */
  private charging = true;

  constructor(core: Core, gs: GSlots, cfg: MConfig) {
    this.core = core;
    this.gs = gs;
    gs.cacheBlocks(cfg.mid); // in the M's block: a dead thread's is given back by its recovery (blockcache.ts)
    this.views = gs.views;
    this.mid = cfg.mid;
    this.maxMemoryMB = cfg.maxMemoryMB;
    this.debug = cfg.debug;
    this.fns = cfg.fns;
    this.names = cfg.names;
    cfg.names.forEach((n, i) => this.ids.set(n, i));
    this.asyncFns = cfg.fns.map((f) => f instanceof AsyncFunction);
    this.fj = new ForkJoin(this);
    this.kids = new Kids(this);
    this.waiters = new Waiters(this, cfg.restart !== undefined, (op, e) => this.coreFault(op, e));
    this.parker = new Parker(this, cfg.mid, cfg.spinLimit, cfg.yieldLimit, cfg.idleTimeout, cfg.ncpu);
    this.ncpu = cfg.ncpu;
    this.minLive = cfg.minLive;
    this.mAddr = mAddr(this.views, cfg.mid);
    this.guard = new KillGuard(this.views, cfg.mid, this, cfg.killClaimed ?? (() => undefined));
    this.trace = this.views.u32[(this.mAddr + MR_TRACE_BUF) >>> 2] !== 0 ? new TraceWriter(this.views, this.mAddr) : null;
    this.tracing = this.trace !== null;
    const hist = this.views.u32[(this.mAddr + MR_HIST) >>> 2];
    this.lat = hist !== 0 ? new LatencyRecorder(this.views, hist) : null;
    this.views.f64[(this.mAddr + MR_T0) >>> 3] = traceClock();
    // The slot's counters go on from where its previous thread (crashed, or idled out) left
    // them: close and the idle look sum them over the slots (0 for a slot's first thread).
    this.spawned = this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3];
    this.finished = this.views.f64[(this.mAddr + MR_FINISHED) >>> 3];
    if (cfg.restart !== undefined) this.p = cfg.restart.resumeP;
  }

  /** Records what this M does now (MS_*), for stats. */
  state(s: number): void {
    this.views.u32[(this.mAddr + MR_STATE) >>> 2] = s; // plain: stats reads it, and a stale value only misreports
  }

  /** Runs until the scheduler closes. Starts without a P, on the idle list. */
  async loop(): Promise<void> {
    this.lastYield = now();
    for (;;) {
      if (this.fault !== null) throw this.fault; // a core call inside an async task's continuation failed (coreFault)
      if (this.p < 0) {
        this.gs.flushBlocks(); // a thread asleep (or ending) keeps no value blocks
        const woken = this.parker.sleep(this.idle);
        if (woken !== null) await woken;
        if (this.stopping) { this.gs.flushBlocks(); this.state(MS_EXITED); return; }
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

  /** Time slept (ms), into MR_IDLE_MS. */
  private readonly idle = (ms: number): void => {
    this.views.f64[(this.mAddr + MR_IDLE_MS) >>> 3] += ms; // owner only
  };

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
      const w = this.waiters;
      if ((w.live !== 0 || w.restarted) && w.inboxWaiting()) w.drain(); // results for this M's waiters (or a dead thread's, dropped)
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
        if (Atomics.load(i32, S_RT_SHARES >>> 2) !== this.sharesSeen) return Next.Macrotask; // pairs with deliverShares' store (engine.ts)
        // The monitor wants a lent spare back and no P goes idle: whoever looks first gives its
        // own P back (DESIGN.md "sysmon and handoff").
        if (Atomics.load(i32, S_RT_GIVEBACK >>> 2) === GIVEBACK_ASKED && // pairs with the monitor's store
          Atomics.compareExchange(i32, S_RT_GIVEBACK >>> 2, GIVEBACK_ASKED, GIVEBACK_TAKEN) === GIVEBACK_ASKED) { // pairs with the monitor's CAS (sysmon.ts clear)
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
          core.pGiveBack(this.p, m);
          // Done: the reserve's count shows it (under sched.lock) before the monitor reads NONE.
          Atomics.store(i32, S_RT_GIVEBACK >>> 2, GIVEBACK_NONE); // pairs with the monitor's first load in check
          this.p = -1;
          return Next.Sleep;
        }
        // sched.resize asked for fewer Ps than run: whoever looks first gives its own P out of
        // service (DESIGN.md "Resizing: procs at run time").
        if (Atomics.load(i32, S_RT_SHRINK >>> 2) > 0 && core.pStop(this.p, m) >= 0) { // pairs with procresize's store
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
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

  // ---- Sleeper: what the park ladders need (park.ts) ---------------------------------------
  pendingWork(): boolean {
    return this.asyncPending !== 0 || this.waiters.live !== 0;
  }

  stop(): void {
    this.stopping = true;
  }

  idleOut(): boolean {
    if (this.core.mExit(this.mid, this.minLive) === 0) return false;
    this.idledOut = true;
    this.stopping = true;
    return true;
  }

  drainInbox(): void {
    this.waiters.drainIfAny();
  }

  acquire(): void {
    this.p = this.core.acquireP(this.mid);
    this.lastYield = now();
    if (this.trace !== null) this.trace.emit(traceClock(), EV_UNPARK, 0, this.p, 0);
  }

  /** Takes turns of the event loop until the message handler has received every shared
   *  buffer announced in S_RT_SHARES (DESIGN.md "Shared buffers"). */
  async receiveShares(): Promise<void> {
    while (Atomics.load(this.views.i32, S_RT_SHARES >>> 2) > this.sharesSeen) { // pairs with deliverShares' store (engine.ts)
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
    const token = flags >>> G_TOKEN_SHIFT;
    const ctx = new TaskContext(token < KILL_TOKEN0 ? this : this.guard.host, g, token, flags & PRIO_MASK);
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
      this.asyncSinceYield++;
      (r as PromiseLike<unknown>).then(
        (v) => this.settle(g, ctx, v, false),
        (e) => this.settle(g, ctx, e, true));
    } else {
      this.finish(g, a, ctx, r, false, G_RUNNING);
    }
  }

  /** G status transition: checked by the core in debug builds, a plain store otherwise. */
  setStatus(g: number, a: number, from: number, to: number): void {
    if (this.debug) this.core.gSetStatus(g, from, to);
    else this.views.u32[a >>> 2] = to; // G_STATUS (offset 0): plain, published by the queue or join atomics that follow
  }

  /** An async task settled: finish it (or start its join). Runs on this M, P or not. */
  private settle(g: number, ctx: TaskContext, v: unknown, isError: boolean): void {
    if (this.trace !== null) this.trace.emit(traceClock(), EV_SETTLE, g, isError ? 0 : 1, 0);
    this.asyncDec();
    const a = this.gs.addr(g);
    this.gs.setSchedlink(a, 0); // no longer pinned (a join continuation is not)
    if (!isError && v instanceof JoinRequest) this.join(g, a, ctx, v, G_WAITING);
    else this.finish(g, a, ctx, v, isError, G_WAITING);
  }

  /** g's task is done: its result (or error) goes where join.ts's finishG says (DESIGN.md
   *  "Results and joins"). */
  private finish(g: number, a: number, ctx: TaskContext, value: unknown, isError: boolean, from: number): void {
    this.taskDone(ctx);
    finishG(this, g, a, from, value, isError, this.names[this.gs.fn(a)]);
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
  private join(g: number, a: number, ctx: TaskContext, req: JoinRequest, from: number): void {
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
  private joinLater(g: number, a: number, ctx: TaskContext, req: JoinRequest): void {
    this.gs.setSchedlink(a, (SCHEDLINK_PINNED | this.mid) >>> 0);
    this.asyncInc();
    void outcomes(this, req.tasks).then(({ settled }) => this.settle(g, ctx, new JoinRequest(req.fn, settled, req.shape), false));
  }

  /** The arguments of the G at a, read and their blocks freed. */
  private allArgs(a: number): unknown[] {
    const xs: unknown[] = [];
    this.gs.takeArgs(a, xs);
    return xs;
  }

  /** The arguments of a shaped join continuation (slot 0 its shape, then the results). */
  private shapedArgs(a: number): unknown[] {
    const xs: unknown[] = [];
    this.gs.takeArgs(a, xs);
    return applyShape(xs[0] as Shape, xs, 1);
  }

  asyncInc(): void {
    this.asyncPending++;
    this.views.u32[(this.mAddr + MR_ASYNC) >>> 2] = this.asyncPending; // owner only; recover.ts reads it once this thread is gone
  }

  asyncDec(): void {
    this.asyncPending--;
    this.views.u32[(this.mAddr + MR_ASYNC) >>> 2] = this.asyncPending; // as in asyncInc
  }

  countSpawned(): void {
    this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3] = ++this.spawned; // owner only; close sums them
  }

  countFinished(): void {
    this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished; // owner only; close sums them
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

  private awaitTaskNow(task: Task<unknown>): Promise<unknown> {
    if (task.g === 0) {
      // Ran inline (at capacity): settled already, or an async child still running here.
      if (task.state === TASK_OK) return Promise.resolve(task.value);
      if (task.state === TASK_FAILED) return Promise.reject(task.value);
      return new Promise((resolve, reject) => { task.res = resolve; task.rej = reject; });
    }
    return this.waiters.await(task);
  }

  // ---- ContextHost: what ctx.spawn and ctx.join do (spawn.ts) -------------------------------
  spawnFrom(ctx: TaskContext, name: string, cls: number, argc: number, a0: unknown, a1: unknown, a2: unknown,
    a3: unknown, a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Task<unknown> {
    return spawnChild(this, ctx, name, cls, argc, a0, a1, a2, a3, a4, a5, a6, rest);
  }

  joinFrom(_ctx: TaskContext, name: string, args: unknown[]): JoinRequest {
    return joinRequest(this, name, args);
  }

  fn(id: number): TaskFn {
    return this.fns[id];
  }

  /** Counts a spawn; true for the one in LATENCY_SAMPLE whose latency is sampled. */
  sample(): boolean {
    return (++this.sampled & (LATENCY_SAMPLE - 1)) === 0;
  }

  /**
   * A core call made from inside a task failed (a trap, or the debug core's abort): the shared
   * state may be half updated, so this M must not go on. Records the first such failure, which
   * schedule() throws as the M's own failure as soon as the running task is done, whatever the
   * task did with the error it saw (DESIGN.md "Core faults"). Returns the error the task sees.
   */
  coreFault(op: string, e: unknown): Error {
    const err = coreFaultError(op, this.mid, e);
    if (this.fault === null) this.fault = err;
    return err;
  }

  isCancelled(token: number): boolean {
    return isCancelled(this.views, token);
  }

  /** Aborts `controller` when the main thread announces that `token` was cancelled. */
  watchCancel(token: number, controller: AbortController): void {
    this.watch.add(token, controller);
  }

  /** The main thread cancelled `token`: abort the signals of this M's tasks that carry it. */
  cancelToken(token: number): void {
    this.watch.cancel(token);
  }

  // ---- ForkHost: what ctx.fork and Fork.join need (bindings/runtime/fork.ts) ----------------
  forkFrom(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown,
    a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Fork {
    return this.fj.fork(ctx, name, argc, a0, a1, a2, a3, a4, a5, a6, rest);
  }

  /** The last two names taskId resolved: a fork tree forks one name over and over, a spawn
   *  tree spawns one and joins into another (fibc: 'fibc' and 'sum'). */
  private name0 = '';
  private id0 = -1;
  private name1 = '';
  private id1 = -1;

  taskId(name: string): number {
    if (name === this.name0) return this.id0;
    if (name === this.name1) return this.id1;
    const id = this.ids.get(name);
    if (id === undefined) throw unknownTaskError(name, this.names);
    this.name1 = this.name0;
    this.id1 = this.id0;
    this.name0 = name;
    this.id0 = id;
    return id;
  }

  isAsyncTask(id: number): boolean {
    return this.asyncFns[id] === true;
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
  private endValue: unknown = undefined;

  /**
   * The end of an inline fork run, past its call: its own forks joined (implicit sync), the
   * children it spawned ended, a promise or ctx.join request refused. Returns whether it
   * succeeded, its result or error in endValue.
   */
  private forkEnd(f: Fork, ctx: TaskContext, ok: boolean, r: unknown, fbase: number, kbase: number): boolean {
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
  private runInlineAny(f: Fork, g: number, a: number): void {
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
