// ctx.spawn and ctx.join from a task on a worker M (docs/DESIGN.md "Results and joins",
// "Spawning at capacity"): a child becomes a G on this M's P (or runs inline when the G table is
// full); a join checks its Tasks and encodes its shape, and the task's return of it makes the
// task's G a join continuation (threads/execute.ts join, join.ts joinChildren). The spawning M only.

import { G_INDEX, G_PARENT, G_PRIO, G_SPAWN_TIME, G_TOKEN_SHIFT, PARENT_SPAWNER } from '../../../assembly/shared/layout.js';
import { encodeValue } from '../../codec/index.js';
import type { Core } from '../../core/core.js';
import type { TaskContext } from './context.js';
import { asMemoryError, joinForeignTaskError, joinTwiceTaskError, joinUsedTaskError } from '../base/errors.js';
import { spawnInline, type InlineHost } from './inline.js';
import { shapeOf } from './joinshape.js';
import { JoinRequest, Task, USE_FREE, USE_JOINED } from './task.js';
import { traceClock } from '../observe/trace.js';

/** What spawning needs of its M besides inline runs. */
export interface SpawnHost extends InlineHost {
  readonly core: Core;
  readonly p: number;
  /** Does this M record an event trace (then the core's newproc records the spawn)? */
  readonly tracing: boolean;
  /** Task id of `name`, or throws unknownTaskError. */
  taskId(name: string): number;
  /** Counts a spawn for latency sampling: true for the one in LATENCY_SAMPLE that is timed. */
  sample(): boolean;
  /** A core call inside a task failed: the error the task sees (threads/mstate.ts coreFault). */
  coreFault(op: string, e: unknown): Error;
}

/**
 * ctx.spawn(name, ...args) of the task of ctx; cls: the child's class byte, -1 to inherit. The
 * arguments: a0..a6 when `rest` is null (argc <= 7: no array per spawn), else `rest`. A spawn of
 * up to seven numbers (not sampled for latency) is one core call (spawnNew); any other writes
 * the G's arguments through the codec between gfGet and newproc.
 */
export function spawnChild(h: SpawnHost, ctx: TaskContext, name: string, cls: number, argc: number,
  a0: unknown, a1: unknown, a2: unknown, a3: unknown, a4: unknown, a5: unknown, a6: unknown,
  rest: unknown[] | null): Task<unknown> {
  const id = h.taskId(name);
  const prio = (ctx.token << G_TOKEN_SHIFT) | (cls < 0 ? ctx.cls : cls); // children inherit the token and the class
  const sampled = h.sample();
  if (rest === null && !sampled && (argc < 1 || typeof a0 === 'number') && (argc < 2 || typeof a1 === 'number') &&
    (argc < 3 || typeof a2 === 'number') && (argc < 4 || typeof a3 === 'number') && (argc < 5 || typeof a4 === 'number') &&
    (argc < 6 || typeof a5 === 'number') && (argc < 7 || typeof a6 === 'number')) {
    let g: number;
    try {
      // 0, not undefined, for the missing ones: undefined into a Wasm f64 takes the slow
      // conversion (about 18 ns an argument here).
      g = h.core.spawnNew(h.p, h.mid, id, argc, argc > 0 ? a0 as number : 0, argc > 1 ? a1 as number : 0,
        argc > 2 ? a2 as number : 0, argc > 3 ? a3 as number : 0, argc > 4 ? a4 as number : 0,
        argc > 5 ? a5 as number : 0, argc > 6 ? a6 as number : 0, prio, ctx.g);
    } catch (e) {
      throw h.coreFault('spawnNew', e);
    }
    if (g !== 0) {
      // g may run (stolen) already, but it stays this handle's G until the handle is consumed.
      const t = new Task(h, g, h.gs.gen(h.gs.addr(g)), name);
      t.parent = ctx;
      h.kids.add(ctx, h.running, t);
      h.countSpawned();
      return t;
    }
    return spawnInline(h, ctx, id, name, argsOf(argc, a0, a1, a2, a3, a4, a5, a6, rest), cls); // at maxTasks or maxMemoryMB
  }
  const args = argsOf(argc, a0, a1, a2, a3, a4, a5, a6, rest);
  const core = h.core;
  const gs = h.gs;
  let g: number;
  try { g = core.gfGet(h.p); } catch (e) { throw h.coreFault('gfGet', e); }
  if (g === 0) return spawnInline(h, ctx, id, name, args, cls); // at maxTasks or maxMemoryMB
  const a = gs.addr(g);
  try {
    gs.init(g, a, id, args, name);
  } catch (e) {
    try { core.gfPut(h.p, g); } catch (f) { throw h.coreFault('gfPut', f); }
    throw asMemoryError(e, `spawn('${name}')`, h.maxMemoryMB);
  }
  const v = gs.views;
  v.u32[(a + G_PARENT) >>> 2] = (PARENT_SPAWNER | h.mid) >>> 0; // whose handle it is, until a join links it (recover.ts detachOrphans)
  v.u32[(a + G_INDEX) >>> 2] = ctx.g; // who spawned it, until a join links it (as the core's spawnNew: the task dump reads it)
  if (prio !== 0) v.u32[(a + G_PRIO) >>> 2] = prio;
  if (sampled) v.f64[(a + G_SPAWN_TIME) >>> 3] = traceClock();
  const t = new Task(h, g, gs.gen(a), name);
  t.parent = ctx;
  h.kids.add(ctx, h.running, t);
  h.countSpawned();
  // newproc records the spawn (dated by the clock reads around this task); an M that does not trace
  // calls ready, newproc's other half, and pays nothing for tracing.
  try {
    if (!h.tracing) core.ready(h.p, g, 1);
    else core.newproc(h.p, h.mid, g, ctx.g);
  } catch (e) {
    throw h.coreFault(!h.tracing ? 'ready' : 'newproc', e);
  }
  return t;
}

