// Crashed workers (docs/DESIGN.md "Crashed workers"): what the main thread does for an M whose
// thread died outside the scheduler's control (an uncaught error outside a task, process.exit
// in a task, out of memory). Everything the scheduler shares lives in the shared memory, so only
// the dead thread's JavaScript heap is lost: the G it was running and the async tasks pinned to
// it. Those fail with WorkerCrashedError, delivered exactly as the dead M would have delivered
// an error; the M slot, its P and every queue are then taken over by a new thread.
//
// Main thread only, while the dead thread is gone and before its successor starts.

import {
  G_DEAD, G_RUNNING, G_STATUS, G_WAITING, H_GCAP, H_MBASE, H_NPROCS, H_PBASE, HEADER, JOIN_DETACHED, JOIN_DONE,
  JOIN_PARENT, JOIN_WAITER_MASK, M_SIZE, MR_ASYNC, MR_CURG, MR_FINISHED, P_IDLE, P_M, P_SIZE, P_STATUS,
  PARENT_SPAWNER, SCHEDLINK_PINNED, JOIN_FORK,
} from '../../assembly/shared/layout.js';
import type { Core } from '../core/core.js';
import type { GSlots } from './gslots.js';
import { forkWake } from './fork.js';
import { pushInbox } from './inbox.js';
import { JOIN_TO_NOBODY, JOIN_TO_FORK, JOIN_TO_PARENT, joinDetach, joinFinish, joinLinked, joinWord } from './joinword.js';

/**
 * Fails G g (G_RUNNING or G_WAITING on the dead M) with `err`: into its join parent's slot, to
 * the M awaiting it, or dropped when detached; P-less forms of the core calls (global free list,
 * global queue). Returns nothing; the caller counts it finished.
 */
export function failG(gs: GSlots, core: Core, g: number, err: Error, label: string): void {
  const a = gs.addr(g);
  const v = gs.views;
  if (joinLinked(v.i32, a)) {
    const pg = gs.parentOf(a);
    const pa = gs.addr(pg);
    gs.setParentSlot(pa, gs.indexOf(a), err, true, label);
    Atomics.store(v.i32, (a + G_STATUS) >>> 2, G_DEAD);
    core.gfPut(-1, g);
    if (gs.release(pa)) core.ready(-1, pg, 1);
    return;
  }
  gs.setResult(a, err, true, label);
  Atomics.store(v.i32, (a + G_STATUS) >>> 2, G_DEAD);
  const to = joinFinish(v.i32, a); // publish: who takes it
  if (to === JOIN_TO_PARENT) {
    const pg = gs.parentOf(a);
    const pa = gs.addr(pg);
    gs.moveResultToParent(a, pa, gs.indexOf(a));
    core.gfPut(-1, g);
    if (gs.release(pa)) core.ready(-1, pg, 1);
  } else if (to > 0) {
    pushInbox(v, to - 1, g, a);
  } else if (to === JOIN_TO_NOBODY) {
    gs.dropResult(a);
    core.gfPut(-1, g);
  }
  else if (to === JOIN_TO_FORK) forkWake(v); // a joiner may sleep on it (DESIGN.md "Fork-join")
  // else: nobody awaits, joins or detached it yet; the handle's owner will find it done.
}

export interface Casualties {
  /** The G the dead M was running synchronously (0: none). */
  running: number;
  /** The Gs below it on the dead thread's stack (inline forks' joiners, helpers), innermost
   *  first: each links the next in G_SCHEDLINK (m.ts enter). */
  below: number[];
  /** Async tasks pinned to the dead M. */
  pinned: number[];
  /** The P the dead M held (-1: none); its successor resumes with it. */
  p: number;
}

/** What the dead M mid left behind: its running G, its pinned async Gs and its P. */
export function casualties(gs: GSlots, mid: number): Casualties {
  const v = gs.views;
  v.refresh();
  const u32 = v.u32;
  const mAddr = u32[(HEADER + H_MBASE) >>> 2] + mid * M_SIZE;
  let running = u32[(mAddr + MR_CURG) >>> 2];
  if (running !== 0 && Atomics.load(v.i32, (gs.addr(running) + G_STATUS) >>> 2) !== G_RUNNING) running = 0;
  const below: number[] = [];
  for (let g = running !== 0 ? gs.schedlink(gs.addr(running)) : 0; g !== 0 && below.length < 1 << 20; g = gs.schedlink(gs.addr(g))) {
    if (Atomics.load(v.i32, (gs.addr(g) + G_STATUS) >>> 2) !== G_RUNNING) break;
    below.push(g);
  }
  const pinned: number[] = [];
  const want = (SCHEDLINK_PINNED | mid) >>> 0;
  const gcap = Atomics.load(u32, (HEADER + H_GCAP) >>> 2);
  for (let g = 1; g < gcap; g++) {
    const a = gs.addr(g);
    if (gs.schedlink(a) === want && Atomics.load(v.i32, (a + G_STATUS) >>> 2) === G_WAITING) pinned.push(g);
  }
  const nprocs = u32[(HEADER + H_NPROCS) >>> 2];
  const pBase = u32[(HEADER + H_PBASE) >>> 2];
  let p = -1;
  for (let q = 0; q < nprocs; q++) {
    const pa = pBase + q * P_SIZE;
    if (Atomics.load(v.i32, (pa + P_STATUS) >>> 2) !== P_IDLE && Atomics.load(v.i32, (pa + P_M) >>> 2) === mid + 1) p = q;
  }
  return { running, below, pinned, p };
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
  const gcap = Atomics.load(v.u32, (HEADER + H_GCAP) >>> 2);
  let n = 0;
  for (let g = 1; g < gcap; g++) {
    const a = gs.addr(g);
    if (gs.parentOf(a) !== want || (joinWord(v.i32, a) & (JOIN_WAITER_MASK | JOIN_PARENT | JOIN_DETACHED)) !== 0) continue;
    const old = joinDetach(v.i32, a);
    if (old & (JOIN_WAITER_MASK | JOIN_PARENT | JOIN_DETACHED)) continue; // consumed meanwhile: not an orphan
    if (old & JOIN_DONE) { gs.dropResult(a); core.gfPut(-1, g); }
    n++;
  }
  return n;
}

/** Fails the casualties and fixes the dead M's counters for its successor. Returns how many
 *  tasks failed. */
export function failCasualties(gs: GSlots, core: Core, mid: number, c: Casualties, err: Error, names: string[]): number {
  const v = gs.views;
  const mAddr = v.u32[(HEADER + H_MBASE) >>> 2] + mid * M_SIZE;
  let n = 0;
  for (const g of c.running !== 0 ? [c.running, ...c.below, ...c.pinned] : c.pinned) {
    const a = gs.addr(g);
    gs.setSchedlink(a, 0);
    failG(gs, core, g, err, `task '${names[gs.fn(a)] ?? '?'}'`);
    n++;
  }
  // MR_ASYNC counted the pinned Gs and the async children it ran inline at capacity (m.ts
  // spawnInline); those died with the thread: count them finished so close does not wait.
  const inlineLost = Math.max(0, v.u32[(mAddr + MR_ASYNC) >>> 2] - c.pinned.length);
  v.u32[(mAddr + MR_CURG) >>> 2] = 0;
  v.u32[(mAddr + MR_ASYNC) >>> 2] = 0;
  v.f64[(mAddr + MR_FINISHED) >>> 3] += n + inlineLost;
  return n;
}
