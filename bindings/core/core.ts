// The scheduler core's face: the operations both backends implement with the same semantics
// over the same bytes (assembly/ compiled to Wasm, and the TypeScript twin in bindings/core/ts/).
//
// Every argument and result is a small integer (chargeTime's times aside: f64 ms), so a Wasm
// instance's exports satisfy this interface as they are: one JS-to-Wasm call per operation, no
// wrappers on the hot path.
// G ids are u32 with 0 meaning "none"; P and M indexes are 0-based. The protocols are written
// out in docs/DESIGN.md; each method names its section there and who may call it.

import { STOP_RETRY, STOP_SLEEP } from '../../assembly/shared/layout.js';

/** Which core runs the queues: 'wasm', the AssemblyScript core compiled to threaded
 *  WebAssembly, or 'js', its TypeScript twin over the same bytes (the same protocols, slower). */
export type Backend = 'wasm' | 'js';

/** What `stopM` tells the M that called it when it hands out no G (docs/DESIGN.md, "Spin,
 *  then park"); the values are the layout's STOP_*, which both cores return. */
export const Stop = {
  /** Parked: the P is idle, the M is on the idle list and must sleep on its park word. */
  Sleep: STOP_SLEEP,
  /** Recheck found work and this M took an idle P again: acquireP(m), then go to the top. */
  Retry: STOP_RETRY,
} as const;

export interface Core {
  /**
   * Lays the layout down on fresh memory: header, scheduler block, coprimes, every P idle on
   * the idle list, every M slot unused, and the first G chunks on the global free list.
   * Main thread only, once, before any other call on this memory.
   */
  init(nprocs: number, maxMs: number, gcapInit: number, gmax: number, flags: number,
    stealThreshold: number, seed: number): void;

  /** Per-instance setting: may this thread block in Atomics.wait (false on the main thread). */
  setCanBlock(canBlock: number): void;

  // ---- G allocation (DESIGN.md "Free Gs") -------------------------------------------------
  /** A G in state G_DEAD, its fields other than status/gen zeroed, or 0 when the table is at
   *  gmax. p >= 0: owner P only (uses the P's cache); p < 0: any thread (global list). */
  gfGet(p: number): number;
  /** Returns a G_DEAD G to the free lists (bumps its generation). Same caller rule as gfGet. */
  gfPut(p: number, g: number): void;
  /** G status transition; with FLAG_DEBUG an illegal one aborts with both states named. */
  gSetStatus(g: number, from: number, to: number): void;
  /** Byte address of G g's entry. Any thread. */
  gAddr(g: number): number;

  // ---- Run queues (DESIGN.md "Local run queue", "Global run queue") -----------------------
  /** Owner P only. Puts g on p's ring (or runnext when next != 0); a full ring spills. */
  runqPut(p: number, g: number, next: number): void;
  /** Owner P only. runnext first, then the ring head; 0 when empty. */
  runqGet(p: number): number;
  /** Owner of p only. Steals ceil(half) of victim's ring into p's; returns one G to run, 0 none. */
  runqSteal(p: number, victim: number, stealRunNext: number): number;
  /** Any thread. Never reports empty while a G is queued or in runnext. */
  runqEmpty(p: number): number;
  /** Any thread. tail - head, runnext not counted (schedtrace's per-P figure). */
  runqLen(p: number): number;
  /** Any thread. Takes sched.lock. */
  globrunqPut(g: number): void;
  /** Any thread. Takes sched.lock; links head..tail (n Gs, linked by G_SCHEDLINK). */
  globrunqPutBatch(head: number, tail: number, n: number): void;
  /** Owner P only. Takes sched.lock; Go's batch rule; returns the first, queues the rest on p. */
  globrunqGet(p: number, max: number): number;

  // ---- Scheduling (DESIGN.md "findRunnable", "Spin, then park", "wakep") ------------------
  /** Runtime only: makes g runnable (from G_DEAD or G_WAITING). A normal G (class byte of
   *  G_PRIO 0): p >= 0 (owner P) runqPut(p, g, next), p < 0 (no P, e.g. the main thread) the
   *  global queue; a high or low G: its class queue (DESIGN.md "Priority classes"). Then
   *  wakep() if needed. */
  ready(p: number, g: number, next: number): void;
  /** M m holding P p only. Go's newproc: G parent spawned g, which goes into p's runnext
   *  (ready(p, g, 1)); an M that traces records the spawn in its event ring. */
  newproc(p: number, m: number, g: number, parent: number): void;
  /** M m holding P p only. Go's findRunnable without the blocking part, with the class queues:
   *  returns a G already marked G_RUNNING, or 0 (m may have become spinning; call stopM next). */
  findRunnable(p: number, m: number): number;
  /** M m holding P p only. Releases p; returns a G (global, high or low work found, p kept),
   *  Stop.Sleep or Stop.Retry. */
  stopM(p: number, m: number): number;
  /** Any thread. Wakes an idle M with an idle P if nobody spins. */
  wakep(): void;
  /** M m without a P only: puts m on the idle list (start-up). */
  mPut(m: number): void;
  /** Any thread. Takes sched.lock and pops an idle M for the caller to hand work to (the
   *  runtime's monitor reserves a spare M this way); its index, or NONE (the layout's -1) when
   *  none is idle. The M stays asleep on its park word until the caller wakes it. */
  mTake(): number;
  /** After waking: takes the P handed over in M_NEXTP and marks it running; returns its index.
   *  The P's high budget starts open (DESIGN.md "High work's budget"). */
  acquireP(m: number): number;
  /** M holding P p only (DESIGN.md "High work's budget"). A G of class cls ran on p from
   *  `start` to `end` (ms, a clock every thread shares): charges a high G's run time to p's
   *  budget and replenishes it per period passed. Returns 1 while p is throttled (time every G
   *  run on p and charge it here), 0 when only high Gs need timing. The core reads no clock. */
  chargeTime(p: number, cls: number, start: number, end: number): number;

