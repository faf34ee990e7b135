// The types a task module's own exports give its tasks: their names, arguments and results.
// Types only. A file of its own because both sides check calls by them: the Scheduler
// (`sched.run`, `sched.spawn`) on the main thread and the context (`ctx.spawn`, `ctx.fork`,
// `ctx.join`) inside a task, where a module types its context by itself
// (`TaskContext<typeof import('./tasks.js')>`, docs/guide.md "Types, CommonJS and JSDoc").

import type { JoinRequest, Task } from './task.js';

/**
 * A task function: the context first, then the arguments. The context's type and the result's
 * are left open (`never`, `any`) on purpose: a task typed by its own module
 * (`TaskContext<typeof import('./tasks.js')>`) is a TaskFunction too, and checking a name
 * against the module never asks for a task's return type, so a task that spawns another one
 * needs no return annotation unless it spawns itself (docs/DESIGN.md "Typed task modules").
 */
export type TaskFunction = (ctx: never, ...args: any[]) => any;

/** The task names a module exports. */
export type TaskName<Mod> = { [K in keyof Mod]: Mod[K] extends TaskFunction ? K : never }[keyof Mod] & string;

/** The arguments of task K (without the context); for a union of names, any one's. */
export type TaskArgs<Mod, K extends keyof Mod> = K extends keyof Mod
  ? Mod[K] extends (ctx: never, ...args: infer A) => any ? A : never
  : never;

/** What awaiting task K gives: its return value, unwrapped from a Promise, and a join in it
 *  replaced by the join's result: the R it was given (`ctx.join<number>(...)`), or else the
 *  result of the task it names in Mod; unknown when neither says. */
export type TaskResult<Mod, K extends keyof Mod> = Mod[K] extends (...args: any[]) => infer R
  ? JoinResult<Mod, Awaited<R>>
  : never;

/** T with each join in it replaced by the join's result: the R it was given
 *  (`ctx.join<number>(...)`), or else the result of the task it names in Mod; unknown when
 *  neither says. Distributes over a union (`return n < 2 ? n : ctx.join('sum', ...)`). */
type JoinResult<Mod, T> = 0 extends 1 & T ? T // any stays any (not a join of every name)
  : T extends JoinRequest<infer R, infer N>
  ? unknown extends R ? (N extends TaskName<Mod> ? TaskResult<Mod, N> : unknown) : R
  : T;

/** Mod when a scheduler or a context is not given the module's type: any task name and
 *  arguments are accepted, and results are unknown.
 *  @inline */
export type AnyModule = Record<string, (ctx: never, ...args: any[]) => unknown>;

/** R when a call states it (`ctx.spawn<number>(...)`), else task K's result in Mod. R is never
 *  inferred from where the call's value goes (`const s: string = await ctx.spawn('add', 1, 2)`
 *  must not make R string): the false branch hides it behind an index TypeScript does not infer
 *  through (NoInfer, which needs TypeScript 5.4, does the same). K's result is computed in the
 *  true branch only: a stated call leaves K every name, whose results include the caller's own
 *  (a cycle, TS7023). */
export type Stated<R, Mod, K extends keyof Mod> = [R] extends [never] ? TaskResult<Mod, K> : [R][R extends unknown ? 0 : never];

/** What `ctx.join(name, ...)` takes for a parameter P of `name`: the value, a Task of it, or for
 *  an array parameter an array whose elements may be Tasks (each replaced by its result). */
export type Joinable<P> = P | Task<P> | (P extends readonly (infer E)[] ? readonly (E | Task<E>)[] : never);

/** The arguments of `ctx.join(name, ...)`: name's, each one Joinable. */
export type JoinArgs<A> = { [I in keyof A]: Joinable<A[I]> };
