// The M: a worker thread's loop (Go's schedule). It holds a P, asks the core for the next G
// (findRunnable), runs it (execute.ts), and parks when the core finds nothing anywhere (stopM).
// Tasks that await keep their G in G_WAITING, pinned to this M, while the M runs other Gs
// (docs/DESIGN.md "The M loop"). This file is the loop and what the park ladders need of it
// (Sleeper); the M's fields are mstate.ts's, running one G execute.ts's, running a fork inline
// runinline.ts's (each a class over the one before). What a task does through its context lives
// beside it: tasks/spawn.ts (ctx.spawn, ctx.join), tasks/inline.ts (spawning at capacity),
// tasks/join.ts (results and joins), tasks/waiters.ts (awaiting), tasks/kids.ts (detaching),
// tasks/watch.ts (ctx.signal), sleep/park.ts (the sleep).
//
// Who may call what: every method runs on this M's own thread. Methods reached from promise
// continuations (settle, the inbox) may run while the M holds no P (this.p < 0); they then use
// the core's P-less forms (global queue, global free list).

import {
  G_WAITING, MR_YIELDS, MS_EXITED, MS_SCHEDULE, MS_SHARES, MS_YIELD, S_RT_SHARES, S_RT_GIVEBACK,
  GIVEBACK_ASKED, GIVEBACK_TAKEN, GIVEBACK_NONE, S_RT_SHRINK,
} from '../../../assembly/shared/layout.js';
import { Stop } from '../../core/core.js';
import { TaskContext, type ContextHost } from '../tasks/context.js';
import { macrotask, now } from '../host/platform.js';
import { JoinRequest, Task, type TaskOwner } from '../tasks/task.js';
import type { Finisher } from '../tasks/join.js';
import { EV_PARK, EV_UNPARK, traceClock } from '../observe/trace.js';
import type { ForkHost } from '../tasks/fork.js';
import type { Sleeper } from '../sleep/park.js';
import { joinRequest, spawnChild, type SpawnHost } from '../tasks/spawn.js';
import { parCall } from '../tasks/par-call.js';
import { MFork } from './runinline.js';

export type { MConfig } from './mstate.js';

/** What the M loop returns to its async driver. */
const enum Next { Sleep, Microtasks, Macrotask }

/** Async tasks started between two microtask checkpoints (so their continuations run). */
const ASYNC_BATCH = 16;
/** Microtask checkpoints a full M takes, each letting one more hop of its tasks' promise chains
 *  run (a child's result, then the parent's `await`, then its own settle), before it gives a
 *  turn of the event loop and then hands its P off. */
const FULL_MICROTASK_TURNS = 16;
/** With async tasks pending, let timers and I/O run at least this often (ms). */
const MACRO_INTERVAL_MS = 2;

export class M extends MFork implements TaskOwner, ContextHost, ForkHost, Finisher, Sleeper, SpawnHost {
  /** Turns schedule() gave its tasks since it found the M at its async limit: 0, then 1 after a
   *  microtask checkpoint, 2 after a turn of the event loop; reset when a G runs. */
  private fullTurns = 0;

  /** Runs until the scheduler closes. Starts without a P, on the idle list. */
  async loop(): Promise<void> {
    this.lastYield = now();
    for (;;) {
      if (this.fault !== null) throw this.fault; // a core call inside an async task's continuation failed (coreFault)
      if (this.p < 0) {
        this.gs.flushBlocks(); // a thread asleep (or ending) keeps no value blocks
        const woken = this.parker.sleep(this.idle);
        if (woken !== null) await woken;
        if (this.stopping) { this.gs.flushBlocks(); this.state(MS_EXITED); return; }
        continue;
      }
      this.state(MS_SCHEDULE);
      const next = this.schedule();
      if (next !== Next.Sleep) { this.views.f64[(this.mAddr + MR_YIELDS) >>> 3]++; this.state(MS_YIELD); }
      if (next === Next.Microtasks) await null;
      else if (next === Next.Macrotask) {
        await macrotask();
        await this.receiveShares();
        this.lastYield = now();
      }
    }
  }

