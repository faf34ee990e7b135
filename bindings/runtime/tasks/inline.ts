// Spawning at capacity (docs/DESIGN.md "Spawning at capacity"): with the G table at maxTasks (or
// the memory at maxMemoryMB), ctx.spawn runs the child now, on this thread, inside the spawning
// task (work-first, as Cilk does under pressure). Its arguments and result still go through the
// codec (copies, the same TypeErrors); the Task it returns owns no G, is settled (or, for an async
// child, settles when it does) and is awaited, joined or detached like any other. Its own spawns
// find the table as they find it. The spawning M only.

import { decodeValue } from '../../codec/index.js';
import { cancelReason, TaskContext, type ContextHost } from './context.js';
import { isCancelled, KILL_TOKEN0 } from './cancel.js';
import { copyError, copyValue } from '../memory/copy.js';
import type { GSlots } from '../memory/gslots.js';
import { applyShape, type Shape } from './joinshape.js';
import type { Kids } from './kids.js';
import type { KillGuard } from './kill.js';
import type { TaskFn } from './taskfn.js';
import { JoinRequest, Task, TASK_FAILED, TASK_PENDING, type TaskOwner } from './task.js';

export type { TaskFn };

/** What inline runs need of their M (bindings/runtime/threads/m.ts). */
export interface InlineHost extends TaskOwner, ContextHost {
  readonly gs: GSlots;
  readonly kids: Kids;
  readonly maxMemoryMB: number;
  /** Marks the thread killable while a kill-armed tree's code runs (kill.ts). */
  readonly guard: KillGuard;
  /** The context running synchronously now (the innermost), or null. */
  running: TaskContext | null;
  fn(id: number): TaskFn;
  /** An async task's continuation now lives on this M (close waits for it). */
  asyncInc(): void;
  asyncDec(): void;
  countSpawned(): void;
  countFinished(): void;
  /** The task of ctx is done: its children are detached, its signal unwatched. */
  taskDone(ctx: TaskContext): void;
  /** Its signal unwatched (ctx.controller set). */
  unwatch(ctx: TaskContext): void;
}

/** Runs child `id` of the task of ctx inline and gives its Task (settled, or settling). */
export function spawnInline(h: InlineHost, ctx: TaskContext, id: number, name: string, args: unknown[], cls: number): Task<unknown> {
  const copies = new Array<unknown>(args.length);
  for (let i = 0; i < args.length; i++) copies[i] = copyValue(h.gs, args[i], `spawn('${name}'): argument ${i + 1}`, h.maxMemoryMB);
  const t = new Task(h, 0, 0, name);
  const child = new TaskContext(ctx.host, ctx.g, ctx.token, cls < 0 ? ctx.cls : cls); // ctx's host: a kill-armed tree's guards its calls
  inlineRun(h, t, child, h.fn(id), copies);
  h.kids.add(ctx, h.running, t);
  return t;
}

/** Runs fn(ctx, ...args) for inline Task t and settles t with what it gives (a value, a
 *  throw, a join, or a promise of either). */
function inlineRun(h: InlineHost, t: Task<unknown>, ctx: TaskContext, fn: TaskFn, args: unknown[]): void {
  if (ctx.token !== 0 && isCancelled(h.gs.views, ctx.token)) { inlineSettle(h, t, ctx, false, cancelReason()); return; }
  const prev = h.running;
  const base = h.kids.top;
  h.running = ctx;
  let r: unknown;
  try {
    r = ctx.token >= KILL_TOKEN0 ? h.guard.call(fn, ctx, args) : fn(ctx, ...args); // a kill-armed tree's: marked killable
  } catch (e) {
    h.running = prev;
    if (h.kids.top !== base) h.kids.end(ctx, base, false);
    inlineSettle(h, t, ctx, false, e);
    return;
  }
  h.running = prev;
  const isAsync = r !== null && typeof r === 'object' && !(r instanceof JoinRequest) && typeof (r as PromiseLike<unknown>).then === 'function';
  if (h.kids.top !== base) h.kids.end(ctx, base, isAsync);
  if (r instanceof JoinRequest) { inlineJoin(h, t, ctx, r); return; }
  if (!isAsync) { inlineSettle(h, t, ctx, true, r); return; }
  // Its continuation lives in this thread's heap: the M keeps its event loop turning, and close
  // waits for it (counted spawned now, finished when it settles; recover.ts counts it lost).
  h.asyncInc();
  h.countSpawned();
  (r as PromiseLike<unknown>).then((v) => {
    h.asyncDec();
    h.countFinished();
    if (v instanceof JoinRequest) inlineJoin(h, t, ctx, v); else inlineSettle(h, t, ctx, true, v);
  }, (e: unknown) => {
    h.asyncDec();
    h.countFinished();
    inlineSettle(h, t, ctx, false, e);
  });
}

