// The context a task function gets as its first argument.

import type { Task, JoinRequest } from './task.js';
import type { AnyModule, JoinArgs, Stated, TaskArgs, TaskName } from './module-types.js';
import type { Fork } from './fork-handle.js';
import { macrotask } from '../host/platform.js';
import { cancelledError, optionTypeError, unknownOptionError, type AbortError } from '../base/errors.js';
import { checkPriority, priorityClass, type Priority } from './priority.js';
import { PRIO_HIGH, PRIO_NORMAL } from '../../../assembly/shared/layout.js';
import type { ParOptions, ParReduceOptions, ParSource } from './par-api.js';

/** What a task's signal aborts with: the tree was cancelled from its root. */
export function cancelReason(): AbortError {
  return cancelledError();
}

/** What an M offers its running tasks; implemented by bindings/runtime/threads/m.ts. */
export interface ContextHost {
  /** cls: the child's priority class byte, -1 to inherit ctx's. argc arguments: a0..a6 when
   *  argc <= 7 (G_INLINE_ARGS: no array per spawn), else all of them in `rest`. */
  spawnFrom(ctx: TaskContext, name: string, cls: number, argc: number, a0: unknown, a1: unknown, a2: unknown,
    a3: unknown, a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Task<unknown>;
  joinFrom(ctx: TaskContext, name: string, args: unknown[]): JoinRequest;
  /** argc arguments: a0..a6 when argc <= 7 (G_INLINE_ARGS: no array per fork), else all of
   *  them in `rest`. */
  forkFrom(ctx: TaskContext, name: string, argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown,
    a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Fork;
  /** A data-parallel call of kind `kind` (tasks/par-job.ts) made by ctx (tasks/par-call.ts). */
  parFrom(ctx: TaskContext, what: string, kind: number, name: unknown, source: unknown, combine: unknown, options: unknown): unknown;
  isCancelled(token: number): boolean;
  watchCancel(token: number, controller: AbortController): void;
  readonly mid: number;
}

/**
 * `ctx` in `task(ctx, ...args)`. Valid for the task's whole life, across awaits.
 * `TaskContext<typeof import('./tasks.js')>`, in the task module itself, type-checks the names,
 * arguments and results of the tasks it spawns, forks and joins, as `Scheduler<...>` does on
 * the main thread; a plain `TaskContext` takes any name and gives unknown results.
 */
export class TaskContext<Mod = AnyModule> {
  /** @internal type witness only: the module whose tasks the context's calls are checked by */ declare readonly __module?: Mod;
  /** @internal */ readonly host: ContextHost;
  /** @internal the G this context belongs to */ readonly g: number;
  /** @internal Tasks spawned by this task, to detach the ones never awaited or joined. */
  children: Task<unknown>[] | null = null;
  /** @internal the cancellation token this task inherited (0: none) */ readonly token: number;
  /** @internal */ controller: AbortController | null = null;
  /** @internal this task's priority class byte (PRIO_*), which its children inherit */ readonly cls: number;
  /** @internal Tasks it spawned that it is waiting for now (Awaiter, task.ts) */ awaits = 0;
  /** @internal an async task pinned to its M, not settled yet (Awaiter) */ pinned = false;

  /** @internal */
  constructor(host: ContextHost, g: number, token: number, cls: number) {
    this.host = host;
    this.g = g;
    this.token = token;
    this.cls = cls;
  }

  /**
   * True once this task's tree was cancelled (its root's signal aborted or timed out). A load
   * of one shared byte: a synchronous task can poll it in its loop.
   */
  get cancelled(): boolean {
    return this.token !== 0 && this.host.isCancelled(this.token);
  }

  /**
   * An AbortSignal that aborts when this task's tree is cancelled: pass it to fetch, timers,
   * streams. It aborts at this thread's next turn of its event loop (an awaiting task gets it at
   * once); `ctx.cancelled` is immediate.
   */
  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(cancelReason());
      else if (this.token !== 0) this.host.watchCancel(this.token, this.controller);
    }
    return this.controller.signal;
  }

