// Task handles and join requests: the user-facing values that name a G.

import { joinedTaskError } from '../base/errors.js';

/** Task.use: what has been done with the Task's result; each Task has at most one use. */
export const USE_FREE = 0; // nothing yet: detached when its parent task ends
export const USE_AWAITED = 1; // `await task` (or then/catch/finally): any number of times
export const USE_JOINED = 2; // handed to ctx.join: its result goes to the join
export const USE_DETACHED = 3; // dropped by its parent task: the result is freed when it finishes

/** Task.state of a Task settled on this thread (a root Task on the main thread, a child that
 *  ran inline on a worker), and of a Fork (fork.ts). */
export const TASK_PENDING = 0;
export const TASK_OK = 1; // fulfilled: `value` is the result
export const TASK_FAILED = 2; // rejected: `value` is the error

/** Who can settle a Task: the M that spawned it (root tasks are RootTasks: root-task.ts). */
export interface TaskOwner {
  /** Registers interest in g's result; the promise settles with it. Called once per Task. */
  awaitTask(task: Task<unknown>): Promise<unknown>;
  /** A detached Task settled here failed (an inline child): report it (unobserved.ts). */
  unobservedTask?(task: Task<unknown>, error: unknown): void;
}

/** What a Task knows of the task that spawned it (its TaskContext): how many of its Tasks that
 *  task is waiting for now, and whether it is an async task pinned to its M (DESIGN.md "Async
 *  tasks: where they start"). */
export interface Awaiter {
  /** @internal */ awaits: number;
  /** @internal */ pinned: boolean;
}

/**
 * A spawned task. `await task` gives its result (or throws its error). A Task may be awaited
 * any number of times, or handed to `ctx.join` once; one neither awaited nor joined when its
 * parent task ends is detached (its result is dropped when it finishes).
 */
export class Task<T = unknown> implements PromiseLike<T> {
  /** @internal */ readonly owner: TaskOwner;
  /** @internal */ readonly g: number;
  /** @internal */ readonly gen: number;
  /** @internal USE_FREE, USE_AWAITED, USE_JOINED or USE_DETACHED */ use = USE_FREE;
  /** @internal */ promise: Promise<T> | null = null;
  /** @internal TASK_PENDING, TASK_OK or TASK_FAILED (inline children, which may settle before anyone awaited) */ state = TASK_PENDING;
  /** @internal inline children: the settled value */ value: unknown = undefined;
  /** @internal the context of the task that spawned it (spawn.ts); null for inline children */ parent: Awaiter | null = null;
  /** @internal */ res: ((v: unknown) => void) | null = null;
  /** @internal */ rej: ((e: unknown) => void) | null = null;
  /** The task function's name. */
  readonly name: string;

  /** @internal */
  constructor(owner: TaskOwner, g: number, gen: number, name: string) {
    this.owner = owner;
    this.g = g;
    this.gen = gen;
    this.name = name;
  }

  then<R1 = T, R2 = never>(onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.result().then(onfulfilled, onrejected);
  }

  /** `result().catch(onrejected)`: counts as awaiting the Task. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.result().catch(onrejected);
  }

  /** `result().finally(onfinally)`: counts as awaiting the Task. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.result().finally(onfinally);
  }

  /** The task's result as a Promise. */
  result(): Promise<T> {
    if (this.promise === null) {
      if (this.use === USE_JOINED) return Promise.reject(joinedTaskError(this.name));
      this.use = USE_AWAITED;
      this.promise = this.owner.awaitTask(this) as Promise<T>;
    }
    return this.promise;
  }

  /**
   * @internal Settles a Task this thread settles itself (a child that ran inline: "Spawning at
   * capacity"): now if awaited, else when first awaited. A failure of a Task already detached
   * (its parent ended without awaiting or joining it) is reported as unobserved (unobserved.ts;
   * one detached after it failed is reported by kids.ts); `quiet` failures are not. (Root tasks
   * are RootTasks: root-task.ts.) The spawning M.
   */
  settle(ok: boolean, value: unknown, quiet = false): void {
    if (this.state !== TASK_PENDING) return;
    if (this.res !== null) {
      if (ok) this.res(value); else this.rej!(value);
      this.res = this.rej = null;
      this.state = ok ? TASK_OK : TASK_FAILED;
      return;
    }
    this.state = ok ? TASK_OK : TASK_FAILED;
    this.value = value;
    if (!ok && !quiet && this.use === USE_DETACHED) this.owner.unobservedTask?.(this, value);
  }

  /** 'Task': `Object.prototype.toString` shows `[object Task]`. */
  get [Symbol.toStringTag](): string {
    return 'Task';
  }
}

/** What `ctx.join(name, ...args)` returns; a task returning it continues as `name`, whose
 *  result becomes the task's result. Types only: R is that result when the join says it
 *  (`ctx.join<number>(...)`), N the join function's name, by which `TaskResult` finds the result
 *  in the task module when R is left unknown. */
export class JoinRequest<R = unknown, N extends string = string> {
  /** @internal type witness only */ declare readonly __result?: R;
  /** @internal type witness only */ declare readonly __name?: N;
  /** @internal */ readonly fn: number;
  /** @internal the children, in the order their results fill the continuation's slots */ readonly tasks: Task<unknown>[];
  /**
   * @internal 0 when the join's arguments are exactly `tasks` (one result per argument);
   * otherwise the value block of its shape (joinshape.ts), which says where each result goes
   * among the plain arguments.
   */
  readonly shape: number;
  /** @internal */
  constructor(fn: number, tasks: Task<unknown>[], shape = 0) {
    this.fn = fn;
    this.tasks = tasks;
    this.shape = shape;
  }
}
