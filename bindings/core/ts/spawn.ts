// ctx.spawn's core side in one call (docs/DESIGN.md "Results and joins", "The cost of a task"):
// the twin of assembly/spawn.ts, byte for byte.

import { G_ARGC, G_FN, G_INDEX, G_PARENT, G_PRIO, PARENT_SPAWNER } from '../../../assembly/shared/layout.js';
import { gfGet } from './gfree.js';
import { gSetNumberArgs, gWord } from './gtable.js';
import { opCall, type Mem } from './mem.js';
import { newproc } from './sched.js';

const FN = G_FN >> 2;
const ARGC = G_ARGC >> 2;
const PARENT = G_PARENT >> 2;
const PRIO = G_PRIO >> 2;
const INDEX = G_INDEX >> 2;

/** G parent, running on M mi with P p, spawns fn(x0..x6) (argc <= G_INLINE_ARGS (7) numbers;
 *  all seven stored, the slots past argc never read): a G from p's free list gets fn, argc, the
 *  number slots and their tag bytes, G_PARENT = PARENT_SPAWNER | mi, G_INDEX = parent (until a
 *  join links it: the task dump reads it) and G_PRIO = prio, then
 *  newproc (runnext; an M that traces records the spawn with `parent`). Returns g, or 0 when the
 *  G table is full (nothing changed). M mi holding P p only. */
export function spawnNew(m: Mem, p: number, mi: number, fn: number, argc: number, x0: number, x1: number, x2: number,
  x3: number, x4: number, x5: number, x6: number, prio: number, parent: number): number {
  opCall(m, p);
  const g = gfGet(m, p);
  if (g === 0) return 0;
  const w = gWord(m, g); // before reading m.i32: gWord may replace the views
  const i32 = m.i32;
  // plain: g is this thread's alone until newproc's queue put publishes it; gfGet zeroed the rest
  i32[w + FN] = fn;
  i32[w + ARGC] = argc;
  i32[w + PARENT] = PARENT_SPAWNER | mi;
  i32[w + PRIO] = prio;
  i32[w + INDEX] = parent;
  gSetNumberArgs(m, w, argc, x0, x1, x2, x3, x4, x5, x6);
  newproc(m, p, mi, g, parent);
  return g;
}
