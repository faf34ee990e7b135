// Crashed workers (docs/DESIGN.md "Crashed workers"): what the main thread does for an M whose
// thread died outside the scheduler's control (an uncaught error outside a task, process.exit
// in a task, out of memory). Everything the scheduler shares lives in the shared memory, so only
// the dead thread's JavaScript heap is lost: the G it was running and the async tasks pinned to
// it. Those fail with WorkerCrashedError, delivered exactly as the dead M would have delivered
// an error; the M slot, its P and every queue are then taken over by a new thread.
//
// Main thread only, while the dead thread is gone and before its successor starts.

import {
  G_RUNNING, G_STATUS, G_WAITING, H_GCAP, H_NPROCS, HEADER, MR_ASYNC, MR_BLOCKED, MR_CURG, MR_FINISHED, P_IDLE, P_M, P_STATUS,
  PARENT_SPAWNER, SCHEDLINK_PINNED,
} from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import type { GSlots } from '../memory/gslots.js';
import { detachOrphan, finishG, type Finisher } from '../tasks/join.js';
import { mAddr, pAddr } from '../memory/mblock.js';
import { internalError } from '../base/errors.js';
import { dropDeadCache } from '../memory/blockcache.js';
import { takeInbox } from '../sleep/inbox.js';

/**
 * Fails G g (`from`: G_RUNNING, the dead M's running G and those below it on its stack, or
 * G_WAITING, an async task pinned to it) with `err`, as the dead M would have finished it
 * (join.ts finishG): into its join parent's slot, to the M awaiting it, or dropped when
 * detached; with the P-less forms of the core calls (global free list, global queue). Returns
 * nothing; the caller counts it finished.
 */
export function failG(gs: GSlots, core: Core, g: number, err: Error, label: string, from: number): void {
  finishG(recoverer(gs, core), g, gs.addr(g), from, err, true, label);
}

/** The main thread as the finisher of a dead M's Gs: no P, no waiters of its own (its root
 *  tasks' results come through its inbox like any other M's). */
function recoverer(gs: GSlots, core: Core): Finisher {
  return {
    gs, core, views: gs.views, p: -1, mid: -1,
    setStatus(_g: number, a: number, _from: number, to: number): void {
      Atomics.store(gs.views.i32, (a + G_STATUS) >>> 2, to); // pairs with the loads of whoever takes the result, through the join word's or (or the parent's count) that follows
    },
    deliverLocal(g: number): void {
      throw internalError(`crash recovery delivering g=${g} to itself`); // mid -1 is nobody's waiter index
    },
  };
}

export interface Casualties {
  /** The G the dead M was running synchronously (0: none). */
  running: number;
  /** The Gs below it on the dead thread's stack (inline forks' joiners, helpers), innermost
   *  first: each links the next in G_SCHEDLINK (threads/execute.ts enter). */
  below: number[];
  /** Async tasks pinned to the dead M. */
  pinned: number[];
  /** The P the dead M held (-1: none); its successor resumes with it. */
  p: number;
  /** The dead M was blocked at its async limit (MR_BLOCKED): on no list, so its successor goes
   *  back on the idle list itself. */
  blocked: boolean;
}

/** What the dead M mid left behind: its running G, its pinned async Gs and its P. */
export function casualties(gs: GSlots, mid: number): Casualties {
  const v = gs.views;
  v.refresh();
  const u32 = v.u32;
  let running = u32[(mAddr(v, mid) + MR_CURG) >>> 2];
  if (running !== 0 && Atomics.load(v.i32, (gs.addr(running) + G_STATUS) >>> 2) !== G_RUNNING) running = 0; // pairs with the dead M's last status store (it is gone: terminate returned)
  const below: number[] = [];
  for (let g = running !== 0 ? gs.schedlink(gs.addr(running)) : 0; g !== 0 && below.length < 1 << 20; g = gs.schedlink(gs.addr(g))) {
    if (Atomics.load(v.i32, (gs.addr(g) + G_STATUS) >>> 2) !== G_RUNNING) break; // the same
    below.push(g);
  }
  const pinned: number[] = [];
  const want = (SCHEDLINK_PINNED | mid) >>> 0;
  const gcap = Atomics.load(u32, (HEADER + H_GCAP) >>> 2); // pairs with the table's growth (gfGet, under sched.lock)
  for (let g = 1; g < gcap; g++) {
    const a = gs.addr(g);
    if (gs.schedlink(a) === want && Atomics.load(v.i32, (a + G_STATUS) >>> 2) === G_WAITING) pinned.push(g); // pairs with the dead M's status stores
  }
  const nprocs = u32[(HEADER + H_NPROCS) >>> 2];
  let p = -1;
  for (let q = 0; q < nprocs; q++) {
    const pa = pAddr(v, q);
    if (Atomics.load(v.i32, (pa + P_STATUS) >>> 2) !== P_IDLE && Atomics.load(v.i32, (pa + P_M) >>> 2) === mid + 1) p = q; // pairs with acquireP's and stopM's stores
  }
  return { running, below, pinned, p, blocked: u32[(mAddr(v, mid) + MR_BLOCKED) >>> 2] !== 0 };
}

