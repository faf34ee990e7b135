// Results and joins (docs/DESIGN.md "Results and joins"): the one implementation of every step
// that takes, hands on or frees a G's result. The atomic transitions of the two words live in
// joinword.ts (which the model checker runs, test/model/protocols/join.mjs); this file is their
// only caller besides forksleep.ts (joinForkMark) and fork.ts (joinMarkSpare), and the only place that decides
// who frees the G.
//
// The join word (G_JOIN) of a G:
//   finishG       the M that ran it (threads/execute.ts finish), or the main thread failing a crashed M's G
//                 (recover.ts failG): stores the result, then JOIN_DONE (joinFinish), and hands
//                 it on to whoever set a bit first
//   awaitDone     the handle's owner awaiting it (waiters.ts): its M index (joinAwait)
//   rootAwaited   the main thread, for a root G before it is readied (engine-spawn.ts submit)
//   joinChildren  the M turning a G into a join continuation (threads/execute.ts join): JOIN_PARENT on each
//                 child (the core's joinLink), and the continuation's count (joinArm,
//                 joinRelease; a child's finisher releases it through the core's finishLinked)
//   detachG       the handle's owner when nobody awaited or joined it (kids.ts): JOIN_DETACHED
//   detachOrphan  the main thread, for the handles of a crashed M's tasks (recover.ts)
// Exactly one side sees the other's bit, so each result is taken once and each G freed once.

import { G_DEAD, G_PARENT, GF_CONT, GF_SHAPED, JOIN_DETACHED, JOIN_DONE, JOIN_PARENT, JOIN_WAITER_MASK } from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import type { GSlots } from '../memory/gslots.js';
import { forkWake } from './forksleep.js';
import { pushInbox } from '../sleep/inbox.js';
import {
  JOIN_TO_FORK, JOIN_TO_NOBODY, JOIN_TO_PARENT, joinArm, joinAwait, joinDetach, joinFinish, joinRelease,
  joinWaiterInit, joinWord,
} from '../memory/joinword.js';
import { TASK_FAILED, type JoinRequest, type Task } from './task.js';
import type { Views } from '../memory/values.js';
import { takeErrorBlock, type UnobservedSink } from './unobserved.js';

/** Who finishes, joins or frees Gs: an M (threads/execute.ts), or the main thread in crash recovery. */
export interface Finisher {
  readonly gs: GSlots;
  readonly core: Core;
  readonly views: Views;
  /** The P it holds for the core's calls (-1: none, the P-less forms). */
  readonly p: number;
  /** Its M index: a result awaited on this M itself is settled here (deliverLocal), not pushed
   *  on its inbox. -1 for the main thread's recovery (never a waiter). */
  readonly mid: number;
  /** G status transition from `from` to `to` (checked by the core in debug builds). */
  setStatus(g: number, a: number, from: number, to: number): void;
  /** The result of G g (at a) is for a waiter on this M: settle it now. */
  deliverLocal(g: number, a: number): void;
  /** Where a detached G's error goes (unobserved.ts): an M's posts it to the main thread;
   *  undefined (crash recovery on the main thread) drops it. */
  readonly unobserved?: UnobservedSink;
}

/**
 * Stores G g's result (or error) and hands it on: into its join continuation's slot, to the M
 * awaiting it, or nowhere when detached; nobody yet leaves it for the handle's owner. g is
 * G_RUNNING or G_WAITING (`from`) and goes G_DEAD. `name`: the task, for the codec's messages.
 * The M that ran g (threads/execute.ts finish), or the main thread for a crashed M's G (recover.ts failG).
 */
export function finishG(f: Finisher, g: number, a: number, from: number, value: unknown, isError: boolean, name: string): void {
  const gs = f.gs;
  // The result in one slot's form (a small value written straight into its block), then the
  // common case, a child linked to a join continuation, is one core call: the core reads the
  // join word, writes the continuation's slot and releases its count (finishSlot).
  const x = gs.slotOf(value, isError, name);
  const tag = gs.tag;
  if (f.core.finishSlot(f.p, g, from, tag, x) !== 0) return;
  gs.setResultSlot(a, tag, x);
  f.setStatus(g, a, from, G_DEAD);
  // f.views.i32 is read at each use, never kept: gs.addr of another G, or a result's heap block,
  // may grow the memory and replace the views, and an old view traps past its end.
  const to = joinFinish(f.views.i32, a); // publish the result: who takes it
  if (to === JOIN_TO_PARENT) {
    const pg = gs.parentOf(a);
    const pa = gs.addr(pg);
    gs.moveResultToParent(a, pa, gs.indexOf(a));
    f.core.finishLinked(f.p, g, pg); // gfPut, the release of pg's count, ready when the last
  } else if (to > 0) {
    const wm = to - 1;
    if (wm === f.mid) f.deliverLocal(g, a);
    else pushInbox(f.views, wm, g, a);
  } else if (to === JOIN_TO_NOBODY) {
    if (isError) reportDetached(f, a, name); // detached before it failed: nobody will see it
    gs.dropResult(a);
    f.core.gfPut(f.p, g);
  } else if (to === JOIN_TO_FORK) {
    forkWake(f.views.i32); // its joiner may sleep: pairs with joinForkMark in forksleep.ts forkSleep
  }
  // else: nobody awaits, joins or detached it yet; the handle's owner will find it done.
}

