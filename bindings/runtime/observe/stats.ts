// stats(): a snapshot of the counters the core and the Ms keep in shared memory. Reading is a
// few hundred loads and no locks, cheap enough to call every millisecond. Counters written by
// other threads may be a moment stale; each is exact once the scheduler is quiet.

import {
  H_GCAP, H_GMAX, H_NPROCS, HEADER, MR_ASYNC, MR_CURG, MR_FINISHED, MR_SPAWNED,
  P_COUNTERS, P_GFREE_N, P_RUNNEXT, P_SCHEDTICK, P_STATUS, P_STEAL_FROM_OPS, P_STOLEN_FROM, P_M,
  PC_EXECUTED, PC_GFREE_MOVES, P_FORK_PUSHES, P_FORK_INLINE, PC_GLOBAL_HITS, PC_LOCAL_HITS, PC_OVERFLOWS, PC_PARKS, PC_RUNNEXT_HITS, PC_SPAWNED,
  PC_SPINS, PC_STEAL_MISSES, PC_STEAL_OPS, PC_STOLEN, PC_WAKEUPS, S_COUNTERS, S_GFREE_N, S_NEEDSPINNING,
  S_NMSPINNING, S_NPIDLE, S_RUNQ_SIZE, SC_GLOB_GET, SC_GLOB_PUT, SC_GROWS, SC_HEAP_ALLOCS, SC_HEAP_BYTES,
  SC_HEAP_FREES, SC_LOCK_ACQ, P_IDLE, S_NMIDLE, MR_T0, MR_IDLE_MS, MR_YIELDS, MR_STATE, MS_EXITED, MS_NONE, MS_SCHEDULE, MS_SHARES, MS_SLEEP, MS_SLEEP_ASYNC, MS_YIELD, S_LOCK, S_HEAP_LOCK, M_SPINNING, M_NEXTP, M_PARK,
  P_LINK, S_RT_PRESERVE, PC_HIGH_HITS, PC_LOW_HITS, PC_HIGH_THROTTLES, S_RUNQH_SIZE, S_RUNQL_SIZE, S_RT_NPRESERVE, S_RT_HANDOFFS, S_RT_RETIRES,
  P_OPS, OP_CALLS, OP_PROBES, OP_STEAL_TRIES, OP_CAS, OP_CAS_FAILS, OP_RETRIES, OP_HELPS, P_PARK_PROBES, S_NMSPINNING_MAX,
  MR_SPIN_RUNGS, MR_FORK_SLEEPS, S_RT_FORK_EPOCH,
} from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import type { ProcsSource } from '../host/cgroup.js';
import { readLatency, type LatencySummary } from './latency.js';
import { traceClock } from './trace.js';
import type { Views } from '../memory/values.js';
import { mAddr, pAddr } from '../memory/mblock.js';

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
   *  per task): core calls made by its M (the loop's and the one-call task paths'), other Ps'
   *  queues read looking for work (`probes`), steal attempts, compare-and-swaps on queue words
   *  and the failed ones, stopM calls that came back to retry, and fork joiners' calls for help. */
  calls: number;
  probes: number;
  stealTries: number;
  cas: number;
  casFails: number;
  retries: number;
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
  /** Milliseconds since the slot's latest thread started (0 for M0, and for a slot that never
   *  had one). */
  uptimeMs: number;
  /** Of those, the milliseconds it spent parked without a P (idle). */
  idleMs: number;
  /** Turns given to the event loop while holding a P (for async tasks' continuations, timers, I/O). */
  yields: number;
  /** Park ladder rungs it polled or waited 1 us on (taken only while a CPU was free), and the
   *  times a fork joiner on it slept (DESIGN.md "Scaling"). */
  spinRungs: number;
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
    /** Sums over the threads of spinRungs and forkSleeps, and the wake-ups sent to sleeping fork
     *  joiners (bumps of their epoch word, each waking every sleeper: DESIGN.md "Fork-join"). */
    spinRungs: number;
    forkSleeps: number;
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
  /** Sums over the Ps of their counters of the same names. */
  totals: {
    /** Gs made runnable (spawns and readied joins). */
    spawned: number;
    /** Gs started. */
    executed: number;
    /** Successful steals. */
    stealOps: number;
    /** Gs moved by steals. */
    stolen: number;
    /** Batches moved from a full ring to the global queue. */
    overflows: number;
    /** Gs started from the global queue. */
    globalHits: number;
    /** Gs started from a P's ring. */
    localHits: number;
    /** Gs started from a runnext slot. */
    runnextHits: number;
    /** Gs forked (ctx.fork). */
    forks: number;
    /** Forks run inline by their forker's M at join. */
    forkInline: number;
    /** Spins, parks and wake-ups of the Ps' Ms, and steal rounds that found nothing. */
    spins: number; parks: number; wakeups: number; stealMisses: number;
    /** The scheduler's own operations (PStats, DESIGN.md "Scaling"). */
    calls: number; probes: number; stealTries: number; cas: number; casFails: number; retries: number; helps: number;
  };
}