/**
 * Detaches the children whose handles died with M mid (spawned by its tasks, marked
 * PARENT_SPAWNER | mid, never awaited, joined or detached): one still running frees itself when
 * it finishes, one already done is freed here. A G back on a free list keeps stale fields, but
 * every consumer leaves a mark first: a waiter, join or detached bit, a parent id in G_PARENT
 * (a join of a finished child), or G_PARENT cleared (an await of a finished child). Only the dead
 * M's tasks held these handles, so nobody consumes one during the scan. Returns how many.
 */
export function detachOrphans(gs: GSlots, core: Core, mid: number): number {
  const v = gs.views;
  const want = (PARENT_SPAWNER | mid) >>> 0;
  const gcap = Atomics.load(v.u32, (HEADER + H_GCAP) >>> 2); // pairs with the table's growth (gfGet, under sched.lock)
  let n = 0;
  for (let g = 1; g < gcap; g++) {
    const a = gs.addr(g);
    if (gs.parentOf(a) === want && detachOrphan(gs, core, g, a)) n++;
  }
  return n;
}

/** Fails the casualties, gives back the blocks its block cache held and fixes the dead M's
 *  counters for its successor. Returns how many tasks failed. */
export function failCasualties(gs: GSlots, core: Core, mid: number, c: Casualties, err: Error, names: string[]): number {
  const v = gs.views;
  const ma = mAddr(v, mid);
  let n = 0;
  const running = c.running !== 0 ? [c.running, ...c.below] : [];
  for (const g of [...running, ...c.pinned]) {
    const a = gs.addr(g);
    gs.setSchedlink(a, 0);
    // A pinned task is G_WAITING (the core's debug build checks every transition's from).
    failG(gs, core, g, err, `task '${names[gs.fn(a)] ?? '?'}'`, running.includes(g) ? G_RUNNING : G_WAITING);
    n++;
  }
  // MR_ASYNC counted the pinned Gs and the async children it ran inline at capacity (m.ts
  // spawnInline); those died with the thread: count them finished so close does not wait.
  const inlineLost = Math.max(0, v.u32[(ma + MR_ASYNC) >>> 2] - c.pinned.length);
  dropDeadCache(v, core, mid); // the value blocks its cache held (blockcache.ts)
  v.u32[(ma + MR_CURG) >>> 2] = 0; // plain: the M's thread is gone, its successor not started
  v.u32[(ma + MR_ASYNC) >>> 2] = 0; // the same
  v.u32[(ma + MR_BLOCKED) >>> 2] = 0; // the same: its successor is told (Casualties.blocked)
  v.f64[(ma + MR_FINISHED) >>> 3] += n + inlineLost; // the same
  return n;
}

/**
 * Frees the results in M slot mid's inbox while the slot has no thread (its last one died or
 * idled out, and none was started since): each was awaited by a task of an earlier thread of
 * the slot, which died with it (DESIGN.md "Late results"; tasks/waiters.ts tells them by their
 * epoch when a thread takes them). Main thread, the inbox's owner while the slot has no thread.
 * Returns how many.
 */
export function dropLateResults(gs: GSlots, core: Core, mid: number): number {
  let n = 0;
  let g = takeInbox(gs.views, mid);
  while (g !== 0) {
    const a = gs.addr(g);
    const next = gs.schedlink(a);
    gs.dropResult(a);
    core.gfPut(-1, g);
    n++;
    g = next;
  }
  return n;
}