/** The arguments of a spawn as one array (the codec's and the inline run's form). */
function argsOf(argc: number, a0: unknown, a1: unknown, a2: unknown, a3: unknown, a4: unknown, a5: unknown, a6: unknown,
  rest: unknown[] | null): unknown[] {
  if (rest !== null) return rest;
  switch (argc) {
    case 0: return [];
    case 1: return [a0];
    case 2: return [a0, a1];
    case 3: return [a0, a1, a2];
    case 4: return [a0, a1, a2, a3];
    case 5: return [a0, a1, a2, a3, a4];
    case 6: return [a0, a1, a2, a3, a4, a5];
    default: return [a0, a1, a2, a3, a4, a5, a6];
  }
}

/** ctx.join(name, ...args): checks the Tasks among args (this M's, not yet awaited or joined)
 *  and encodes the join's shape when args are not exactly Tasks (joinshape.ts). */
export function joinRequest(h: SpawnHost, name: string, args: unknown[]): JoinRequest {
  const id = h.taskId(name);
  // The common join, every argument a Task of this M's not yet used: args is the children's
  // array as it is, with no shape and no closure. Each is marked joined as it is checked, so a
  // Task given twice fails the check the second time (its one result cannot fill two slots:
  // the join would wait for ever).
  let k = 0;
  for (; k < args.length; k++) {
    const t = args[k];
    if (!(t instanceof Task) || t.owner !== h || t.use !== USE_FREE) break;
    t.use = USE_JOINED;
  }
  if (k === args.length) return new JoinRequest(id, args as Task<unknown>[], 0);
  for (let i = 0; i < k; i++) (args[i] as Task<unknown>).use = USE_FREE; // not this path: undone
  const marked: Task<unknown>[] = [];
  try {
    const { tasks, shape } = shapeOf(args, isTask, (t, where) => {
      if (t.owner !== h) throw joinForeignTaskError(name, where);
      if (t.use !== USE_FREE) throw marked.includes(t) ? joinTwiceTaskError(name, t.name, where) : joinUsedTaskError(name, t.name, where);
      t.use = USE_JOINED;
      marked.push(t);
    });
    let block = 0;
    if (shape !== null) {
      const gs = h.gs;
      try {
        block = encodeValue(gs.views, gs.heap, shape, `ctx.join('${name}'): its plain arguments`, gs.shared);
      } catch (e) {
        throw asMemoryError(e, `ctx.join('${name}')`, h.maxMemoryMB);
      }
    }
    return new JoinRequest(id, tasks, block);
  } catch (e) {
    for (let i = 0; i < marked.length; i++) marked[i].use = USE_FREE; // the join failed: its Tasks are the task's again
    throw e;
  }
}

function isTask(x: unknown): x is Task<unknown> {
  return x instanceof Task;
}