  // ---- Steal policy (DESIGN.md "Victim order", "Steal threshold") -------------------------
  /** Owner P only. Go's stealWork: 4 passes in the configured victim order. */
  stealWork(p: number): number;
  /** Any thread. The steal threshold in force now (fixed or from load). */
  stealThreshold(): number;
  /** Any thread. Fills nothing; returns the victim visited at step i of the enumeration
   *  started with seed r (test hook for the victim order). */
  stealOrderAt(p: number, r: number, i: number): number;

  // ---- Value blocks (DESIGN.md "Value blocks") ---------------------------------------------
  /** Any thread. Address of at least `size` user bytes (8-aligned), 0 when memory is exhausted. */
  heapAlloc(size: number): number;
  /** Any thread. Frees a block returned by heapAlloc. */
  heapFree(addr: number): void;

  // ---- The monitor (DESIGN.md "sysmon and handoff") -----------------------------------------
  /** Any thread (start-up). Moves idle P p to the spare reserve: 1, or 0 if p is not idle. */
  pReserve(p: number): number;
  /** Any thread (the monitor). Moves an idle P back to the reserve; the P, or NONE if none idle. */
  pRetire(): number;
  /** Any thread (the monitor). Lends a reserved P to an idle M, counted spinning, and wakes it;
   *  the P, or NONE when the reserve or the idle-M list is empty. */
  handoff(): number;
  /** M m holding P p only, between two Gs (asked by the monitor: S_RT_GIVEBACK). Gives p back to
   *  the reserve: its runnext and ring go to the global queue, m to the idle list (then m
   *  sleeps, as after stopM's Sleep). Returns how many Gs moved. */
  pGiveBack(p: number, m: number): number;

  // ---- Threads that come and go (DESIGN.md "Threads that come and go") ----------------------
  /** Any thread (start-up). Moves idle P p to the list of Ps without an M: 1, or 0 if p is not
   *  idle. */
  pDetach(p: number): number;
  /** M m without a P only, once, when its thread has started (replaces mPut): m counts as live
   *  and takes a P from the no-M list, if any, handed over in M_NEXTP with m counted spinning
   *  (the caller then calls acquireP), as wakep hands one over; else m goes on the idle list.
   *  Returns the P, or NONE. */
  mStart(m: number): number;
  /** M m, asleep without a P, after idleTimeout: 1 when m leaves (more than `min` Ms live, m
   *  still on the idle list; an idle P without an idle M goes to the no-M list), 0 when it stays.
   *  An M that leaves ends its thread without another core call. */
  mExit(m: number, min: number): number;

  // ---- Async tasks (DESIGN.md "Async tasks: where they start") ----------------------------
  /** M m holding P p only, between two Gs, when its async tasks in flight reached its limit (Go's
   *  handoffp for an M entering a blocking system call): p's runnable Gs go to the global queue,
   *  p goes idle, m on no list (wakep cannot pick it); an M is woken for the work in sight.
   *  Returns how many Gs moved. */
  handoffP(p: number, m: number): number;
  /** M m without a P only, blocked by handoffP, when it has room again (Go's exitsyscall): m goes
   *  on the idle-M list and, with work in sight, takes an idle P counted spinning: STOP_RETRY
   *  (acquireP, then findRunnable) or STOP_SLEEP. */
  mReturn(m: number): number;
  /** Any thread (the main thread's sched.resize). Sets the Ps in service to `target` of `total`
   *  (maxProcs): grows from the out-of-service list, shrinks by the Ps no M runs and asks Ms for
   *  the rest (S_RT_SHRINK). Returns how many Ps are still to move; call again until 0
   *  (DESIGN.md "Resizing: procs at run time"). */
  procresize(target: number, total: number): number;
  /** M m holding P p only, between two Gs, after it saw S_RT_SHRINK above 0: gives p out of
   *  service (its queue to the global queue, m to the idle list: m sleeps). How many Gs moved,
   *  or NONE when no P is asked for any more (m keeps p). */
  pStop(p: number, m: number): number;

