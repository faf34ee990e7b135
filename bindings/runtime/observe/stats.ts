// stats(): a snapshot of the counters the core and the Ms keep in shared memory. Reading is a
// few hundred loads and no locks, cheap enough to call every millisecond. Counters written by
// other threads may be a moment stale; each is exact once the scheduler is quiet. This file is the
// snapshot's shape (the public types); readstats.ts reads it.

import type { ProcsSource } from '../host/cgroup.js';
import type { LatencySummary } from './latency.js';

/** Counters of one P. */
export interface PStats {
  /** The P's index: 0..maxProcs-1, then the spare Ps (DESIGN.md "sysmon and handoff"). */
  id: number;
  /** 'running' (held by an M), 'idle' (held by none: on the idle list, waiting for a thread,
   *  or out of service after a resize), or 'reserved': a spare P in the reserve, lent by the
   *  monitor only (DESIGN.md "sysmon and handoff"). */
  status: 'idle' | 'running' | 'reserved';
  /** M index holding this P, or null. */
  m: number | null;
  /** Go's schedtick: time slices started on this P. */
  schedtick: number;
  /** Gs in the ring now (runnext not counted, as in Go's schedtrace). */
  runqsize: number;
  /** 1 when the runnext slot holds a G. */
  runnext: number;
  /** Dead Gs in this P's free cache. */
  gfreecnt: number;
  /** Gs made runnable on this P (spawns and readied joins). */
  spawned: number;
  /** Gs this P started running. */
  executed: number;
  /** Of those, taken from runnext (they go on with the slice of the G before them). */
  runnextHits: number;
  /** Of those, taken from this P's ring (or its fork deque, after taking over a crashed
   *  thread's P). */
  localHits: number;
  /** Of those, taken from the global queue (findRunnable's every-61st check, or when the ring
   *  is empty). */
  globalHits: number;
  /** Of those, taken from the high class queue (DESIGN.md "Priority classes"). */
  highHits: number;
  /** Of those, taken from the low class queue. */
  lowHits: number;
  /** Times this P looked past queued high work because its high budget was spent (DESIGN.md
   *  "High work's budget"). */
  highThrottles: number;
  /** Successful steals by this P (one may move half a victim's ring). */
  stealOps: number;
  /** Gs those steals moved to this P, forks taken from other Ps' fork deques included. */
  stolen: number;
  /** Steals against this P. */
  stolenFromOps: number;
  /** Gs other Ps took from this P (its ring, its runnext, its fork deque). */
  stolenFrom: number;
  /** runqPutSlow batches moved to the global queue (half the ring each, the ring being full). */
  overflows: number;
  /** Times its M became spinning (looking for work to steal). */
  spins: number;
  /** Times its M's steal attempt (4 passes over the other Ps) found nothing. */
  stealMisses: number;
  /** Times this P went idle: its M found no work, or gave the P back to the monitor. */
  parks: number;
  /** Times this P was handed, idle, to an M for waiting work (Go's wakep and startm, or the
   *  monitor's loan of a spare). */
  wakeups: number;
  /** Batches moved between its free cache and the global free list. */
  gfreeMoves: number;
  /** Gs forked on this P (ctx.fork). */
  forks: number;
  /** Of those, the ones its own M took back to run inline at join; the rest were stolen
   *  (counted in the thieves' `stolen`). */
  forkInline: number;
  /** The scheduler's own operations on this P (DESIGN.md "Scaling"; bench/scale.mjs prints them
   *  per task), first: core calls made by its M (the loop's and the one-call task paths'). */
  calls: number;
  /** Other Ps' queues read looking for work. */
  probes: number;
  /** Steal attempts. */
  stealTries: number;
  /** Compare-and-swaps on queue words. */
  cas: number;
  /** Of those, the ones that failed. */
  casFails: number;
  /** stopM calls that came back to retry. */
  retries: number;
  /** Fork joiners' calls for help. */
  helps: number;
}

