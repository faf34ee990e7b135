// The context a task function gets as its first argument.

import type { Task, JoinRequest } from './task.js';
import { macrotask } from './platform.js';

/** What an M offers its running tasks; implemented by bindings/runtime/m.ts. */
export interface ContextHost {
  spawnFrom(ctx: TaskContext, name: string, args: unknown[]): Task<unknown>;
  joinFrom(ctx: TaskContext, name: string, tasks: unknown[]): JoinRequest;
  readonly mid: number;
}

/**
 * `ctx` in `task(ctx, ...args)`. Valid for the task's whole life, across awaits.
 */
export class TaskContext {
  /** @internal */ readonly host: ContextHost;
  /** @internal the G this context belongs to */ readonly g: number;
  /** @internal Tasks spawned by this task, to detach the ones never awaited or joined. */
  children: Task<unknown>[] | null = null;

  /** @internal */
  constructor(host: ContextHost, g: number) {
    this.host = host;
    this.g = g;
  }

  /** Spawns a child task on this thread's P (Go's newproc: it runs next here unless stolen). */
  spawn(name: string, ...args: unknown[]): Task<unknown> {
    return this.host.spawnFrom(this, name, args);
  }

  /** Return this from a task: its result becomes `name(ctx, ...results of tasks)`, run when
   *  every task is done (continuation-passing join; nothing waits meanwhile). */
  join<R = unknown>(name: string, ...tasks: unknown[]): JoinRequest<R> {
    return this.host.joinFrom(this, name, tasks) as JoinRequest<R>;
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
}
