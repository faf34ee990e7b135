// The M's state (Go's `m`): a worker thread's fields, made once by its constructor, and the small
// services every part of the M uses (its counters, the task table, cancellation). The M is one
// object in four files, each a class over the one below (docs/DESIGN.md "The M loop"):
//   mstate.ts    the fields and the small services (this file)
//   execute.ts   running one G: execute, finish, settle, join
//   runinline.ts what fork-join needs of its M: running a fork inline for its joiner
//   m.ts         the loop: schedule, and what the park ladders need (Sleeper)
// The helpers made in the constructor (ForkJoin, Kids, Waiters, Parker, KillGuard) take the whole
// M; the members they need from the classes above are declared abstract here.
//
// Who may call what: every method runs on this M's own thread. Methods reached from promise
// continuations (settle, the inbox) may run while the M holds no P (this.p < 0); they then use
// the core's P-less forms (global queue, global free list).

import {
  MR_TRACE_BUF, MR_HIST, MR_IDLE_MS, MR_T0, MR_STATE, MR_ASYNC, MR_CURG, MR_FINISHED, MR_SPAWNED, MR_BLOCKED, MR_ASYNC_LIMIT, PARK_ROOM, STOP_RETRY,
} from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import { TaskContext } from '../tasks/context.js';
import { isCancelled } from '../tasks/cancel.js';
import { KillGuard } from '../tasks/kill.js';
import { LATENCY_SAMPLE, LatencyRecorder } from '../observe/latency.js';
import { coreFaultError, unknownTaskError } from '../base/errors.js';
import { GSlots } from '../memory/gslots.js';
import { now } from '../host/platform.js';
import { JoinRequest, Task } from '../tasks/task.js';
import { TraceWriter, traceClock } from '../observe/trace.js';
import type { Views } from '../memory/values.js';
import { Fork, ForkJoin } from '../tasks/fork.js';
import { mAddr } from '../memory/mblock.js';
import { Parker, parkWord, type Sleeper } from '../sleep/park.js';
import { Kids } from '../tasks/kids.js';
import { errorBlock, type UnobservedSink } from '../tasks/unobserved.js';
import { Admission } from './admit.js';
import { Waiters } from '../tasks/waiters.js';
import { CancelWatch } from '../tasks/watch.js';
import type { TaskFn } from '../tasks/inline.js';


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
   *  held (`resumeP`, -1 none) instead of joining the idle list. (Every thread carries its slot's
   *  counters on; results for a dead thread's waiters are told by `epoch`.) `blocked`: the
   *  dead thread was blocked at its async limit, on no list: the successor, with no task in
   *  flight, goes back on the idle list (core mReturn). */
  restart?: { resumeP: number; blocked: boolean };
  /** This thread's epoch in its slot, and whether results for an earlier thread's waiters may
   *  still arrive (tasks/waiters.ts; DESIGN.md "Late results"). */
  epoch: number;
  orphansPossible: boolean;
  /** How long (ms) this M sleeps idle before it may end its thread (Infinity: never), and how
   *  many Ms stay live whatever their idleness (DESIGN.md "Threads that come and go"). */
  idleTimeout: number;
  minLive: number;
  /** Async tasks in flight (not waiting for a Task they spawned) before this M hands its P off,
   *  or 'auto' (admit.ts; DESIGN.md "Async tasks: where they start"); Infinity: never. */
  asyncPerThread: number | 'auto';
  /** Tells the main thread this thread claimed itself for the kill of tree `token` and halts
   *  (kill.ts KillGuard.resume). */
  killClaimed?: (token: number) => void;
  /** Hands the main thread the error block of a task nobody will await or join
   *  (tasks/unobserved.ts). */
  unobserved?: UnobservedSink;
}

/** AsyncFunction's constructor: fork refuses async task functions up front. */
const AsyncFunction = (async () => {}).constructor;

