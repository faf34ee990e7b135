// startm: when work waits for a P whose thread has ended, the main thread starts a thread for it
// (docs/DESIGN.md "Threads that come and go"; Go's startm, which creates an M when no idle one
// can run an idle P). Only the main thread can start threads here, so the core cannot do it from
// wakep; instead the main thread looks:
//   - when it queues root tasks (the engine's flush), and
//   - every LOOK_MS while a P lacks a thread and work is pending (an unref'd timer, stopped once
//     no P lacks one or nothing is pending), for work the tasks themselves spawn, and for work
//     queued while every thread is blocked at its async limit.
// A look counts the Gs waiting where an M could take them (the global and class queues, the
// rings, runnexts and fork deques of the running Ps) and, unless a P and an M are both idle
// (wakep wakes that M), starts one thread per waiting G that no spinning or starting M
// will take, up to the Ps without a thread.
//
// A thread the platform refuses (a container's pids limit, a user's process limit: Node's
// ERR_WORKER_INIT_FAILED, EAGAIN) or that fails before its handshake holds no P and is on no
// list; while some P in service has an M, the scheduler goes on without it and starts no thread
// for a while (`refused`: 10 ms, twice as long each time in a row, up to 1 s), as
// ForkJoinPool runs on the workers it has when it cannot add one. With no P served, nothing
// would run the work waiting: the engine fails instead (engine-threads.ts growFailed).
//
// Main thread only.

import {
  P_IDLE, P_RUNNEXT, P_STATUS, S_NMIDLE, S_NMSPINNING, S_NPIDLE, S_RT_NPNOM, S_RUNQ_SIZE, S_RUNQH_SIZE, S_RUNQL_SIZE,
} from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import { pAddr } from '../memory/mblock.js';
import { now, unrefTimer } from '../host/platform.js';
import { busyPs } from '../sleep/parkspin.js';
import type { Views } from '../memory/values.js';

/** How often the main thread looks for work waiting on a P without a thread (ms): about a tenth
 *  of what starting a thread costs here (see DESIGN.md), so a look never adds much to it. */
const LOOK_MS = 4;
/** The first wait after a refused thread, and the longest (ms). */
const HOLD_MIN_MS = 10;
const HOLD_MAX_MS = 1000;

export class StartM {
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Threads asked for and not yet ready (the engine counts them down). */
  starting = 0;
  /** No thread starts before this time (now()), after a refused one; 0 when none was. */
  private holdUntil = 0;
  /** The last hold-off (ms): doubles while starts keep failing, 0 after one came up. */
  private holdMs = 0;

  /**
   * `start(n)` starts n threads (the engine's growM); `busy()` says whether any task is pending.
   * `nprocs`: Ps to look at (the spares' reserve excluded: a spare has a thread or the monitor's).
   */
  constructor(private readonly views: Views, private readonly core: Core, private readonly nprocs: number,
    private readonly start: (n: number) => void, private readonly busy: () => boolean) {}

  /** Ps without a thread now (S_RT_NPNOM). Any time. */
  get withoutM(): number {
    return Atomics.load(this.views.i32, S_RT_NPNOM >>> 2); // pairs with the no-M list's stores under sched.lock
  }

  /** How many threads to start now: one per G waiting where an M could take it and no spinning
   *  or starting M will, while no P is idle, up to the Ps without a thread. */
  want(): number {
    const free = this.withoutM - this.starting;
    if (free <= 0) return 0;
    const i32 = this.views.i32;
    // An idle P with an idle M: wakep reaches it. An idle P whose M is blocked in its async tasks
    // (core handoffP) has none until that M comes back (DESIGN.md "Async tasks: where they
    // start"): the work waiting is for a thread of a P without one.
    if (Atomics.load(i32, S_NPIDLE >>> 2) > 0 && Atomics.load(i32, S_NMIDLE >>> 2) > 0) return 0; // pairs with the lists' stores under sched.lock (a snapshot)
    let waiting = Atomics.load(i32, S_RUNQ_SIZE >>> 2) + Atomics.load(i32, S_RUNQH_SIZE >>> 2) + // pairs with the size stores under sched.lock
      Atomics.load(i32, S_RUNQL_SIZE >>> 2); // the same
    for (let p = 0; p < this.nprocs && waiting < free; p++) {
      const pa = pAddr(this.views, p);
      if (Atomics.load(i32, (pa + P_STATUS) >>> 2) === P_IDLE) continue; // pairs with acquireP/stopM
      waiting += this.core.runqLen(p) + this.core.forkLen(p);
      if (Atomics.load(this.views.u32, (pa + P_RUNNEXT) >>> 2) !== 0) waiting++; // pairs with runqPut
    }
    // A spinning M takes a waiting G without a new thread (wakep woke it for one), and so does
    // each thread starting already (it starts spinning, with a P).
    waiting -= Atomics.load(i32, S_NMSPINNING >>> 2) + this.starting; // pairs with the nmspinning RMWs
    return Math.max(0, Math.min(waiting, free));
  }

  /** Ps served by an M: those held by one and the idle ones (each idle P has an idle M that
   *  wakep wakes: assembly/mlife.ts mExit). Work queued anywhere runs while this is not 0. */
  served(): number {
    return busyPs(this.views.i32) + Atomics.load(this.views.i32, S_NPIDLE >>> 2); // pairs with the npidle RMWs
  }

  /** A thread did not come up: no start for a while, twice as long as the last time in a row.
   *  True for the first refusal after a thread came up (the engine warns once a streak). */
  refused(): boolean {
    const first = this.holdMs === 0;
    this.holdMs = first ? HOLD_MIN_MS : Math.min(2 * this.holdMs, HOLD_MAX_MS);
    this.holdUntil = now() + this.holdMs;
    return first;
  }

  /** A thread came up: the next refusal waits HOLD_MIN_MS again. */
  cameUp(): void {
    this.holdMs = 0;
    this.holdUntil = 0;
  }

  /** True while starts wait after a refused thread. */
  holding(): boolean {
    return this.holdUntil !== 0 && now() < this.holdUntil;
  }

  /** One look: starts what want() says, and keeps looking while a P lacks a thread and work is
   *  pending. Cheap when every P has its thread (one load). */
  look = (): void => {
    if (this.withoutM === 0 || !this.busy()) { this.stop(); return; }
    const n = this.holding() ? 0 : this.want();
    if (n > 0) this.start(n);
    if (this.timer === null) this.timer = unrefTimer(setInterval(this.look, LOOK_MS));
  };

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