/** The names of the M states (MR_STATE), by MS_* value. */
const STATES: Record<number, string> = {
  [MS_NONE]: '', [MS_SCHEDULE]: 'running', [MS_YIELD]: 'yielding', [MS_SHARES]: 'receiving',
  [MS_SLEEP]: 'parked', [MS_SLEEP_ASYNC]: 'parked-async', [MS_EXITED]: 'exited',
};

export function readStats(v: Views, reserved: number, nms: number, core: Core): SchedulerStats {
  v.refresh();
  const u32 = v.u32;
  const f64 = v.f64;
  const i32 = v.i32;
  const nprocs = u32[(HEADER + H_NPROCS) >>> 2];
  const procs: PStats[] = [];
  const totals = {
    spawned: 0, executed: 0, stealOps: 0, stolen: 0, overflows: 0, globalHits: 0, localHits: 0, runnextHits: 0, forks: 0, forkInline: 0,
    spins: 0, parks: 0, wakeups: 0, stealMisses: 0, calls: 0, probes: 0, stealTries: 0, cas: 0, casFails: 0, retries: 0, helps: 0,
  };
  const reservedPs = new Set<number>();
  // A racy walk, a snapshot, of at most as many entries as the reserve held when it began:
  // P_LINK also links the idle list, and a P taken off the reserve during the walk (lent, then
  // idle again) links into it, whose Ps are not reserved (test/stats-reserve.test.ts).
  const nreserved = Math.min(Atomics.load(i32, S_RT_NPRESERVE >>> 2), nprocs); // pairs with preservePut's and handoff's stores under sched.lock
  for (let e = Atomics.load(i32, S_RT_PRESERVE >>> 2), k = 0; e !== 0 && k < nreserved; k++) { // pairs with preservePut's and handoff's stores under sched.lock
    reservedPs.add(e - 1);
    e = Atomics.load(i32, (pAddr(v, e - 1) + P_LINK) >>> 2); // pairs with pReserve's and pRetire's stores under sched.lock (a snapshot)
  }
  for (let p = 0; p < nprocs; p++) {
    const b = pAddr(v, p);
    const c = (b + P_COUNTERS) >>> 3;
    const o = (b + P_OPS) >>> 3;
    const pm = Atomics.load(i32, (b + P_M) >>> 2); // pairs with acquireP's and stopM's stores (a snapshot)
    const s: PStats = {
      id: p,
      status: Atomics.load(i32, (b + P_STATUS) >>> 2) !== P_IDLE ? 'running' : reservedPs.has(p) ? 'reserved' : 'idle', // pairs with acquireP's and stopM's stores (a snapshot)
      m: pm === 0 ? null : pm - 1,
      schedtick: u32[(b + P_SCHEDTICK) >>> 2],
      runqsize: core.runqLen(p),
      runnext: Atomics.load(i32, (b + P_RUNNEXT) >>> 2) !== 0 ? 1 : 0, // pairs with runqPut's and the thieves' CAS (a snapshot)
      gfreecnt: u32[(b + P_GFREE_N) >>> 2],
      spawned: f64[c + PC_SPAWNED / 8],
      executed: f64[c + PC_EXECUTED / 8],
      runnextHits: f64[c + PC_RUNNEXT_HITS / 8],
      highHits: f64[c + PC_HIGH_HITS / 8],
      lowHits: f64[c + PC_LOW_HITS / 8],
      highThrottles: f64[c + PC_HIGH_THROTTLES / 8],
      localHits: f64[c + PC_LOCAL_HITS / 8],
      globalHits: f64[c + PC_GLOBAL_HITS / 8],
      stealOps: f64[c + PC_STEAL_OPS / 8],
      stolen: f64[c + PC_STOLEN / 8],
      stolenFromOps: Atomics.load(u32, (b + P_STEAL_FROM_OPS) >>> 2), // pairs with the thieves' add (a snapshot)
      stolenFrom: Atomics.load(u32, (b + P_STOLEN_FROM) >>> 2), // pairs with the thieves' add (a snapshot)
      overflows: f64[c + PC_OVERFLOWS / 8],
      spins: f64[c + PC_SPINS / 8],
      stealMisses: f64[c + PC_STEAL_MISSES / 8],
      parks: f64[c + PC_PARKS / 8],
      wakeups: f64[c + PC_WAKEUPS / 8],
      gfreeMoves: f64[c + PC_GFREE_MOVES / 8],
      forks: f64[(b + P_FORK_PUSHES) >>> 3],
      forkInline: f64[(b + P_FORK_INLINE) >>> 3],
      calls: f64[o + OP_CALLS / 8],
      probes: f64[o + OP_PROBES / 8] + Atomics.load(u32, (b + P_PARK_PROBES) >>> 2), // pairs with stopM's add (a snapshot)
      stealTries: f64[o + OP_STEAL_TRIES / 8],
      cas: f64[o + OP_CAS / 8],
      casFails: f64[o + OP_CAS_FAILS / 8],
      retries: f64[o + OP_RETRIES / 8],
      helps: f64[o + OP_HELPS / 8],
    };
    procs.push(s);
    totals.spawned += s.spawned;
    totals.executed += s.executed;
    totals.stealOps += s.stealOps;
    totals.stolen += s.stolen;
    totals.overflows += s.overflows;
    totals.globalHits += s.globalHits;
    totals.localHits += s.localHits;
    totals.runnextHits += s.runnextHits;
    totals.forks += s.forks;
    totals.forkInline += s.forkInline;
    totals.spins += s.spins;
    totals.parks += s.parks;
    totals.wakeups += s.wakeups;
    totals.stealMisses += s.stealMisses;
    totals.calls += s.calls;
    totals.probes += s.probes;
    totals.stealTries += s.stealTries;
    totals.cas += s.cas;
    totals.casFails += s.casFails;
    totals.retries += s.retries;
    totals.helps += s.helps;
  }
  const threads: MStats[] = [];
  for (let m = 0; m < nms; m++) {
    const b = mAddr(v, m);
    const t0 = f64[(b + MR_T0) >>> 3];
    threads.push({
      id: m,
      spawned: f64[(b + MR_SPAWNED) >>> 3],
      finished: f64[(b + MR_FINISHED) >>> 3],
      curg: u32[(b + MR_CURG) >>> 2],
      asyncPending: u32[(b + MR_ASYNC) >>> 2],
      uptimeMs: t0 === 0 ? 0 : traceClock() - t0,
      idleMs: f64[(b + MR_IDLE_MS) >>> 3],
      yields: f64[(b + MR_YIELDS) >>> 3],
      spinRungs: f64[(b + MR_SPIN_RUNGS) >>> 3],
      forkSleeps: f64[(b + MR_FORK_SLEEPS) >>> 3],
      state: STATES[u32[(b + MR_STATE) >>> 2]] ?? '',
      spinning: Atomics.load(i32, (b + M_SPINNING) >>> 2) !== 0, // pairs with wakep's and stopM's stores (a snapshot)
      nextp: Atomics.load(i32, (b + M_NEXTP) >>> 2) === 0 ? null : Atomics.load(i32, (b + M_NEXTP) >>> 2) - 1, // pairs with wakep's store and acquireP's (a snapshot)
      park: Atomics.load(i32, (b + M_PARK) >>> 2), // pairs with the park word's writers and the sleeper's swap (park.ts) (a snapshot)
    });
  }
  const sc = S_COUNTERS >>> 3;
  return {
    procs,
    threads,
    sched: {
      runqueue: Atomics.load(i32, S_RUNQ_SIZE >>> 2), // pairs with the size stores under sched.lock (a snapshot)
      gomaxprocs: 0, // the engine's
      liveThreads: 0, // the engine's (it starts and ends the threads)
      threadStarts: 0,
      threadExits: 0,
      highqueue: Atomics.load(i32, S_RUNQH_SIZE >>> 2), // the same (a snapshot)
      lowqueue: Atomics.load(i32, S_RUNQL_SIZE >>> 2), // the same (a snapshot)
      idleprocs: Atomics.load(i32, S_NPIDLE >>> 2), // pairs with pidlePut's and pidleGet's stores under sched.lock (a snapshot)
      idlethreads: Atomics.load(i32, S_NMIDLE >>> 2), // pairs with mPut's and mGet's stores under sched.lock (a snapshot)
      spinningthreads: Atomics.load(i32, S_NMSPINNING >>> 2), // pairs with wakep's CAS and stopM's decrement (a snapshot)
      spinningMax: Atomics.load(i32, S_NMSPINNING_MAX >>> 2), // a gauge the core raises with plain stores (a snapshot)
      spinRungs: threads.reduce((s, t) => s + t.spinRungs, 0),
      forkSleeps: threads.reduce((s, t) => s + t.forkSleeps, 0),
      forkWakes: Atomics.load(i32, S_RT_FORK_EPOCH >>> 2), // pairs with forkWake's add (a snapshot)
      needspinning: Atomics.load(i32, S_NEEDSPINNING >>> 2), // pairs with wakep's store (a snapshot)
      globalPuts: f64[sc + SC_GLOB_PUT / 8],
      globalGets: f64[sc + SC_GLOB_GET / 8],
      lockAcquisitions: f64[sc + SC_LOCK_ACQ / 8],
      gcap: Atomics.load(u32, (HEADER + H_GCAP) >>> 2), // pairs with the table's growth (gfGet, under sched.lock) (a snapshot)
      gmax: u32[(HEADER + H_GMAX) >>> 2],
      tableGrows: f64[sc + SC_GROWS / 8],
      gfreeGlobal: Atomics.load(i32, S_GFREE_N >>> 2), // pairs with the global free list's adds (a snapshot)
      heapAllocs: f64[sc + SC_HEAP_ALLOCS / 8],
      heapFrees: f64[sc + SC_HEAP_FREES / 8],
      heapBytes: f64[sc + SC_HEAP_BYTES / 8],
      heapLiveBlocks: f64[sc + SC_HEAP_ALLOCS / 8] - f64[sc + SC_HEAP_FREES / 8] - reserved,
      schedLock: Atomics.load(i32, S_LOCK >>> 2), // pairs with the lock's CAS and swaps (lock.ts) (a snapshot)
      heapLock: Atomics.load(i32, S_HEAP_LOCK >>> 2), // the same (a snapshot)
      spareProcs: Atomics.load(i32, S_RT_NPRESERVE >>> 2), // pairs with pReserve's and handoff's stores (a snapshot)
      handoffs: Atomics.load(i32, S_RT_HANDOFFS >>> 2), // pairs with handoff's store under sched.lock (a snapshot)
      retires: Atomics.load(i32, S_RT_RETIRES >>> 2), // pairs with pRetire's store under sched.lock (a snapshot)
      restarts: 0,
      spareThreads: 0,
      // Set from the options by Scheduler.stats(); the engine's own snapshots (schedtrace's)
      // leave these as they are and do not read them.
      procsSource: 'cpus', // the engine's (from the options)
      cpuLimit: null,
    },
    latency: readLatency(v, nms),
    totals,
  };
}
