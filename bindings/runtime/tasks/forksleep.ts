// The sleeping joiner of fork-join (docs/DESIGN.md "Fork-join", "Sleeping joiner (no lost
// wake-up)"): the joiner's sleep and the wake-up its two wakers send. Every shared access of the
// protocol's runtime side is here (the forker's flag check after a push is the core's forkNew
// and the runtime's forkValues), so the model checker (test/model/protocols/forkq.mjs) runs this
// file as the runtime does. No runtime import but joinword.ts. Callers: fork.ts (waitStolen,
// forkValues) and join.ts (finish of a fork whose join word has JOIN_FORK).

import { S_RT_FORK_EPOCH, S_RT_FORK_SLEEPERS } from '../../../assembly/shared/layout.js';
import { joinForkMark } from '../memory/joinword.js';

const EPOCH_W = S_RT_FORK_EPOCH >>> 2;
const SLEEPERS_W = S_RT_FORK_SLEEPERS >>> 2;

/** Bumps S_RT_FORK_EPOCH and wakes the joiners asleep on it: a stolen fork finished whose joiner
 *  may sleep (JOIN_FORK), or new fork work appeared while somebody sleeps. Any thread. */
export function forkWake(i32: Int32Array): void {
  Atomics.add(i32, EPOCH_W, 1); // pairs with the joiner's epoch load in forkSleep
  Atomics.notify(i32, EPOCH_W); // all of them: pairs with the joiners' Atomics.wait in forkSleep
}

/**
 * The joiner of the stolen fork at a, with nothing to run: reads the epoch, raises the sleepers
 * flag, marks the fork JOIN_FORK (its finisher then bumps the epoch), looks once more (`look`:
 * would the joiner's help find a G now?), and waits while the epoch is unchanged. Returns when
 * woken, or at once when the fork is done or work is in sight: the caller loops (is the fork
 * done? help). The flag is not lowered here: the next fork push lowers it as it wakes everybody
 * (one spare wake-up at most). The joining M (fork.ts waitStolen).
 */
export function forkSleep(i32: Int32Array, a: number, look: () => boolean): void {
  const e = Atomics.load(i32, EPOCH_W); // pairs with forkWake's add
  Atomics.store(i32, SLEEPERS_W, 1); // pairs with the flag load and swap after each fork push
  if (!joinForkMark(i32, a) && !look()) {
    Atomics.wait(i32, EPOCH_W, e); // pairs with forkWake's notify; unbounded: the finisher of the fork, or a new fork while the flag is up, bumps the epoch and notifies
  }
}