export abstract class MState {
  readonly core: Core;
  readonly views: Views;
  readonly gs: GSlots;
  readonly mid: number;
  /** The P this M holds, or -1. */
  p = -1;
  readonly maxMemoryMB: number;
  /** The CPUs this process may use (MConfig.ncpu). */
  readonly ncpu: number;
  protected readonly fns: TaskFn[];
  protected readonly names: string[];
  protected readonly ids = new Map<string, number>();
  protected readonly debug: boolean;
  /** This M's block (mblock.ts). */
  protected readonly mAddr: number;
  protected asyncPending = 0;
  /** Of asyncPending, the tasks waiting for a Task they spawned: they do not count toward
   *  asyncLimit (a parent waiting on children never blocks the children's start). */
  protected parentsWaiting = 0;
  /** How many async tasks this M keeps in flight (MConfig.asyncPerThread). */
  protected readonly admit: Admission;
  /** This M handed its P off because its async tasks reached asyncLimit (core handoffP): it is
   *  on no list until one of them settles or starts waiting for a child (DESIGN.md "Async
   *  tasks: where they start"). */
  protected blocked = false;
  /** Tasks ran since this M's event loop last turned: callbacks they left may be pending
   *  (DESIGN.md "Stranded callbacks"). */
  dirty = false;
  /** The first failure of a core call made inside a task (coreFault); fatal for this M. */
  protected fault: Error | null = null;
  protected asyncSinceYield = 0;
  protected lastYield = 0;
  protected spawned = 0;
  protected finished = 0;
  protected stopping = false;
  /** The loop ended because this M idled out (mExit), not because the scheduler closed. */
  idledOut = false;
  protected readonly minLive: number;
  /** Children spawned by the tasks running now (kids.ts). */
  readonly kids: Kids;
  /** Where a detached task's error goes (Finisher.unobserved, tasks/unobserved.ts). */
  readonly unobserved: UnobservedSink | undefined;
  /** This M's waiters for the results of Tasks its tasks spawned (waiters.ts). */
  protected readonly waiters: Waiters;
  protected readonly parker: Parker;
  /** The context of the task running synchronously now (the innermost), or null. */
  running: TaskContext | null = null;
  /** The G whose task runs synchronously now (the innermost: MR_CURG), 0 none. */
  curg = 0;
  /** Task calls nested on this thread's stack: the loop's, inline forks, Gs a joiner helps with. */
  depth = 0;
  /** This M's forks (DESIGN.md "Fork-join"). */
  protected readonly fj: ForkJoin;
  protected readonly asyncFns: boolean[];
  /** The event trace of this M, when tracing is on. */
  protected readonly trace: TraceWriter | null;
  readonly tracing: boolean;
  /** Latency histograms of this M, and the spawn counter that picks the sampled Gs. */
  protected readonly lat: LatencyRecorder | null;
  protected sampled = 0;
  /** Signals of this M's tasks, by cancellation token (only those a task asked for). */
  protected readonly watch = new CancelWatch();
  /** Shared buffers received so far; set by the worker's message handler. */
  sharesSeen = 0;
  /** Marks this thread killable while it runs a kill-armed tree's own code (kill.ts). */
  readonly guard: KillGuard;
  /** Time every G and charge it (chargeTime said the P's high budget is spent). Starts true:
   *  a thread that replaced a crashed one resumes a P whose state it has not seen. */
  protected charging = true;

  constructor(core: Core, gs: GSlots, cfg: MConfig) {
    this.core = core;
    this.gs = gs;
    gs.maxMemoryMB = cfg.maxMemoryMB; // a result that finds no room names it (gslots.ts slotOf)
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
    this.waiters = new Waiters(this, cfg.epoch, cfg.orphansPossible, (op, e) => this.coreFault(op, e));
    this.parker = new Parker(this, cfg.mid, cfg.spinLimit, cfg.yieldLimit, cfg.idleTimeout, cfg.ncpu);
    this.ncpu = cfg.ncpu;
    this.minLive = cfg.minLive;
    this.admit = new Admission(cfg.asyncPerThread, () => this.roomCheck(), this.views, (mAddr(this.views, cfg.mid) + MR_ASYNC_LIMIT) >>> 2, cfg.ncpu);
    this.mAddr = mAddr(this.views, cfg.mid);
    this.guard = new KillGuard(this.views, cfg.mid, this, cfg.killClaimed ?? (() => undefined));
    this.unobserved = cfg.unobserved;
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
    if (cfg.restart?.blocked === true) this.setBlocked(true); // unblock() at the first look
  }

  /** A detached inline child failed (TaskOwner.unobservedTask): its error to the main thread. */
  unobservedTask(t: Task<unknown>, error: unknown): void {
    if (this.unobserved === undefined) return;
    try {
      this.unobserved(errorBlock(this.gs, error, t.name), t.name);
    } catch (e) {
      console.error(`stealwork: task '${t.name}' failed unobserved, and its error could not be sent to the main thread:`, e, error);
    }
  }

  /** Records what this M does now (MS_*), for stats. */
  state(s: number): void {
    this.views.u32[(this.mAddr + MR_STATE) >>> 2] = s; // plain: stats reads it, and a stale value only misreports
  }

  /** Time slept (ms), into MR_IDLE_MS. */
  protected readonly idle = (ms: number): void => {
    this.views.f64[(this.mAddr + MR_IDLE_MS) >>> 3] += ms; // owner only
  };

