// readStats: the stats() snapshot (stats.ts) read from the counters in shared memory. Reading is a
// few hundred loads and no locks; counters written by other threads may be a moment stale, each
// exact once the scheduler is quiet. Main thread (the engine's stats()), or a test on a core's
// memory.

import {
  H_GCAP, H_GMAX, H_NPROCS, HEADER, MR_ASYNC, MR_ASYNC_LIMIT, MR_BLOCKED, MR_CURG, MR_FINISHED, MR_SPAWNED,
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
import { readLatency } from './latency.js';
import { traceClock } from './trace.js';
import type { Views } from '../memory/values.js';
import { mAddr, pAddr } from '../memory/mblock.js';
import type { MStats, PStats, SchedulerStats } from './stats.js';

/** The PStats counters stats().totals sums: every key of its type, and no other (the record's
 *  type checks that the list is complete). */
const SUMMED_KEYS: Record<keyof SchedulerStats['totals'], true> = {
  spawned: true, executed: true, stealOps: true, stolen: true, overflows: true, globalHits: true, localHits: true,
  runnextHits: true, forks: true, forkInline: true, spins: true, parks: true, wakeups: true, stealMisses: true,
  calls: true, probes: true, stealTries: true, cas: true, casFails: true, retries: true, helps: true,
};
const SUMMED = Object.keys(SUMMED_KEYS) as (keyof SchedulerStats['totals'])[];

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
  const totals = Object.fromEntries(SUMMED.map((k) => [k, 0])) as SchedulerStats['totals'];
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
    for (const k of SUMMED) totals[k] += s[k];
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
      asyncLimit: u32[(b + MR_ASYNC_LIMIT) >>> 2] === 0xffffffff ? Infinity : u32[(b + MR_ASYNC_LIMIT) >>> 2],
      blocked: u32[(b + MR_BLOCKED) >>> 2] !== 0,
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
      threadStartFailures: 0,
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
      lateResults: 0,
      sharedBuffers: 0,
      threadsStarting: 0,
      sharesReleased: 0,
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