/** Counters of one M (thread). M0 is the main thread. */
export interface MStats {
  /** The M's index: 0 the main thread, 1.. the worker threads (spares included). */
  id: number;
  /** Tasks this thread spawned: root tasks for M0, `ctx.spawn` and `ctx.fork` children for a
   *  worker. */
  spawned: number;
  /** Tasks whose results this thread handed on, ok or failed: root results received for M0,
   *  tasks run to their end for a worker. */
  finished: number;
  /** G running now, or 0. */
  curg: number;
  /** Async tasks pinned to this M, awaiting. */
  asyncPending: number;
  /** The async tasks in flight it keeps before it leaves queued work to other threads (the
   *  asyncPerThread option, or where 'auto' has it now; Infinity: no limit). */
  asyncLimit: number;
  /** It reached asyncLimit and handed its P off: it takes no new task until one of its tasks
   *  settles (DESIGN.md "Async tasks: where they start"). */
  blocked: boolean;
  /** Milliseconds since the slot's latest thread started (0 for M0, and for a slot that never
   *  had one). */
  uptimeMs: number;
  /** Of those, the milliseconds it spent parked without a P (idle). */
  idleMs: number;
  /** Turns given to the event loop while holding a P (for async tasks' continuations, timers, I/O). */
  yields: number;
  /** Park ladder rungs it polled or waited 1 us on (taken only while a CPU was free; DESIGN.md
   *  "Scaling"). */
  spinRungs: number;
  /** Times a fork joiner on it slept (DESIGN.md "Fork-join"). */
  forkSleeps: number;
  /** What the thread is doing: 'running', 'yielding', 'receiving', 'parked', 'parked-async', 'exited' ('' for M0). */
  state: string;
  /** Counted in spinningthreads: it holds a P, found no work and is stealing (or was woken to). */
  spinning: boolean;
  /** The index of the P handed to it (by a wake-up or the monitor) and not taken yet; null: none. */
  nextp: number | null;
  /** Its park word: the bits set for it while it sleeps or before it looks (1 a P was handed
   *  over, 2 finished Gs in its inbox, 4 the scheduler is closing, 8 a message waits). */
  park: number;
}

/**
 * What `sched.stats()` returns: plain data, a fresh object per call. Counts since the start
 * beside figures of the moment (queue lengths, states, lock words); a count written by another
 * thread may be a moment stale, and each is exact once the scheduler is quiet.
 */