  /** G status transition: checked by the core in debug builds, a plain store otherwise. */
  setStatus(g: number, a: number, from: number, to: number): void {
    if (this.debug) this.core.gSetStatus(g, from, to);
    else this.views.u32[a >>> 2] = to; // G_STATUS (offset 0): plain, published by the queue or join atomics that follow
  }

  asyncInc(): void {
    this.asyncPending++;
    // Owner only; the core's mGet reads it to hand work to an M without async tasks first, and
    // recover.ts once this thread is gone.
    Atomics.store(this.views.u32, (this.mAddr + MR_ASYNC) >>> 2, this.asyncPending); // pairs with mGet's load
  }

  asyncDec(): void {
    this.asyncPending--;
    Atomics.store(this.views.u32, (this.mAddr + MR_ASYNC) >>> 2, this.asyncPending); // as in asyncInc
    if (!this.blocked) return;
    this.admit.settled();
    this.roomCheck();
  }

  /** Has this M as many async tasks in flight as it may keep (asyncLimit)? */
  protected asyncFull(): boolean {
    return this.asyncPending - this.parentsWaiting >= this.admit.limit;
  }

  /** A task's wait for a Task it spawned began (+1) or ended (-1) while the task is pinned here
   *  async (execute.ts, awaitTask). */
  parentWaits(d: number): void {
    this.parentsWaiting += d;
    if (d < 0) return;
    this.roomCheck();
  }

  /** A blocked M that has room again wakes its own sleep (PARK_ROOM), which puts it back on the
   *  idle list there (unblock): not here, because this runs inside the event loop's turn, where
   *  other tasks' continuations may run next; the sleep takes a P and runs it at once. */
  protected roomCheck(): void {
    if (!this.blocked || this.asyncFull()) return;
    const i32 = this.views.i32;
    const w = parkWord(this.views, this.mid);
    const old = Atomics.or(i32, w, PARK_ROOM); // pairs with the sleep's swap (park.ts parkSwap)
    if ((old & PARK_ROOM) === 0) Atomics.notify(i32, w, 1); // pairs with the sleep's wait on 0
  }

  /** The sleep's half of roomCheck (park.ts Sleeper.unblock): a blocked M with room goes back on
   *  the idle list (core mReturn); true when it took an idle P for work in sight (the sleep then
   *  acquires it, as after PARK_P). */
  unblock(): boolean {
    if (!this.blocked || this.asyncFull()) return false;
    this.setBlocked(false);
    this.admit.unblocked();
    return this.core.mReturn(this.mid) === STOP_RETRY;
  }

  /** blocked, and MR_BLOCKED for crash recovery (recover.ts casualties). */
  protected setBlocked(b: boolean): void {
    this.blocked = b;
    this.views.u32[(this.mAddr + MR_BLOCKED) >>> 2] = b ? 1 : 0; // owner only; read once this thread is gone
  }

  countSpawned(): void {
    this.views.f64[(this.mAddr + MR_SPAWNED) >>> 3] = ++this.spawned; // owner only; close sums them
  }

  countFinished(): void {
    this.views.f64[(this.mAddr + MR_FINISHED) >>> 3] = ++this.finished; // owner only; close sums them
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

  /** The last two names taskId resolved: a fork tree forks one name over and over, a spawn
   *  tree spawns one and joins into another (fibc: 'fibc' and 'sum'). */
  protected name0 = '';
  protected id0 = -1;
  protected name1 = '';
  protected id1 = -1;

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

  // ---- Defined by the classes above (the helpers made in the constructor take the whole M) ----
  // execute.ts (Finisher)
  abstract deliverLocal(g: number, a: number): void;
  // runinline.ts (ForkHost)
  abstract forkFrom(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown,
    a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Fork;
  abstract executeNested(g: number): void;
  abstract runInline(f: Fork, g: number): void;
  // m.ts (ContextHost, Sleeper)
  abstract spawnFrom(ctx: TaskContext, name: string, cls: number, argc: number, a0: unknown, a1: unknown, a2: unknown,
    a3: unknown, a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Task<unknown>;
  abstract joinFrom(ctx: TaskContext, name: string, args: unknown[]): JoinRequest;
  abstract parFrom(ctx: TaskContext, what: string, kind: number, name: unknown, source: unknown, combine: unknown, options: unknown): unknown;
  abstract pendingWork(): boolean;
  abstract stop(): void;
  abstract idleOut(): boolean;
  abstract drainInbox(): void;
  abstract acquire(): void;
  abstract receiveShares(): Promise<void>;
}