  /**
   * Forks a child task (work-first fork-join, DESIGN.md "Fork-join"): `fork.join()` returns its
   * result synchronously, running it right here unless another thread stole it meanwhile. For
   * synchronous task functions, called while the task runs; a fork not joined when the task
   * returns is joined then.
   */
  fork<R = never, K extends TaskName<Mod> = TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): Fork<Stated<R, Mod, K>>;
  fork(name: string, a0?: unknown, a1?: unknown, a2?: unknown, a3?: unknown, a4?: unknown, a5?: unknown, a6?: unknown,
    ...more: unknown[]): Fork {
    // Named parameters: up to seven arguments (the G's inline slots) travel without an array;
    // `arguments` is read for its length alone (so the engine makes no arguments object), the
    // ones past seven come in `more`.
    const n = arguments.length - 1;
    if (n <= 7) return this.host.forkFrom(this as TaskContext, name, n, a0, a1, a2, a3, a4, a5, a6, null);
    return this.host.forkFrom(this as TaskContext, name, n, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
      [a0, a1, a2, a3, a4, a5, a6, ...more]);
  }

  /** Spawns a child task on this thread's P (Go's newproc: it runs next here unless stolen).
   *  Its Task gives the task's result in Mod, or R where the call states it. */
  spawn<R = never, K extends TaskName<Mod> = TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): Task<Stated<R, Mod, K>>;
  spawn(name: string, a0?: unknown, a1?: unknown, a2?: unknown, a3?: unknown, a4?: unknown, a5?: unknown, a6?: unknown,
    ...more: unknown[]): Task<unknown> {
    // As fork: up to seven arguments (the G's inline slots) travel without an array.
    const n = arguments.length - 1;
    if (n <= 7) return this.host.spawnFrom(this as TaskContext, name, -1, n, a0, a1, a2, a3, a4, a5, a6, null);
    return this.host.spawnFrom(this as TaskContext, name, -1, n, undefined, undefined, undefined, undefined, undefined, undefined, undefined,
      [a0, a1, a2, a3, a4, a5, a6, ...more]);
  }

  /**
   * Spawning with options, without mixing them into the task's arguments:
   * `ctx.with({ priority: 'low' }).spawn('index', doc)`. The child's class replaces the one it
   * would inherit from this task (and its own children inherit the new one).
   */
  with(options: { priority?: Priority }): {
    /** `ctx.spawn` with the options: a child task on this thread's P, of the class they give. */
    spawn<R = never, K extends TaskName<Mod> = TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): Task<Stated<R, Mod, K>>;
  } {
    if (options === null || typeof options !== 'object') throw optionTypeError('ctx.with: options', `must be an object, got ${options === null ? 'null' : typeof options}`);
    const { priority, ...rest } = options as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length) throw unknownOptionError(`ctx.with: options.${extra[0]}`, ['priority']);
    const cls = priority === undefined ? -1 : priorityClass(checkPriority('ctx.with', priority));
    return {
      spawn: (name: string, ...args: unknown[]) => this.host.spawnFrom(this as TaskContext, name, cls, args.length, undefined, undefined,
        undefined, undefined, undefined, undefined, undefined, args) as never,
    };
  }

  /** This task's priority class: 'high', 'normal' or 'low'. */
  get priority(): Priority {
    return this.cls === PRIO_HIGH ? 'high' : this.cls === PRIO_NORMAL ? 'normal' : 'low';
  }

  /**
   * Return this from a task: its result becomes `name(ctx, ...args)` with every Task in `args`
   * replaced by its result, run when every such Task is done (continuation-passing join; nothing
   * waits meanwhile). An argument is a Task, an array (its Task elements replaced by their
   * results, its other elements kept: `ctx.join('sum', kids)` hands `sum` one array of results,
   * however many), or any other value, passed on as it is (`ctx.join('merge', lo, hi, left,
   * right)`). A failed Task fails the join with its error. The task's result type is `name`'s
   * in the module's types (`Scheduler<typeof import('../tasks.js')>`), or R. In a context typed
   * by its module, `name` must be a task and each argument must fit its parameter (a Task of it,
   * or an array of them for an array parameter, counts as the value).
   */
  join<R = unknown, N extends TaskName<Mod> = TaskName<Mod>>(name: N, ...args: JoinArgs<TaskArgs<Mod, N>>): JoinRequest<R, N> {
    return this.host.joinFrom(this as TaskContext, name, args as unknown[]) as JoinRequest<R, N>;
  }

  /**
   * `await ctx.yield()` (Go's Gosched): lets this thread run the other tasks queued on it, and
   * timers and I/O callbacks, before this task goes on. JS cannot move a running async task to
   * another thread, so unlike Go the task resumes on the same thread, at its next turn of the
   * event loop (within a few milliseconds while it has runnable work).
   */
  yield(): Promise<void> {
    return macrotask();
  }

  /** The worker thread (M) index running this task: 1-based; the main thread is 0. */
  get thread(): number {
    return this.host.mid;
  }

  /**
   * Data-parallel map from inside a synchronous task (docs/guide.md "Data-parallel calls"), as
   * `sched.parMap`: `name(ctx, item, index, source)` per item of `source` (or, with `chunk`,
   * `name(ctx, lo, hi, source)` per leaf range), the results in item order, returned
   * synchronously: the items are split over fork-join (ctx.fork), this thread taking part.
   * Throws an item's error (the rest stop), or an AbortError when the tree is cancelled.
   */
  parMap<R = unknown>(name: string, source: ParSource, options?: ParOptions): R[] {
    return this.host.parFrom(this as TaskContext, 'ctx.parMap', 0, name, source, undefined, options) as R[];
  }

  /** `ctx.parMap` for the effect alone: returns once every item ran. */
  parForEach(name: string, source: ParSource, options?: ParOptions): void {
    this.host.parFrom(this as TaskContext, 'ctx.parForEach', 1, name, source, undefined, options);
  }

  /** Data-parallel reduce from inside a synchronous task, as `sched.parReduce`: each item's
   *  value combined by task `combine(ctx, a, b)` (associative), in item order. */
  parReduce<R = unknown>(name: string, source: ParSource, combine: string, options?: ParReduceOptions): R {
    return this.host.parFrom(this as TaskContext, 'ctx.parReduce', 2, name, source, combine, options) as R;
  }
}