  /**
   * The synchronous heart: find a G, run it, repeat, while this M holds a P. Returns when the
   * core found no work anywhere (the P is released: Sleep), or when async tasks need the event
   * loop (DESIGN.md "Giving the event loop its turn").
   */
  protected schedule(): Next {
    const core = this.core;
    const m = this.mid;
    let n = 0;
    for (;;) {
      const w = this.waiters;
      if ((w.live !== 0 || w.orphansPossible) && w.inboxWaiting()) w.drain(); // results for this M's waiters (or a dead thread's, dropped)
      const tr = this.trace;
      if (this.asyncPending !== 0 && this.asyncFull()) {
        // As many async tasks in flight as it may keep: the queued work is for other Ms
        // (DESIGN.md "Async tasks: where they start"). Tasks that settle at once (an async
        // function that never awaits) settle first, in a microtask checkpoint; tasks whose
        // continuations are already due (results of children, resolved timers and I/O) in one
        // turn of the event loop, with the P kept (Go's entersyscall before its handoff): with
        // fine-grained async fork-join that turn finds room, where a handoff and a return cost
        // twice the time. Then the P goes idle (its Gs to the global queue) and this M sleeps on
        // no list until one of its tasks settles or waits for a child.
        if (this.fullTurns < FULL_MICROTASK_TURNS) { this.fullTurns++; return Next.Microtasks; }
        if (this.fullTurns === FULL_MICROTASK_TURNS) { this.fullTurns++; return Next.Macrotask; }
        this.fullTurns = 0;
        if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
        this.core.handoffP(this.p, m);
        this.p = -1;
        this.setBlocked(true);
        this.admit.blocked();
        this.dirty = true;
        return Next.Sleep;
      }
      let g = core.findRunnable(this.p, m);
      if (tr !== null) tr.tick(); // the core wrote this step's events (a start, a steal): date them
      if (g === 0) {
        const s = core.stopM(this.p, m);
        if (s === Stop.Sleep) {
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
          this.p = -1;
          if (n !== 0) this.dirty = true;
          return Next.Sleep;
        }
        if (s === Stop.Retry) { this.p = core.acquireP(m); continue; }
        g = s;
      }
      this.execute(g);
      this.fullTurns = 0;
      if (this.fault !== null) throw this.fault; // a core call inside the task failed: fatal (coreFault)
      if (this.fj.spareN !== 0) this.fj.flush(); // the Gs its forks left for the next forks go back between tasks
      if ((++n & 63) === 0) {
        const i32 = this.views.i32;
        if (Atomics.load(i32, S_RT_SHARES >>> 2) !== this.sharesSeen) return Next.Macrotask; // pairs with deliverShares' store (engine-spawn.ts)
        // The monitor wants a lent spare back and no P goes idle: whoever looks first gives its
        // own P back (DESIGN.md "sysmon and handoff").
        if (Atomics.load(i32, S_RT_GIVEBACK >>> 2) === GIVEBACK_ASKED && // pairs with the monitor's store
          Atomics.compareExchange(i32, S_RT_GIVEBACK >>> 2, GIVEBACK_ASKED, GIVEBACK_TAKEN) === GIVEBACK_ASKED) { // pairs with the monitor's CAS (sysmon.ts clear)
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
          core.pGiveBack(this.p, m);
          // Done: the reserve's count shows it (under sched.lock) before the monitor reads NONE.
          Atomics.store(i32, S_RT_GIVEBACK >>> 2, GIVEBACK_NONE); // pairs with the monitor's first load in check
          this.p = -1;
          return Next.Sleep;
        }
        // sched.resize asked for fewer Ps than run: whoever looks first gives its own P out of
        // service (DESIGN.md "Resizing: procs at run time").
        if (Atomics.load(i32, S_RT_SHRINK >>> 2) > 0 && core.pStop(this.p, m) >= 0) { // pairs with procresize's store
          if (tr !== null) tr.emit(traceClock(), EV_PARK, 0, this.p, 0);
          this.p = -1;
          return Next.Sleep;
        }
      }
      if (this.asyncPending !== 0) {
        if (this.asyncSinceYield >= ASYNC_BATCH) { this.asyncSinceYield = 0; return Next.Microtasks; }
        if ((n & 63) === 0 && now() - this.lastYield > MACRO_INTERVAL_MS) return Next.Macrotask;
      }
    }
  }

  // ---- Sleeper: what the park ladders need (park.ts) ---------------------------------------
  pendingWork(): boolean {
    return this.asyncPending !== 0 || this.waiters.live !== 0;
  }

  stop(): void {
    this.stopping = true;
  }

  idleOut(): boolean {
    if (this.core.mExit(this.mid, this.minLive) === 0) return false;
    this.idledOut = true;
    this.stopping = true;
    return true;
  }

  drainInbox(): void {
    this.waiters.drainIfAny();
  }

  acquire(): void {
    this.p = this.core.acquireP(this.mid);
    this.lastYield = now();
    if (this.trace !== null) this.trace.emit(traceClock(), EV_UNPARK, 0, this.p, 0);
  }

  /** Takes turns of the event loop until the message handler has received every shared
   *  buffer announced in S_RT_SHARES (DESIGN.md "Shared buffers"). */
  async receiveShares(): Promise<void> {
    while (Atomics.load(this.views.i32, S_RT_SHARES >>> 2) > this.sharesSeen) { // pairs with deliverShares' store (engine-spawn.ts)
      this.state(MS_SHARES);
      await new Promise((r) => setTimeout(r, 0));
    }
  }

  // ---- ContextHost: what ctx.spawn and ctx.join do (spawn.ts) -------------------------------
  spawnFrom(ctx: TaskContext, name: string, cls: number, argc: number, a0: unknown, a1: unknown, a2: unknown,
    a3: unknown, a4: unknown, a5: unknown, a6: unknown, rest: unknown[] | null): Task<unknown> {
    return spawnChild(this, ctx, name, cls, argc, a0, a1, a2, a3, a4, a5, a6, rest);
  }

  joinFrom(_ctx: TaskContext, name: string, args: unknown[]): JoinRequest {
    return joinRequest(this, name, args);
  }

  parFrom(ctx: TaskContext, what: string, kind: number, name: unknown, source: unknown, combine: unknown, options: unknown): unknown {
    return parCall(this, ctx, what, kind, name, source, combine, options);
  }
}
