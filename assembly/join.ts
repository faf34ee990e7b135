// The join's busiest steps in the core (docs/DESIGN.md "Results and joins", "The cost of a
// task"): the joiner marks a child JOIN_PARENT unless it is done (joinLink), and a linked child's
// finisher frees it and releases its continuation's count (finishLinked); the runtime's common
// finish (a result that fits one slot, into a linked child's: finishSlot) and common join (one to four spawned
// children: joinTasks) are each those steps and their neighbours in one call. The runtime's
// other steps on the join word and the count are in bindings/runtime/memory/joinword.ts; these are
// here because a Wasm atomic is one instruction where a JS one is a builtin call (DESIGN.md
// "The cost of a task" has what each costs), and every child of a join takes them.

import {
  G_ARG_TAGS, G_ARGC, G_ARGS, G_DEAD, G_FN, G_INDEX, G_INLINE_ARGS, G_JOIN, G_PARENT, G_PENDING, G_PRIO,
  G_RESULT, G_RESULT_TAG, G_SPILL, GF_CONT, GF_SHAPED, JOIN_DONE, JOIN_PARENT,
} from './shared/layout';
import { gAddr, gSetStatus } from './gtable';
import { gfPut } from './gfree';
import { ready } from './sched';
import { opCall } from './mem';

/**
 * Links child c to join continuation g as its slot i: stores G_PARENT = g and G_INDEX = i, then
 * sets JOIN_PARENT in c's join word unless JOIN_DONE is there. 1 when linked (c's finisher will
 * deliver into g's slot i), 0 when c is done (the caller moves its result now). The joining M.
 */
export function joinLink(g: u32, c: u32, i: u32): i32 {
  let cp = gAddr(c);
  // plain: read by c's finisher only after it sees JOIN_PARENT, which the CAS below publishes
  store<u32>(cp, g, G_PARENT);
  store<u32>(cp, i, G_INDEX);
  // The common case, a child nobody touched yet (word 0), is one CAS.
  let old = atomic.cmpxchg<u32>(cp + G_JOIN, 0, JOIN_PARENT); // pairs with joinFinish's or (joinword.ts)
  while (old != 0) {
    if ((old & JOIN_DONE) != 0) return 0;
    let seen = atomic.cmpxchg<u32>(cp + G_JOIN, old, old | JOIN_PARENT); // as above
    if (seen == old) return 1;
    old = seen;
  }
  return 1;
}

/**
 * One result (or the joiner's guard) is in continuation pg's slots: subtracts 1 from its count;
 * true when that was the last (ready pg). Any thread.
 */
export function joinReleased(pg: u32): bool {
  return atomic.sub<u32>(gAddr(pg) + G_PENDING, 1) == 1; // pairs with the other releases (joinword.ts joinRelease)
}

/**
 * Linked child g (G_DEAD, its result already written into slot G_INDEX of continuation pg by the
 * runtime) is done: gfPut(p, g), then joinReleased(pg), and ready(p, pg, 1) when it was the
 * last. 1 when pg was readied. The M that finished g (p < 0: crash recovery, P-less forms).
 */
export function finishLinked(p: i32, g: u32, pg: u32): i32 {
  gfPut(p, g);
  if (!joinReleased(pg)) return 0;
  ready(p, pg, 1);
  return 1;
}

/**
 * finishG's common case in one call (the runtime's join.ts; DESIGN.md "The cost of a task"): G g
 * (status `from`) finished with a result that fits one slot: `tag` and the payload x (a number
 * with TAG_NUMBER; a value or error block's address with TAG_BLOCK or TAG_ERROR, written by the
 * runtime before this call; 0 with a tag alone). When g is linked to a join continuation
 * (JOIN_PARENT in its join word), tag and x go into the continuation's slot G_INDEX, g goes
 * G_DEAD, then finishLinked: 1. Otherwise nothing is done: 0 (the runtime then stores the
 * result and publishes it, joinword.ts joinFinish). The M that ran g, holding P p.
 */
export function finishSlot(p: i32, g: u32, from: u32, tag: u32, x: f64): i32 {
  if (p >= 0) opCall(p);
  let gp = gAddr(g);
  if ((atomic.load<u32>(gp, G_JOIN) & JOIN_PARENT) == 0) return 0; // pairs with joinLink's CAS
  // plain: stored by the joiner before its CAS set JOIN_PARENT, which the load above saw
  let pg = load<u32>(gp, G_PARENT);
  let i = load<u32>(gp, G_INDEX);
  let pp = gAddr(pg);
  let argc = load<u32>(pp, G_ARGC); // plain: set by the joiner before the link
  let tagAt: usize;
  let slot: usize;
  if (argc <= <u32>G_INLINE_ARGS) {
    tagAt = pp + G_ARG_TAGS + i;
    slot = pp + G_ARGS + (<usize>i << 3);
  } else {
    let sp = <usize>load<u32>(pp, G_SPILL); // plain: as argc
    tagAt = sp + (<usize>argc << 3) + i;
    slot = sp + (<usize>i << 3);
  }
  // plain: this child's slot is its own; the release in finishLinked publishes it
  store<u8>(tagAt, <u8>tag);
  store<f64>(slot, x);
  gSetStatus(g, from, G_DEAD);
  finishLinked(p, g, pg);
  return 1;
}

/**
 * joinChildren's common case in one call (the runtime's join.ts): G g (G_WAITING) becomes the
 * continuation `fn` over n (1 to 4) children c0..c3, every one a G, no shape. Makes g a
 * continuation (fn, argc n, GF_CONT), arms its count to n + 1 (the joiner's guard), links each
 * child (joinLink); a child already done has its result moved into its slot now and is freed.
 * Then drops the guard and readies g when that was the last release. 1 when g was readied. The
 * joining M, holding P p (p < 0: the P-less forms).
 */
export function joinTasks(p: i32, g: u32, fn: u32, n: u32, c0: u32, c1: u32, c2: u32, c3: u32): i32 {
  if (p >= 0) opCall(p);
  let gp = gAddr(g);
  // plain: g is the joiner's until the first link publishes these (joinLink's CAS)
  store<u32>(gp, fn, G_FN);
  store<u32>(gp, n, G_ARGC);
  store<u32>(gp, (load<u32>(gp, G_PRIO) & ~GF_SHAPED) | GF_CONT, G_PRIO);
  store<u32>(gp, n + 1, G_PENDING);
  for (let i: u32 = 0; i < n; i++) {
    let c = i == 0 ? c0 : i == 1 ? c1 : i == 2 ? c2 : c3;
    if (joinLink(g, c, i) == 0) moveResult(p, c, g, i);
  }
  if (!joinReleased(g)) return 0; // drop the guard
  ready(p, g, 1);
  return 1;
}

/**
 * joinTasks: child c was done before its link; its result moves into slot i of continuation g
 * (a raw copy: a value block changes hands), c is freed and its share of g's count released
 * (never the last: the joiner's guard is held). The joining M, holding P p.
 */
function moveResult(p: i32, c: u32, g: u32, i: u32): void {
  let cp = gAddr(c);
  let gp = gAddr(g);
  store<u8>(gp + G_ARG_TAGS + i, load<u8>(cp, G_RESULT_TAG)); // plain: slot i is this child's alone
  store<u64>(gp + G_ARGS + (<usize>i << 3), load<u64>(cp, G_RESULT));
  store<u8>(cp, 0, G_RESULT_TAG); // plain: c is done and ours
  gfPut(p, c);
  joinReleased(g);
}