/**
 * Makes G g (at a, G_WAITING) the continuation of `req` over its children (every one a G, or
 * settled inline: the caller waits for inline children still running first). A shaped join's
 * slot 0 holds its shape; the children's results follow. The last child to deliver readies g,
 * or this call does when every child was done. The joining M.
 */
export function joinChildren(f: Finisher, g: number, a: number, req: JoinRequest): void {
  const tasks = req.tasks;
  const n = tasks.length;
  if (req.shape === 0 && n >= 1 && n <= 4) {
    // The common join, one to four children that are all Gs (none ran inline: g 0), is one core
    // call (joinTasks): the steps below, with the count's atomics in the core.
    let allGs = true;
    for (let i = 0; i < n; i++) if (tasks[i].g === 0) allGs = false;
    if (allGs) {
      f.core.joinTasks(f.p, g, req.fn, n, tasks[0].g, n > 1 ? tasks[1].g : 0, n > 2 ? tasks[2].g : 0, n > 3 ? tasks[3].g : 0);
      return;
    }
  }
  const gs = f.gs;
  const v = f.views; // v.i32 read at each use (finishG says why)
  const off = req.shape !== 0 ? 1 : 0;
  gs.makeContinuation(a, req.fn, n + off, off !== 0 ? GF_CONT | GF_SHAPED : GF_CONT);
  joinArm(v.i32, a, n + off); // the children (and the shape) and the joiner's guard
  if (off !== 0) {
    gs.setBlockArg(a, n + 1, 0, req.shape);
    joinRelease(v.i32, a); // the shape's slot is filled: cannot reach 0, the guard is held
  }
  for (let i = 0; i < n; i++) {
    const t = tasks[i];
    if (t.g === 0) {
      // Ran inline (at capacity) and settled: its result goes straight into its slot.
      const x = gs.slotOf(t.value, t.state === TASK_FAILED, t.name);
      gs.setParentSlot(a, i + off, gs.tag, x);
      joinRelease(v.i32, a); // cannot reach 0: the joiner's guard is still held
      continue;
    }
    const c = t.g;
    // The core stores G_PARENT and G_INDEX, then CASes JOIN_PARENT in (unless done).
    if (f.core.joinLink(g, c, i + off) === 0) {
      // Already finished: its result waits in its own slot; move it now.
      gs.moveResultToParent(gs.addr(c), a, i + off);
      f.core.gfPut(f.p, c);
      joinRelease(v.i32, a); // cannot reach 0: the joiner's guard is still held
    }
  }
  if (joinRelease(v.i32, a)) f.core.ready(f.p, g, 1); // drop the guard
}

/**
 * awaitTask: when G g (at a) is done, takes its result into `out` and returns true (the caller
 * then frees g: gfPut); else registers M f.mid as its waiter and returns false (its finisher
 * will deliver it: deliverLocal, or this M's inbox). The handle's owner.
 */
export function awaitDone(f: Finisher, a: number, out: { ok: boolean; value: unknown }): boolean {
  if (!joinAwait(f.views.i32, a, f.mid)) return false;
  f.gs.takeResult(a, out);
  f.views.u32[(a + G_PARENT) >>> 2] = 0; // consumed without a join bit: not an orphan (detachOrphan)
  return true;
}

/** submit: the main thread (M0) awaits root G at a. Before the G is readied. */
export function rootAwaited(views: Views, a: number): void {
  joinWaiterInit(views.i32, a, 0);
}

/** Nobody will await or join Task t (spawned by f's tasks): its G frees itself when it finishes,
 *  or is freed here if done. The handle's owner. */
export function detachG(f: Finisher, t: Task<unknown>): void {
  if (t.g === 0) return; // ran inline: nothing to free
  const ca = f.gs.addr(t.g);
  if (joinDetach(f.views.i32, ca) & JOIN_DONE) {
    reportDetached(f, ca, t.name); // failed before it was detached: nobody will see it
    f.gs.dropResult(ca);
    f.core.gfPut(f.p, t.g);
  }
}

/** A detached G's result, at a, nobody will read: an error goes to the main thread (unobserved.ts),
 *  the slot left empty. Its finisher or its detacher, whichever came second. */
function reportDetached(f: Finisher, a: number, name: string): void {
  if (f.unobserved === undefined) return;
  const block = takeErrorBlock(f.gs, a);
  if (block !== 0) f.unobserved(block, name);
}

/**
 * Crash recovery: detaches G g (at a) when its handle died with the M whose tasks spawned it
 * (the caller checked G_PARENT) and nobody consumed it; frees it when done. True when it was
 * such an orphan. Main thread, while the spawner's thread is gone.
 */
export function detachOrphan(gs: GSlots, core: Core, g: number, a: number): boolean {
  const consumed = JOIN_WAITER_MASK | JOIN_PARENT | JOIN_DETACHED;
  if ((joinWord(gs.views.i32, a) & consumed) !== 0) return false;
  const old = joinDetach(gs.views.i32, a);
  if ((old & consumed) !== 0) return false; // consumed meanwhile: not an orphan
  if ((old & JOIN_DONE) !== 0) { gs.dropResult(a); core.gfPut(-1, g); }
  return true;
}
