// The join word and the join count of a G (docs/DESIGN.md "Results and joins"): who takes a
// finished G's result, exactly once. Every atomic transition of both words is here, so the
// model checker (test/model/protocols/join.mjs) runs this file as the runtime does. Callers:
// join.ts (the protocol's steps, the only place that acts on what these return), forksleep.ts
// (joinForkMark) and fork.ts (joinMarkSpare). Any thread; a is the G's byte address.
//
// G_JOIN: JOIN_DONE | JOIN_PARENT | JOIN_DETACHED | JOIN_FORK | waiter M index + 1 (low 16 bits).
//   JOIN_DONE      finishG (joinFinish), after the result is stored: Atomics.or
//   waiter         awaitDone (joinAwait): CAS, only while not done; rootAwaited (joinWaiterInit)
//                  for a root, before the G is readied
//   JOIN_PARENT    joinChildren, through the core's joinLink (assembly/join.ts and its twin:
//                  a Wasm CAS is one instruction, a JS one a builtin call): CAS, only while
//                  not done
//   JOIN_DETACHED  detachG, detachOrphan (joinDetach): Atomics.or
//   JOIN_FORK      forksleep.ts forkSleep (joinForkMark): CAS, only while not done
//   spare mark     fork.ts putG (joinMarkSpare): JOIN_DONE on a G its M keeps for the next
//                  fork, a plain store (only that thread knows the G); the core's forkNew and
//                  forkDone (assembly/fork.ts, twin bindings/core/ts/fork.ts) clear it again
// Whoever sets its bit second sees the other's in the value it replaced, and hands the result
// on: the finisher to the waiter, parent or nobody; the waiter or linker takes it itself; the
// detacher frees it. The CAS writers never set a bit over DONE.
//
// G_PENDING of a join continuation: its children not yet delivered plus the joiner's guard
// (joinArm); each delivery and the guard's drop subtract 1 (joinRelease here for the joiner;
// the core's finishLinked for a child's finisher, assembly/join.ts), and whoever takes it
// to 0 readies the continuation. The guard keeps it from reaching 0 while the joiner is still
// linking children.

import {
  G_JOIN, G_PENDING, JOIN_DETACHED, JOIN_DONE, JOIN_FORK, JOIN_PARENT, JOIN_WAITER_MASK,
} from '../../../assembly/shared/layout.js';

/** joinFinish: the result goes into the join parent's slot (then joinRelease the parent). */
export const JOIN_TO_PARENT = -1;
/** joinFinish: the G was detached: free its result and the G. */
export const JOIN_TO_NOBODY = -2;
/** joinFinish: a stolen fork whose joiner may sleep (JOIN_FORK): wake it (forksleep.ts forkWake);
 *  the result stays for the joiner. */
export const JOIN_TO_FORK = -3;

/** The join word of the G at a. Any thread. */
export function joinWord(i32: Int32Array, a: number): number {
  return Atomics.load(i32, (a + G_JOIN) >>> 2); // pairs with the RMWs below
}

/** submit: the main thread (M0) will await this root G. Before the G is readied (nobody else
 *  can see it yet). */
export function joinWaiterInit(i32: Int32Array, a: number, mid: number): void {
  Atomics.store(i32, (a + G_JOIN) >>> 2, mid + 1); // pairs with joinFinish's or on the M that runs it (published by ready's queue put)
}

/**
 * finish / failG, after storing the G's result: publishes it (JOIN_DONE) and says who takes it:
 * JOIN_TO_PARENT, a waiter's M index + 1 (> 0: push it on that M's inbox), JOIN_TO_NOBODY, or
 * 0 (nobody yet: the handle's owner will find it done). The finishing M.
 */
export function joinFinish(i32: Int32Array, a: number): number {
  const old = Atomics.or(i32, (a + G_JOIN) >>> 2, JOIN_DONE); // release: pairs with the CAS of joinAwait/joinLink, the or of joinDetach
  if ((old & JOIN_PARENT) !== 0) return JOIN_TO_PARENT;
  if ((old & JOIN_WAITER_MASK) !== 0) return old & JOIN_WAITER_MASK;
  if ((old & JOIN_DETACHED) !== 0) return JOIN_TO_NOBODY;
  if ((old & JOIN_FORK) !== 0) return JOIN_TO_FORK;
  return 0;
}

/** A fork's joiner about to sleep marks the fork JOIN_FORK unless it is done; true when done.
 *  The joining M (forksleep.ts forkSleep); pairs with joinFinish's or. */
export function joinForkMark(i32: Int32Array, a: number): boolean {
  const w = (a + G_JOIN) >>> 2;
  for (;;) {
    const old = Atomics.load(i32, w); // acquire: pairs with joinFinish's or
    if ((old & JOIN_DONE) !== 0) return true;
    if ((old & JOIN_FORK) !== 0) return false;
    if (Atomics.compareExchange(i32, w, old, old | JOIN_FORK) === old) return false; // pairs with joinFinish's or
  }
}

/** putG: marks the G at a, G_DEAD and kept as a spare for the next fork, a done orphan (crash
 *  recovery frees it with the dead thread's other orphans). Plain: only the forking thread
 *  knows the G until forkNew or forkDone clears the mark, and recovery reads it only once that
 *  thread is gone. The forking M. */
export function joinMarkSpare(i32: Int32Array, a: number): void {
  i32[(a + G_JOIN) >>> 2] = JOIN_DONE; // plain, owner only: read by detachOrphan after this thread is gone
}

/** awaitTask: makes M mid the G's waiter unless it is done; true when done (take the result
 *  now), false when the finisher will push it on mid's inbox. The awaiting M. */
export function joinAwait(i32: Int32Array, a: number, mid: number): boolean {
  const w = (a + G_JOIN) >>> 2;
  for (;;) {
    const old = Atomics.load(i32, w); // acquire: pairs with joinFinish's or
    if ((old & JOIN_DONE) !== 0) return true;
    if (Atomics.compareExchange(i32, w, old, old | (mid + 1)) === old) return false; // pairs with joinFinish's or
  }
}

/** detachOne / detachOrphans: nobody will read the G's result. Returns the word before; with
 *  JOIN_DONE in it the caller frees the result and the G now. The handle's owner (or the main
 *  thread for a dead M's handles). */
export function joinDetach(i32: Int32Array, a: number): number {
  return Atomics.or(i32, (a + G_JOIN) >>> 2, JOIN_DETACHED); // pairs with joinFinish's or
}

/** makeContinuation: n children to wait for, plus the joiner's guard. The joining M, before
 *  any joinLink. A plain store: no other thread touches the count until it has seen a child's
 *  JOIN_PARENT, which joinLink's CAS sets after this store (that CAS publishes it, and a JS
 *  atomic store is a builtin call with a fence, about 20 ns). */
export function joinArm(i32: Int32Array, pa: number, n: number): void {
  i32[(pa + G_PENDING) >>> 2] = n + 1; // the +1 guard, dropped by the joiner's last joinRelease: published by joinLink's CAS, read by the children's joinRelease
}

/** One child's result is in the continuation's slot, or the joiner drops its guard: true when
 *  that was the last (ready the continuation). Any thread. */
export function joinRelease(i32: Int32Array, pa: number): boolean {
  return Atomics.sub(i32, (pa + G_PENDING) >>> 2, 1) === 1; // pairs with the other releases
}
