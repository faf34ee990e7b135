// ctx.spawn's core side in one call (docs/DESIGN.md "Results and joins", "The cost of a task"):
// a fresh G with its fields and up to seven number arguments (G_INLINE_ARGS, as forkNew), made
// runnable as newproc makes it. The runtime takes this path for a spawn whose arguments are all
// numbers; any other goes through gfGet, the codec and newproc (or ready) as separate calls.

import { G_ARGC, G_FN, G_INDEX, G_PARENT, G_PRIO, PARENT_SPAWNER } from './shared/layout';
import { gAddr, gSetNumberArgs } from './gtable';
import { gfGet } from './gfree';
import { newproc } from './sched';
import { opCall } from './mem';

/**
 * G parent, running on M m with P p, spawns fn(x0..x6) (argc <= G_INLINE_ARGS (7) numbers; all
 * seven stored, the slots past argc never read): a G from p's free list (gfGet) gets fn, argc,
 * the number slots and their tag bytes (TAG_NUMBER in the first argc), G_PARENT =
 * PARENT_SPAWNER | m (the handle is m's until a join links it), G_INDEX = parent (the spawning
 * G, until a join links it and stores its slot there: the task dump reads it) and G_PRIO = prio (token and
 * class), then newproc (runnext; an M that traces records the spawn with `parent`). Returns g,
 * or 0 when the G table is full (nothing changed). M m holding P p only.
 */
export function spawnNew(p: i32, m: i32, fn: u32, argc: u32, x0: f64, x1: f64, x2: f64, x3: f64, x4: f64, x5: f64,
  x6: f64, prio: u32, parent: u32): u32 {
  opCall(p);
  let g = gfGet(p);
  if (g == 0) return 0;
  let gp = gAddr(g);
  // plain: g is this thread's alone until newproc's queue put publishes it; gfGet zeroed the rest
  store<u32>(gp, fn, G_FN);
  store<u32>(gp, argc, G_ARGC);
  store<u32>(gp, PARENT_SPAWNER | <u32>m, G_PARENT);
  store<u32>(gp, prio, G_PRIO);
  store<u32>(gp, parent, G_INDEX);
  gSetNumberArgs(gp, argc, x0, x1, x2, x3, x4, x5, x6);
  newproc(p, m, g, parent);
  return g;
}
