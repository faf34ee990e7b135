// Compiled by test/types.test.ts: the correct calls must type-check, and every line under an
// expect-error directive must be an error (tsc fails on an unused directive).
import { Scheduler, type TaskContext, type Task, type Fork } from '../../dist/bindings/index.js';

export async function main(): Promise<void> {
  const s = await Scheduler.start<typeof import('./tasks.js')>({ tasks: new URL('./tasks.js', import.meta.url) });
  const n: number = await s.run('add', 1, 2);
  const g: string = await s.run('greet', 'x');
  const f: number = await s.run('fibc', 10);
  const t = s.spawn('sum', 1, 2, 3);
  const total: number = await t;
  void [n, g, f, total];

  // @ts-expect-error unknown task name
  await s.run('nope', 1);
  // @ts-expect-error wrong argument type
  await s.run('add', 1, 'two');
  // @ts-expect-error missing argument
  await s.run('add', 1);
  // @ts-expect-error a non-function export is not a task
  await s.run('notATask');
  // @ts-expect-error wrong result type
  const bad: string = await s.run('add', 1, 2);
  void bad;

  // Options: priority, signal and timeout, checked like the task's own arguments.
  const hi: number = await s.with({ priority: 'high', timeout: 100 }).run('add', 1, 2);
  void hi;
  // @ts-expect-error not a priority class
  s.with({ priority: 'urgent' });
  // @ts-expect-error with() keeps the task's argument types
  await s.with({ priority: 'low' }).run('add', 1, 'two');
  await s.close();
}

/** Scheduler.startSync is typed as Scheduler.start: the module's type checks names, arguments
 *  and results. */
export async function syncStart(): Promise<void> {
  const s: Scheduler<typeof import('./tasks.js')> = Scheduler.startSync<typeof import('./tasks.js')>({ tasks: new URL('./tasks.js', import.meta.url) });
  const n: number = await s.run('add', 1, 2);
  void n;
  // @ts-expect-error unknown task name
  await s.run('nope', 1);
  // @ts-expect-error wrong argument type
  await s.run('add', 1, 'two');
  // @ts-expect-error startSync returns the scheduler, not a promise of it
  await Scheduler.startSync({ tasks: 'x' }).then(() => undefined);
  await s.close();
}

/** A module that types its own context: the main thread sees the same results. */
export async function typedContext(): Promise<void> {
  const s = await Scheduler.start<typeof import('./typed-tasks.js')>({ tasks: new URL('./typed-tasks.js', import.meta.url) });
  const f: number = await s.run('fibc', 10);
  const g: string = await s.run('greet', 'x');
  const m: number = await s.run('many', 4);
  void [f, g, m];
  // @ts-expect-error fibc takes a number
  await s.run('fibc', 'ten');
  await s.close();
}

/** An untyped context still takes any name; a call may state its result. */
export function untyped(ctx: TaskContext): void {
  const t: Task<number> = ctx.spawn<number>('anything', 1, 'x');
  const u: Task<unknown> = ctx.spawn('anything');
  const f: Fork<string> = ctx.fork<string>('other');
  void [t, u, f];
}

/** The data-parallel calls and broadcast: task names checked, results typed by the task's. */
export async function parallel(): Promise<void> {
  const s = await Scheduler.start<typeof import('./tasks.js')>({ tasks: new URL('./tasks.js', import.meta.url) });
  const xs: number[] = await s.parMap('add', [1, 2, 3]);
  const total: number = await s.parReduce('add', 100, 'add', { identity: 0 });
  await s.parForEach('add', { start: 0, end: 10 }, { minLen: 2, timeout: 100 });
  const shared: number[] = await s.parMap('add', new Float64Array(new SharedArrayBuffer(80)), { chunk: false });
  const per: number[] = await s.broadcast('add', 1, 2);
  void [xs, total, shared, per];
  // @ts-expect-error unknown task name
  await s.parMap('nope', 3);
  // @ts-expect-error not a source
  await s.parMap('add', 'abc');
  // @ts-expect-error not an option
  await s.parMap('add', 3, { chunkSize: 10 });
  // @ts-expect-error broadcast checks the arguments as run does
  await s.broadcast('add', 1, 'two');
  await s.close();
}
