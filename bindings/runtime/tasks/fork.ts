// Work-first fork-join (docs/DESIGN.md, "Fork-join"): `ctx.fork(name, ...args)` puts a child G
// on the forking P's fork deque and returns a Fork; `fork.join()` takes the child back and runs
// it inline on this thread's stack when no thief took it (Cilk's work-first order: the forker
// goes on with its own work and the child costs a call when nobody is idle), or, when a thief
// did, runs other Gs until the child's result is there (helping, the thief's deque first), and
// sleeps only when there is nothing to run. A task's forks not joined when it returns are
// joined then (Cilk's implicit sync).
//
// Who may call what: everything here runs on the forker's M, on its own thread; a Fork never
// leaves it (the codec refuses it). The thief's side is the ordinary M loop (threads/execute.ts execute and
// finish), which only has to date the steal (G_INDEX) and wake a sleeping joiner (forksleep.ts
// forkWake).

import {
  G_ARG_TAGS, G_ARGC, G_ARGS, G_FN, G_INDEX, G_PARENT, G_PRIO, G_TOKEN_SHIFT,
  GF_FORK, H_NPROCS, HEADER, JOIN_DONE, MR_FORK_SLEEPS, PARENT_SPAWNER, S_RT_FORK_SLEEPERS,
} from '../../../assembly/shared/layout.js';
import { mAddr } from '../memory/mblock.js';
import type { Core } from '../../core/core.js';
import type { TaskContext } from './context.js';
import type { GSlots } from '../memory/gslots.js';
import { freeSlot, writeSlot, type Views } from '../memory/values.js';
import { forkSleep, forkWake } from './forksleep.js';
import { joinMarkSpare } from '../memory/joinword.js';
import { TASK_FAILED, TASK_OK, TASK_PENDING } from './task.js';
import { Fork, type ForkOwner } from './fork-handle.js';

export { Fork, type ForkOwner };
import {
  forkAsyncTaskError, forkDepthError, forkFromAsyncError, forkNotSyncError, forkOutsideError, forkTableFullError, internalError,
} from '../base/errors.js';

const SLEEPERS_W = S_RT_FORK_SLEEPERS >>> 2;

/**
 * How many task calls may nest on one thread's stack (the task the loop started, the forks it
 * runs inline, the Gs a joiner helps with): a fork past it throws a RangeError instead of
 * running into the engine's own stack limit in the middle of the runtime's bookkeeping. Each
 * level costs the task's own frame plus a few of the runtime's; on a Node 20 worker's default
 * stack a chain of forks (test/fixtures/fork-tasks.mjs forkChain) ran 12,000 levels deep and
 * broke before 20,000, so the limit leaves the task's own frames a wide margin.
 */
export const FORK_MAX_DEPTH = 2000;
/**
 * A joiner helps with any G (its own P's queue, any fork deque) only while its thread's nesting
 * is below this, so helping with unrelated work leaves most of the stack to the Gs it runs and
 * their own inline forks. Deeper, it helps only by leapfrogging (the thief's deque: the stolen
 * fork's own descendants, which run no deeper than they would on one P; DESIGN.md "Fork-join",
 * stack depth), up to FORK_MAX_DEPTH, and otherwise waits.
 */
export const HELP_MAX_DEPTH = 256;
/** Helping rounds that found nothing before a joiner sleeps on S_RT_FORK_EPOCH. */
const HELP_SPINS = 64;
/**
 * Of those rounds, one in HELP_SCAN_EVERY looks everywhere a joiner may help (its P's queue and
 * every P's fork deque: O(P) reads); the others look at the thief's deque alone (leapfrogging:
 * where the stolen fork's own forks appear). Every round a full look made a joiner's empty wait
 * cost HELP_SPINS * P reads: 4,096 at 64 Ps (DESIGN.md "Scaling").
 */
const HELP_SCAN_EVERY = 16;


