// The shape of a join (DESIGN.md "Results and joins"): `ctx.join(name, ...args)` where each
// argument is a Task (replaced by its result), an array (each Task in it replaced by its result,
// the other elements kept), or any other value (kept as it is). A join whose arguments are all
// Tasks needs no shape: its continuation's slots are the results, one per argument. Otherwise
// the continuation's slot 0 holds the shape (a value block) and slots 1.. the results, and the
// arguments are rebuilt from both when it runs.
//
// The shape is a plain value, so it crosses threads like any argument:
//   [kinds, vals, idx]
//   kinds[i] = K_VALUE  vals[i] is argument i
//              K_TASK   argument i is the next result
//              K_ALL    argument i is an array of the next vals[i] results (every element a Task)
//              K_MIXED  vals[i] is argument i with holes where idx[m] (m: the how-many-th mixed
//                       argument) says the next results go
// so a join over one array of a million Tasks has a shape of a few bytes.

import type { Task } from './task.js';

const K_VALUE = 0;
const K_TASK = 1;
const K_ALL = 2;
const K_MIXED = 3;

export type Shape = [number[], unknown[], number[][]];

/**
 * The children of a join over `args`, in slot order, and its shape (null: every argument is a
 * Task, no shape needed). `isTask` tells a Task; `check(t, where)` validates one (and may throw).
 */
export function shapeOf(args: readonly unknown[], isTask: (x: unknown) => x is Task<unknown>,
  check: (t: Task<unknown>, where: string) => void): { tasks: Task<unknown>[]; shape: Shape | null } {
  let plain = true;
  for (let i = 0; i < args.length; i++) if (!isTask(args[i])) { plain = false; break; }
  if (plain) {
    for (let i = 0; i < args.length; i++) check(args[i] as Task<unknown>, `argument ${i + 1}`);
    return { tasks: args as Task<unknown>[], shape: null };
  }
  const tasks: Task<unknown>[] = [];
  const kinds: number[] = new Array<number>(args.length);
  const vals: unknown[] = new Array<unknown>(args.length);
  const idx: number[][] = [];
  for (let i = 0; i < args.length; i++) {
    const x = args[i];
    if (isTask(x)) {
      check(x, `argument ${i + 1}`);
      tasks.push(x);
      kinds[i] = K_TASK;
    } else if (Array.isArray(x)) {
      let n = 0;
      for (let j = 0; j < x.length; j++) if (isTask(x[j])) n++;
      if (n === 0) { kinds[i] = K_VALUE; vals[i] = x; continue; }
      if (n === x.length) {
        for (let j = 0; j < x.length; j++) { check(x[j] as Task<unknown>, `argument ${i + 1}[${j}]`); tasks.push(x[j] as Task<unknown>); }
        kinds[i] = K_ALL;
        vals[i] = n;
        continue;
      }
      const rest = x.slice();
      const at: number[] = [];
      for (let j = 0; j < x.length; j++) {
        if (!isTask(x[j])) continue;
        check(x[j] as Task<unknown>, `argument ${i + 1}[${j}]`);
        tasks.push(x[j] as Task<unknown>);
        rest[j] = undefined;
        at.push(j);
      }
      kinds[i] = K_MIXED;
      vals[i] = rest;
      idx.push(at);
    } else {
      kinds[i] = K_VALUE;
      vals[i] = x;
    }
  }
  return { tasks, shape: [kinds, vals, idx] };
}

/** The join function's arguments: the shape filled with `results` (read from `from` on). */
export function applyShape(shape: Shape, results: readonly unknown[], from: number): unknown[] {
  const [kinds, vals, idx] = shape;
  const args = new Array<unknown>(kinds.length);
  let k = from;
  let m = 0;
  for (let i = 0; i < kinds.length; i++) {
    switch (kinds[i]) {
      case K_TASK: args[i] = results[k++]; break;
      case K_ALL: {
        const n = vals[i] as number;
        const a = new Array<unknown>(n);
        for (let j = 0; j < n; j++) a[j] = results[k++];
        args[i] = a;
        break;
      }
      case K_MIXED: {
        const a = vals[i] as unknown[];
        for (const j of idx[m++]) a[j] = results[k++];
        args[i] = a;
        break;
      }
      default: args[i] = vals[i];
    }
  }
  return args;
}
