// Root task handles: what `sched.spawn` returns on the main thread (DESIGN.md "Root tasks").
//
// A RootTask is a native Promise of the task's result, so `await task`, `Promise.all(tasks)` and
// `Promise.resolve(task)` adopt it as it is: no thenable job, no second promise. A thenable handle
// cost each of them a wrapper promise, a job and two more promises per Task, 200k tiny roots
// through `Promise.all` ran at about 0.6x the rate of `run()`'s promises.

import { TASK_FAILED, TASK_OK, TASK_PENDING } from './task.js';

// One executor for every RootTask: the Promise constructor calls it synchronously, so the
// resolvers it leaves here belong to the promise under construction (no closure per Task).
let capturedResolve: (v: unknown) => void = () => undefined;
let capturedReject: (e: unknown) => void = () => undefined;
// `any` as in the Promise constructor's own parameter types (it is generic in the value).
function capture(resolve: (v: any) => void, reject: (e: any) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

function ignore(): void {}

/**
 * A root task: a Promise of its result (`await` it any number of times, hand it to
 * `Promise.all`, `race`, ...) that also names its task. `then`, `catch` and `finally` give plain
 * Promises. Created and settled on the main thread only (the engine).
 */
export class RootTask<T = unknown> extends Promise<T> {
  /** @internal the G running it (0 until submitted, or when it never got one) */ g = 0;
  /** @internal */ gen = 0;
  /** @internal TASK_PENDING, TASK_OK or TASK_FAILED */ state = TASK_PENDING;
  /** @internal */ private res: ((v: unknown) => void) | null;
  /** @internal */ private rej: ((e: unknown) => void) | null;
  /** The task function's name. */
  readonly name: string;

  /** @internal The engine makes these; `new RootTask` elsewhere is not supported. */
  constructor(name: string) {
    super(capture);
    this.res = capturedResolve;
    this.rej = capturedReject;
    this.name = name;
  }

  /** The task's result as a Promise: the Task itself (kept for code written for Tasks). */
  result(): Promise<T> {
    return this;
  }

  /**
   * @internal Settles the task once (later calls are ignored: an abort that came first wins).
   * A failure nobody observes surfaces as an unhandledRejection, as any Promise's does (and
   * `rejectionHandled` when observed later); a `quiet` one (a forced close abandoning the Task)
   * gets a handler first, so it does not. Main thread.
   */
  settle(ok: boolean, value: unknown, quiet = false): void {
    if (this.state !== TASK_PENDING) return;
    const res = this.res!;
    const rej = this.rej!;
    this.res = this.rej = null;
    if (ok) {
      this.state = TASK_OK;
      res(value);
      return;
    }
    this.state = TASK_FAILED;
    if (quiet) Promise.prototype.then.call(this, undefined, ignore);
    rej(value);
  }

  /** 'Task', as a Task's: `Object.prototype.toString` shows `[object Task]`. */
  get [Symbol.toStringTag](): string {
    return 'Task';
  }
}

// `constructor` is Promise, so PromiseResolve (await, Promise.resolve, Promise.all's elements)
// returns a RootTask as it is instead of wrapping it as a thenable, and `then` (species) makes
// plain Promises rather than RootTasks.
Object.defineProperty(RootTask.prototype, 'constructor', { value: Promise, writable: true, configurable: true });