/** What the M offers fork-join (implemented by bindings/runtime/threads/m.ts). */
export interface ForkHost {
  readonly core: Core;
  readonly gs: GSlots;
  readonly views: Views;
  readonly mid: number;
  /** The P this M holds. */
  readonly p: number;
  /** The G running synchronously now (the innermost), 0 none. */
  readonly curg: number;
  /** Task calls nested on this thread's stack now. */
  readonly depth: number;
  /** The context of the task running synchronously now (the innermost), or null. */
  readonly running: TaskContext | null;
  /** Task id of `name`, or throws unknownTaskError. */
  taskId(name: string): number;
  /** Is task `id` an async function (fork runs synchronous ones only)? */
  isAsyncTask(id: number): boolean;
  /** Runs fork G g (G_RUNNING, taken back by forkPop, or never published) inline, settling f. */
  runInline(f: Fork, g: number): void;
  /** Runs G g (G_RUNNING, from forkHelp) as the loop would, nested. */
  executeNested(g: number): void;
  /** Counts a spawned task (close() waits for spawned == finished). */
  countSpawned(): void;
}

/** The error a forked task's result is when it is not synchronous. */
export function notSyncError(name: string, r: unknown): TypeError {
  const what = r !== null && typeof r === 'object' && typeof (r as PromiseLike<unknown>).then === 'function' ? 'a promise' : 'a ctx.join request';
  return forkNotSyncError(name, what);
}

/** Spare Gs a ForkJoin keeps (see ForkJoin.spare). */
const SPARE_MAX = 16;

/** Writes fn and argc <= G_INLINE_ARGS (7) arguments into fresh G at a (GSlots.init without
 *  an array), freeing what it wrote when one cannot cross threads. */
function initArgs(v: Views, gs: GSlots, a: number, fn: number, argc: number, a0: unknown, a1: unknown, a2: unknown,
  a3: unknown, a4: unknown, a5: unknown, a6: unknown, name: string): void {
  v.u32[(a + G_FN) >>> 2] = fn;
  v.u32[(a + G_ARGC) >>> 2] = argc;
  let i = 0;
  try {
    for (; i < argc; i++) {
      const x = i === 0 ? a0 : i === 1 ? a1 : i === 2 ? a2 : i === 3 ? a3 : i === 4 ? a4 : i === 5 ? a5 : a6;
      writeSlot(v, gs.heap, a + G_ARG_TAGS + i, a + G_ARGS + 8 * i, x, name, i, gs.shared);
    }
  } catch (e) {
    for (let j = 0; j < i; j++) freeSlot(v, gs.heap, a + G_ARG_TAGS + j, a + G_ARGS + 8 * j);
    throw e;
  }
}

/** One M's fork-join state: the stack of its tasks' pending Forks, in fork order. */
export class ForkJoin implements ForkOwner {
  private readonly host: ForkHost;
  /** Forks of the tasks on this thread's stack, oldest first; a task's own start at the
   *  `top` its call saw (the M's execute and runInline keep the bases). */
  private readonly stack: Array<Fork | null> = [];
  /** Entries in use in `stack`. */
  top = 0;
  private readonly out = { ok: true, value: undefined as unknown };

  /** The last task name fork resolved, its id, and the last forker context checked: a fork
   *  tree forks one name from one context over and over (no Map lookup per fork). */
  private lastName = '';
  private lastId = -1;
  private lastCtx: TaskContext | null = null;

  /**
   * Spare Gs: a G this M ran inline is kept here for the next fork (forkNew reuses it) instead
   * of going back to the P's free list, at most SPARE_MAX, and all returned between two of the
   * loop's tasks (flush). Each is G_DEAD and marked as a done orphan (forkNew's spawner mark in
   * G_PARENT, JOIN_DONE), so crash recovery frees them with the dead thread's other orphans
   * (recover.ts detachOrphans). The marks are plain stores: only this thread touches the G until
   * it is freed, and recovery reads them only once this thread is gone.
   */
  private readonly spare: number[] = [];
  spareN = 0;

  constructor(host: ForkHost) {
    this.host = host;
  }

  /** Keeps G g (at a, G_DEAD after an inline run, still spawner-marked) for the next fork, or
   *  frees it when SPARE_MAX are kept. */
  putG(g: number, a: number): void {
    const h = this.host;
    if (this.spareN === SPARE_MAX) { h.core.forkDone(h.p, g); return; }
    joinMarkSpare(h.views.i32, a); // plain: see `spare`
    this.spare[this.spareN++] = g;
  }