  /** M m holding P p only. ctx.spawn in one call for a child whose argc <= G_INLINE_ARGS (7)
   *  arguments are numbers (x0..x6; those past argc stored, never read): gfGet(p), its fields
   *  (fn, argc, the number slots and their tag bytes, G_PARENT = PARENT_SPAWNER | m, G_PRIO =
   *  prio), then newproc(p, m, g, parent). g, or 0 when the G table is full (DESIGN.md "The
   *  cost of a task"). */
  spawnNew(p: number, m: number, fn: number, argc: number, x0: number, x1: number, x2: number, x3: number,
    x4: number, x5: number, x6: number, prio: number, parent: number): number;

  /** The joining M only. Links child c to join continuation g as its slot i (G_PARENT = g,
   *  G_INDEX = i, then JOIN_PARENT in c's join word unless JOIN_DONE): 1 linked, 0 when c is
   *  done (the caller moves its result). DESIGN.md "Results and joins". */
  joinLink(g: number, c: number, i: number): number;
  /** The M that finished linked child g (G_DEAD, its result already in continuation pg's slot;
   *  p < 0: crash recovery): gfPut(p, g), the release of pg's join count, and ready(p, pg, 1)
   *  when it was the last. 1 when pg was readied. DESIGN.md "Results and joins". */
  finishLinked(p: number, g: number, pg: number): number;
  /** The M that ran G g (status `from`), holding P p: g finished with a result that fits one
   *  slot, `tag` and payload x (TAG_NUMBER and the number; TAG_BLOCK or TAG_ERROR and the
   *  address of the value or error block the runtime wrote; a tag alone and 0). When g is linked
   *  to a join continuation, tag and x go into its slot, g goes G_DEAD, then finishLinked: 1.
   *  Otherwise nothing is done: 0 (the runtime stores and publishes the result itself).
   *  finishG's first step, in one call. DESIGN.md "Results and joins". */
  finishSlot(p: number, g: number, from: number, tag: number, x: number): number;
  /** The joining M, holding P p (p < 0: the P-less forms). G g (G_WAITING) becomes the join
   *  continuation `fn` over n (1 to 4) children c0..c3, every one a G, with no shape: argc n,
   *  GF_CONT, the count n + 1, each child linked (joinLink; one done already has its result
   *  moved into its slot and is freed), then the joiner's guard dropped and g readied when that
   *  was the last release. 1 when g was readied. joinChildren's common case in one call. */
  joinTasks(p: number, g: number, fn: number, n: number, c0: number, c1: number, c2: number, c3: number): number;

  // ---- Fork-join (DESIGN.md "Fork-join") -------------------------------------------------
  /** M m holding P p only. G parent forked g (G_DEAD, prepared): g goes runnable on p's fork
   *  deque (an M that traces records the spawn), then wakep() if needed. 1, or 0 when the
   *  deque is full (g stays G_DEAD, for the forker to run inline). */
  forkPush(p: number, m: number, g: number, parent: number): number;
  /** M m holding P p only. ctx.fork in one call for a child whose argc <= G_INLINE_ARGS (7)
   *  arguments are numbers (x0..x6; those past argc stored, never read): G `spare` (a G_DEAD
   *  fork G m kept, or 0: one from p's free list) with its fields (fn, argc, the number slots
   *  and their tag bytes, G_PARENT = PARENT_SPAWNER | m, the
   *  join word 0, G_PRIO = GF_FORK with the token and class of m's running G), forkPush with
   *  m's running G as the parent, then a wake-up of the joiners asleep on S_RT_FORK_EPOCH if
   *  any. g (on the deque), -g (the deque was full: g is G_DEAD, for the forker to run inline)
   *  or 0 (the G table is full). */
  forkNew(p: number, m: number, spare: number, fn: number, argc: number,
    x0: number, x1: number, x2: number, x3: number, x4: number, x5: number, x6: number): number;
  /** M holding P p only. Frees spare fork G g (G_DEAD, kept after an inline run): its spawner
   *  mark and join word cleared, back to p's free list. */
  forkDone(p: number, g: number): void;
  /** M m holding P p only. The newest G of p's fork deque, already G_RUNNING (its start
   *  traced), or 0 when it is empty. */
  forkPop(p: number, m: number): number;
  /** M m holding P p only, waiting for a stolen fork: the oldest G of victim's fork deque
   *  (victim < 0: none), else (anywhere non-zero) p's runnext and ring, else another P's fork
   *  deque; the G already G_RUNNING (started and traced as by findRunnable), or 0. */
  forkHelp(p: number, m: number, victim: number, anywhere: number): number;
  /** Any thread. Gs on P p's fork deque. */
  forkLen(p: number): number;
}