/** The join an inline task returned: run its function here once every child is settled. */
function inlineJoin(h: InlineHost, t: Task<unknown>, ctx: TaskContext, req: JoinRequest): void {
  if (ctx.children !== null) h.kids.detach(ctx);
  const tasks = req.tasks;
  let ready = true;
  for (let i = 0; i < tasks.length; i++) if (tasks[i].g !== 0 || tasks[i].state === TASK_PENDING) { ready = false; break; }
  if (ready) { inlineJoinNow(h, t, ctx, req, tasks); return; }
  h.asyncInc();
  void outcomes(h, tasks).then(({ settled }) => { h.asyncDec(); inlineJoinNow(h, t, ctx, req, settled); });
}

function inlineJoinNow(h: InlineHost, t: Task<unknown>, ctx: TaskContext, req: JoinRequest, settled: Task<unknown>[]): void {
  const gs = h.gs;
  const results = new Array<unknown>(settled.length);
  for (let i = 0; i < settled.length; i++) {
    if (settled[i].state === TASK_FAILED) {
      if (req.shape !== 0) gs.heap.heapFree(req.shape);
      inlineSettle(h, t, ctx, false, settled[i].value);
      return;
    }
    results[i] = settled[i].value;
  }
  let args = results;
  if (req.shape !== 0) {
    const shape = decodeValue(gs.views, req.shape, gs.shared) as Shape;
    gs.heap.heapFree(req.shape);
    args = applyShape(shape, results, 0);
  }
  const cont = new TaskContext(ctx.host, ctx.g, ctx.token, ctx.cls); // a continuation is a new call, as in a G
  if (ctx.controller !== null) h.unwatch(ctx);
  inlineRun(h, t, cont, h.fn(req.fn), args);
}

/** Settles inline Task t (quietly: nobody may observe a child's failure, as for a G). */
function inlineSettle(h: InlineHost, t: Task<unknown>, ctx: TaskContext, ok: boolean, v: unknown): void {
  h.taskDone(ctx);
  let value: unknown;
  if (ok) {
    try {
      value = copyValue(h.gs, v, `the result of task '${t.name}'`, h.maxMemoryMB);
    } catch (e) {
      ok = false;
      v = e;
    }
  }
  if (!ok) value = copyError(h.gs, v, t.name);
  t.settle(ok, value, true);
}

/** Awaits every child and gives settled, G-less Tasks carrying their outcomes (in a box: a
 *  Task is a thenable, which a promise would adopt). Also threads/execute.ts's join over inline children. */
export function outcomes(h: TaskOwner, tasks: Task<unknown>[]): Promise<{ settled: Task<unknown>[] }> {
  const settled = new Array<Task<unknown>>(tasks.length);
  return Promise.all(tasks.map((t, i) => h.awaitTask(t).then(
    (v) => { settled[i] = settledTask(h, t.name, true, v); },
    (e: unknown) => { settled[i] = settledTask(h, t.name, false, e); }))).then(() => ({ settled }));
}

/** A Task that is already settled with (ok, value) and owns no G. */
function settledTask(h: TaskOwner, name: string, ok: boolean, value: unknown): Task<unknown> {
  const t = new Task(h, 0, 0, name);
  t.settle(ok, value, true);
  return t;
}