  /** Returns the spare Gs to the P's free list. The M between two tasks, holding its P. */
  flush(): void {
    const h = this.host;
    while (this.spareN !== 0) h.core.forkDone(h.p, this.spare[--this.spareN]);
  }

  /** `ctx.fork(name, ...args)` (DESIGN.md "Fork-join", steps 1-2): argc arguments, a0..a6
   *  when argc <= 7 (G_INLINE_ARGS), else all in `rest`. The common case is written out here: the
   *  name and forker of the last fork, up to seven numbers, a spare G or one from the free list,
   *  room on the deque; everything else is forkAny's. */
  fork(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown,
    a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Fork {
    const h = this.host;
    if (ctx !== h.running || name !== this.lastName || ctx !== this.lastCtx || h.depth >= FORK_MAX_DEPTH || rest !== null ||
      (argc > 0 && typeof a0 !== 'number') || (argc > 1 && typeof a1 !== 'number') || (argc > 2 && typeof a2 !== 'number') ||
      (argc > 3 && typeof a3 !== 'number') || (argc > 4 && typeof a4 !== 'number') || (argc > 5 && typeof a5 !== 'number') ||
      (argc > 6 && typeof a6 !== 'number')) {
      return this.forkAny(ctx, name, argc, a0, a1, a2, a3, a4, a5, a6, rest);
    }
    // Numbers only: the whole fork is one core call (a spare G, its fields, the push). The core
    // stores all seven slots: 0 past argc (an undefined would cost a conversion each).
    const spare = this.spareN !== 0 ? this.spare[--this.spareN] : 0;
    const g = argc <= 3
      ? h.core.forkNew(h.p, h.mid, spare, this.lastId, argc, argc > 0 ? a0 as number : 0, argc > 1 ? a1 as number : 0, argc > 2 ? a2 as number : 0, 0, 0, 0, 0)
      : h.core.forkNew(h.p, h.mid, spare, this.lastId, argc, a0 as number, a1 as number, a2 as number, a3 as number,
        argc > 4 ? a4 as number : 0, argc > 5 ? a5 as number : 0, argc > 6 ? a6 as number : 0);
    return this.pushFork(g, name);
  }

  /** fork for any case: the checks (DESIGN.md "Fork-join", step 1), then either path. */
  private forkAny(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown,
    a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Fork {
    const h = this.host;
    if (ctx !== h.running) {
      throw forkOutsideError(name);
    }
    const id = name === this.lastName ? this.lastId : this.resolve(name);
    if (ctx !== this.lastCtx) this.checkForker(ctx, name);
    if (h.depth >= FORK_MAX_DEPTH) {
      throw forkDepthError(name, h.depth, FORK_MAX_DEPTH);
    }
    let g: number;
    if (rest === null && (argc < 1 || typeof a0 === 'number') && (argc < 2 || typeof a1 === 'number') &&
      (argc < 3 || typeof a2 === 'number') && (argc < 4 || typeof a3 === 'number') && (argc < 5 || typeof a4 === 'number') &&
      (argc < 6 || typeof a5 === 'number') && (argc < 7 || typeof a6 === 'number')) {
      const spare = this.spareN !== 0 ? this.spare[--this.spareN] : 0;
      g = h.core.forkNew(h.p, h.mid, spare, id, argc, argc > 0 ? a0 as number : 0, argc > 1 ? a1 as number : 0, argc > 2 ? a2 as number : 0,
        argc > 3 ? a3 as number : 0, argc > 4 ? a4 as number : 0, argc > 5 ? a5 as number : 0, argc > 6 ? a6 as number : 0);
    } else {
      g = this.forkValues(ctx, id, name, argc, a0, a1, a2, a3, a4, a5, a6, rest);
    }
    return this.pushFork(g, name);
  }

  /** The Fork of G g (forkNew's or forkValues' result: -g when the deque was full, 0 when the
   *  G table is), counted as spawned and pushed on the fork stack. */
  private pushFork(g: number, name: string): Fork {
    if (g === 0) throw forkTableFullError(name);
    const h = this.host;
    h.countSpawned();
    const f = g > 0 ? new Fork(this, g, true, name, h.depth) : new Fork(this, -g, false, name, h.depth);
    this.stack[this.top++] = f;
    return f;
  }

  /** Task id of `name` for fork, checked synchronous; cached as the last name. */
  private resolve(name: string): number {
    const h = this.host;
    const id = h.taskId(name);
    if (h.isAsyncTask(id)) throw forkAsyncTaskError(name);
    this.lastName = name;
    this.lastId = id;
    return id;
  }

  /** Refuses a fork from an async task; remembers ctx as checked. */
  private checkForker(ctx: TaskContext, name: string): void {
    const h = this.host;
    const gs = h.gs;
    if (h.isAsyncTask(gs.fn(gs.addr(ctx.g)))) throw forkFromAsyncError(name);
    this.lastCtx = ctx;
  }

  /** fork's general form (any values, any count): gfGet, the arguments through the codec, then
   *  forkPush. Returns g on the deque, or -g when the deque was full. */
  private forkValues(ctx: TaskContext, id: number, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown,
    a3: unknown, a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): number {
    const h = this.host;
    const core = h.core;
    const gs = h.gs;
    const g = core.gfGet(h.p);
    if (g === 0) throw forkTableFullError(name);
    const a = gs.addr(g);
    try {
      if (rest !== null) gs.init(g, a, id, rest, name);
      else initArgs(h.views, gs, a, id, argc, a0, a1, a2, a3, a4, a5, a6, name);
    } catch (e) {
      core.gfPut(h.p, g);
      throw e;
    }
    const u32 = h.views.u32;
    u32[(a + G_PARENT) >>> 2] = (PARENT_SPAWNER | h.mid) >>> 0; // whose it is, for crash recovery
    u32[(a + G_PRIO) >>> 2] = ((ctx.token << G_TOKEN_SHIFT) | GF_FORK | ctx.cls) >>> 0; // the token and class go down
    if (core.forkPush(h.p, h.mid, g, h.curg) === 0) return -g; // the trace's parent: the G running now
    // New work while a joiner may sleep: wake them all, once (as forkNew does). Pairs with the
    // sleeper's flag store in forkSleep.
    const i32 = h.views.i32;
    if (Atomics.load(i32, SLEEPERS_W) !== 0 && Atomics.exchange(i32, SLEEPERS_W, 0) !== 0) forkWake(i32); // pairs with the sleeper's flag store in forkSleep
    return g;
  }

  /** Settles pending Fork f (DESIGN.md "Fork-join", steps 3-5), then takes it off the fork
   *  stack when it is the newest entry of its forker's frame (joins in LIFO order, as fork-join
   *  code makes them, leave the implicit sync nothing to do). */
  join(f: Fork): void {
    const h = this.host;
    if (!f.published) h.runInline(f, f.g);
    else {
      const g = h.core.forkPop(h.p, h.mid);
      if (g === f.g) h.runInline(f, g); // f is the newest fork on this P: the common case
      else this.settle(f, g);
    }
    const top = this.top - 1;
    if (top >= 0 && this.stack[top] === f && f.depth === h.depth) {
      this.stack[top] = null;
      this.top = top;
    }
  }

  /** Settles published Fork f; g: what a forkPop already gave (-1: nothing yet). */
  private settle(f: Fork, g: number): void {
    const h = this.host;
    while (f.state === TASK_PENDING) {
      if (g < 0) g = h.core.forkPop(h.p, h.mid);
      if (g === 0) {
        this.waitStolen(f); // the deque is empty: a thief took f, and everything forked before it
        return;
      }
      // The newest fork on this P: f itself, or one forked after f by a task on this stack and
      // not joined yet, which runs now instead of later (it cannot wait on f's joiner).
      h.runInline(g === f.g ? f : this.pendingOf(g), g);
      g = -1;
    }
  }

  /** The pending Fork whose G is g (on this thread's fork stack). */
  private pendingOf(g: number): Fork {
    for (let i = this.top - 1; i >= 0; i--) {
      const f = this.stack[i]!;
      if (f.g === g && f.state === TASK_PENDING && f.published) return f;
    }
    throw internalError(`fork deque of P${this.host.p} gave G ${g}, which no pending fork on M${this.host.mid} names`);
  }

  /**
   * f was stolen: run other Gs until its result is there (the thief's fork deque first), and
   * sleep on S_RT_FORK_EPOCH when nothing is runnable (DESIGN.md "Fork-join", step 5).
   */
  private waitStolen(f: Fork): void {
    const h = this.host;
    const gs = h.gs;
    const v = h.views; // v.i32 read after each gs.addr, never kept: a refresh replaces it
    let idle = 0;
    for (;;) {
      const a = gs.addr(f.g);
      const i32 = v.i32;
      if (gs.joinWord(a) & JOIN_DONE) break; // pairs with the thief's orJoin(DONE) in finish
      const thief = Atomics.load(i32, (a + G_INDEX) >>> 2) - 1; // pairs with the thief's store in threads/execute.ts run: its P, stored as it started f
      const depth = h.depth;
      if (depth < FORK_MAX_DEPTH) {
        // Shallow: anything runnable. Deep: only the thief's forks (f's descendants), which a
        // one-P run would nest deeper than this anyway; a deep joiner that took nothing else
        // cannot grow the stack past what the program itself needs.
        const g = h.core.forkHelp(h.p, h.mid, thief, depth < HELP_MAX_DEPTH && idle % HELP_SCAN_EVERY === 0 ? 1 : 0);
        if (g !== 0) {
          h.executeNested(g);
          idle = 0;
          continue;
        }
      }
      if (++idle < HELP_SPINS) continue;
      idle = 0;
      v.f64[(mAddr(v, h.mid) + MR_FORK_SLEEPS) >>> 3]++; // owner only: stats' forkSleeps
      // Sleep (forksleep.ts): read the epoch, raise the sleepers flag, mark f (its finisher bumps
      // the epoch), look once more, then wait while the epoch is unchanged.
      forkSleep(i32, a, () => this.workInSight(thief));
    }
    const a = gs.addr(f.g);
    const out = this.out;
    gs.takeResult(a, out);
    h.views.u32[(a + G_PARENT) >>> 2] = 0; // consumed: not a crash orphan (recover.ts)
    h.core.gfPut(h.p, f.g);
    f.state = out.ok ? TASK_OK : TASK_FAILED;
    f.value = out.value;
    out.value = undefined;
  }

  /** Would waitStolen's forkHelp find something now: a G on the thief's fork deque, or (not
   *  deep) on any fork deque or this P's own queue? */
  private workInSight(thief: number): boolean {
    const h = this.host;
    if (h.depth >= FORK_MAX_DEPTH) return false;
    const core = h.core;
    if (h.depth >= HELP_MAX_DEPTH) return thief >= 0 && thief !== h.p && core.forkLen(thief) !== 0;
    if (core.runqEmpty(h.p) === 0) return true;
    const n = h.views.u32[(HEADER + H_NPROCS) >>> 2]; // plain: fixed at init
    for (let v = 0; v < n; v++) if (core.forkLen(v) !== 0) return true;
    return false;
  }

  /**
   * Cilk's implicit sync: joins the forks above `base` that the returning task left pending,
   * newest first (so each forkPop gives the fork being joined). Returns the first error (in fork
   * order) among the forks the task never called join() on, or NO_ERROR. The task's call only.
   */
  sync(base: number): unknown {
    let err: unknown = NO_ERROR;
    for (let i = this.top - 1; i >= base; i--) {
      const f = this.stack[i]!;
      if (f.state === TASK_PENDING) { if (f.published) this.settle(f, -1); else this.host.runInline(f, f.g); }
      if (f.state === TASK_FAILED && !f.joined) err = f.value;
      this.stack[i] = null;
    }
    this.top = base;
    return err;
  }
}

/** sync's "no fork failed". */
export const NO_ERROR: unknown = Symbol('no error');