export interface SchedulerStats {
  /** One entry per P, by index (the spare Ps and those out of service included). */
  procs: PStats[];
  /** One entry per M slot, by index: M0 (the main thread), then one per P. */
  threads: MStats[];
  /** The scheduler's own figures, named as in Go's schedtrace where Go has one. */
  sched: {
    /** Global run queue length. */
    runqueue: number;
    /** Ps in service now: the procs option, or what sched.resize set last (runtime.GOMAXPROCS). */
    gomaxprocs: number;
    /** Worker threads running now: each idles out after idleTimeout, down to minThreads plus
     *  the spares' (DESIGN.md "Threads that come and go"). */
    liveThreads: number;
    /** Threads started after start-up, for Ps that had work waiting and no thread. */
    threadStarts: number;
    /** Threads that ended after idleTimeout idle. */
    threadExits: number;
    /** Threads started for Ps without one that did not come up: the platform refused a thread
     *  (a container's pids limit, a user's process limit) or it failed before its handshake.
     *  The scheduler went on with the threads it had (DESIGN.md "Threads that come and go"). */
    threadStartFailures: number;
    /** Gs on the high class queue now. */
    highqueue: number;
    /** Gs on the low class queue now. */
    lowqueue: number;
    /** Ps on the idle list now (not those waiting for a thread, in the reserve or out of
     *  service). */
    idleprocs: number;
    /** Threads parked on the idle list now. */
    idlethreads: number;
    /** Threads spinning now: holding a P, looking for work to steal. */
    spinningthreads: number;
    /** 1 when a wake-up found no idle P to hand out: the next M to spin clears it (Go's
     *  needspinning). */
    needspinning: number;
    /** The most Ms spinning at once since the start (a gauge; Go's bound is half the busy Ps,
     *  DESIGN.md "Scaling"). */
    spinningMax: number;
    /** The sum over the threads of spinRungs. */
    spinRungs: number;
    /** The sum over the threads of forkSleeps. */
    forkSleeps: number;
    /** Wake-ups sent to sleeping fork joiners (bumps of their epoch word, each waking every
     *  sleeper: DESIGN.md "Fork-join"). */
    forkWakes: number;
    /** Gs put on the global queue (root spawns, ring overflows, given-back queues). */
    globalPuts: number;
    /** Gs taken from the global queue. */
    globalGets: number;
    /** Acquisitions of sched.lock, the one lock of the queues (global, class, idle lists). */
    lockAcquisitions: number;
    /** G table slots allocated now: one per live task, the rest free Gs. */
    gcap: number;
    /** The most slots the table may grow to: the maxTasks option. */
    gmax: number;
    /** Chunks added to the G table since start (1024 slots each). */
    tableGrows: number;
    /** Dead Gs on the global free list now (the Ps' caches hold the rest). */
    gfreeGlobal: number;
    /** Value blocks (non-number arguments and results, and the scheduler's own) allocated in
     *  shared memory since start. */
    heapAllocs: number;
    /** Value blocks freed since start. */
    heapFrees: number;
    /** Bytes in live value blocks now (a block is its bytes plus an 8-byte header, rounded up
     *  to a power of two). */
    heapBytes: number;
    /** Value blocks held by tasks' arguments and results now (0 when quiet: nothing leaked);
     *  the scheduler's own blocks (histograms, trace rings, cancellation flags) not counted. */
    heapLiveBlocks: number;
    /** sched.lock's word now (0 free, 1 held, 2 held with waiters): a stall shows here. */
    schedLock: number;
    /** The value heap's lock word now, the same way. */
    heapLock: number;
    /** Spare Ps in the reserve now. */
    spareProcs: number;
    /** Spares the monitor lent to the work behind a long task (DESIGN.md "sysmon and handoff"). */
    handoffs: number;
    /** Ps put back in the reserve: idle ones by the monitor, busy ones given back by their M
     *  when the monitor asked. */
    retires: number;
    /** Threads started to replace crashed ones (DESIGN.md "Crashed workers"). */
    restarts: number;
    /** Results freed by the main thread because their waiter died with an earlier thread of a
     *  slot that has no thread now (DESIGN.md "Late results"); a slot's thread frees the others. */
    lateResults: number;
    /** Shared buffers the scheduler holds now (strongly while a pending root carries one, else
     *  weakly), and those released so far (DESIGN.md "Shared buffers"). */
    sharedBuffers: number;
    /** Threads started and not up yet: loading the task module (a synchronous start's, or
     *  started for a P without one). One that stays here has a module whose load has not
     *  settled (a top-level await; Scheduler.start's `startTimeout` bounds its own). */
    threadsStarting: number;
    /** Shared buffers released so far: dropped by the program and no longer needed by any
     *  task, so every thread was told to forget them (DESIGN.md "Shared buffers"). */
    sharesReleased: number;
    /** The spareThreads option: Ps (and threads) beyond procs, lent by the monitor. */
    spareThreads: number;
    /** Where procs came from: the option, the default lowered to the cgroup CPU limit
     *  ('cgroup'), or the default at the CPU count ('cpus'). DESIGN.md "Default procs". */
    procsSource: ProcsSource;
    /** The cgroup CPU limit found when the default procs was chosen, in CPUs (1.5: 150 ms of
     *  CPU time per 100 ms); null: none found. */
    cpuLimit: number | null;
  };
  /** Sampled latencies (one task in 64) since start, in microseconds. A percentile is the
   *  upper bound of its histogram bucket: at most 25% above the true value, never above max. */
  latency: {
    /** Queueing delay: from runnable to started. */
    queue: LatencySummary;
    /** Run time: how long the task's function held its thread, per slice. */
    run: LatencySummary;
  };
  /** Sums over the Ps of their counters of the same names (PStats documents each). */
  totals: Pick<PStats, 'spawned' | 'executed' | 'stealOps' | 'stolen' | 'overflows' | 'globalHits' | 'localHits'
    | 'runnextHits' | 'forks' | 'forkInline' | 'spins' | 'parks' | 'wakeups' | 'stealMisses'
    | 'calls' | 'probes' | 'stealTries' | 'cas' | 'casFails' | 'retries' | 'helps'>;
}
