// The Fork handle: what `ctx.fork` returns (docs/DESIGN.md "Fork-join"). A file of its own, as
// task.ts is for Task: the context (context.ts) names it in ctx.fork's type, and fork-join
// (fork.ts), which makes and settles it, takes the context; neither imports the other for it.
// A Fork is used on its forker's thread only.

import { TASK_FAILED, TASK_PENDING } from './task.js';

/** Who settles a Fork: its forker's ForkJoin (an interface, so the public types name no class
 *  with private members: the ESM and CommonJS declarations must stay structurally equal). */
export interface ForkOwner {
  join(f: Fork): void;
}

/** What `ctx.fork` returns: `join()` gives the child's result (or throws its error). */
export class Fork<T = unknown> {
  // Fields declared, set in the constructor alone: no class-field initializer runs per fork.
  /** @internal */ declare readonly owner: ForkOwner;
  /** @internal the child's G (G_DEAD and unpublished when `published` is false) */ declare readonly g: number;
  /** @internal on the fork deque (false: the deque was full; the forker runs it at join) */ declare readonly published: boolean;
  /** @internal TASK_PENDING, TASK_OK or TASK_FAILED (a Task's states: threads/runinline.ts settles both) */ declare state: number;
  /** @internal join() was called: its error went to the caller, not to the implicit sync */ declare joined: boolean;
  /** @internal the result or the error, once settled */ declare value: unknown;
  /** The task function's name. */
  declare readonly name: string;
  /** @internal the forker's nesting depth on its thread (its task's frame on the fork stack) */ declare readonly depth: number;

  /** @internal */
  constructor(owner: ForkOwner, g: number, published: boolean, name: string, depth: number) {
    this.owner = owner;
    this.g = g;
    this.published = published;
    this.state = TASK_PENDING;
    this.joined = false;
    this.value = undefined;
    this.name = name;
    this.depth = depth;
  }

  /** The child's result: run here now if no other thread took it, else once its thief is done
   *  (this thread runs other tasks meanwhile). Throws the child's error. Synchronous. */
  join(): T {
    this.joined = true;
    if (this.state === TASK_PENDING) this.owner.join(this);
    if (this.state === TASK_FAILED) throw this.value;
    return this.value as T;
  }

  /** 'Fork': `Object.prototype.toString` shows `[object Fork]`. */
  get [Symbol.toStringTag](): string {
    return 'Fork';
  }
}
