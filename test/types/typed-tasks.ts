// A task module that types its context by its own exports: inside a task, ctx.spawn, ctx.fork,
// ctx.join and ctx.with(...).spawn check task names, arguments and results as sched.run does.
// Compiled by test/types.test.ts; every line under an expect-error directive must be an error.
import type { JoinRequest, TaskContext } from '../../dist/bindings/index.js';

type Ctx = TaskContext<typeof import('./typed-tasks.js')>;

export function add(_ctx: Ctx, a: number, b: number): number {
  return a + b;
}

// Not recursive: no return annotation needed, the module's type is read without it.
export async function greet(ctx: Ctx, name: string) {
  const n: number = await ctx.spawn('add', 1, 2);
  return `hello ${name} ${n}`;
}

export function sum(_ctx: Ctx, ...xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

export function total(_ctx: Ctx, xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

// A task that spawns itself states its result, as a recursive function does in TypeScript.
export function fibc(ctx: Ctx, n: number): number | JoinRequest<number> {
  if (n < 2) return n;
  return ctx.join('sum', ctx.spawn('fibc', n - 1), ctx.spawn('fibc', n - 2));
}

export function ffib(ctx: Ctx, n: number): number {
  if (n < 2) return n;
  const b = ctx.fork('ffib', n - 2);
  return ffib(ctx, n - 1) + b.join();
}

export async function fib(ctx: Ctx, n: number): Promise<number> {
  if (n < 2) return n;
  const [a, b] = await Promise.all([ctx.spawn('fib', n - 1), ctx.spawn('fib', n - 2)]);
  return a + b;
}

// A join over an array of Tasks, beside plain values.
export function many(ctx: Ctx, n: number) {
  const kids = Array.from({ length: n }, (_, i) => ctx.spawn('add', i, 1));
  return ctx.join('total', kids);
}

// A join or a spawn that states its result, in a typed context: the stated type wins, and the
// caller needs no annotation (K is then every name; their results are not computed).
export function fibStated(ctx: Ctx, n: number): number | JoinRequest<number> {
  if (n < 2) return n;
  return ctx.join<number>('sum', ctx.spawn('fibStated', n - 1), ctx.spawn('fibStated', n - 2));
}
export async function stated(ctx: Ctx) {
  return await ctx.spawn<string>('greet', 'x');
}

export async function misuse(ctx: Ctx): Promise<void> {
  const s: string = await ctx.spawn('greet', 'x');
  const m: number = await ctx.spawn('many', 3); // a join's result: total's number
  const p: number = await ctx.with({ priority: 'low' }).spawn('add', 1, 2);
  const st: string = await ctx.spawn('stated'); // stated's result, read without a cycle
  void [s, m, p, st];

  // @ts-expect-error a misspelt task name
  ctx.spawn('ad', 1, 2);
  // @ts-expect-error wrong argument type
  ctx.spawn('add', 1, 'two');
  // @ts-expect-error missing argument
  ctx.spawn('add', 1);
  // @ts-expect-error wrong result type
  const bad: string = await ctx.spawn('add', 1, 2);
  // @ts-expect-error a fork checks its name too
  ctx.fork('fibx', 3);
  // @ts-expect-error and its result
  const badFork: string = ctx.fork('ffib', 3).join();
  // @ts-expect-error a join's name is a task
  ctx.join('summ', 1, 2);
  // @ts-expect-error a join's argument fits the parameter: sum takes numbers, not strings
  ctx.join('sum', ctx.spawn('greet', 'x'));
  // @ts-expect-error an array parameter takes an array of Tasks, not one Task
  ctx.join('total', ctx.spawn('add', 1, 2));
  // @ts-expect-error with(...).spawn checks the arguments
  ctx.with({ priority: 'high' }).spawn('add', 'one', 2);
  void [bad, badFork];
}
