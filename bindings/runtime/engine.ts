// The main thread's engine behind the public Scheduler: it lays out the shared memory, starts
// the Ms, turns root spawns into Gs on the global queue, and settles their Tasks from M0's inbox
// (one Atomics.waitAsync per batch of results, not a message per task).
//
// Everything here runs on the main thread (M0), which never holds a P and never blocks.
//
// This file is the engine's start-up, what it shows (stats, the trace, schedtrace) and its close;
// its state, threads, root spawning and results are the classes it extends (engine-state.ts,
// engine-threads.ts, engine-spawn.ts, engine-pump.ts).

import {
  MR_ASYNC, MR_CURG, MR_FINISHED, MR_SPAWNED, FLAG_DEBUG, FLAG_GLOBAL_ONLY, FLAG_THRESHOLD_LOAD, FLAG_VICTIM_HINT,
  ORDER_ROUND_ROBIN, ORDER_RANDOM, G_SIZE, PAGE,
} from '../../assembly/shared/layout.js';
import { attachCore, createMemory, loadCoreModule, loadCoreModuleSync } from '../core/index.js';
import { closedError, closedForceError, platformError, unknownTaskError } from './base/errors.js';
import type { ResolvedOptions } from './options.js';
import { now, platformProblem, syncStartProblem, threadOptionsProblem, unrefTimer } from './host/platform.js';
import { schedtraceLines } from './observe/schedtrace.js';
import { formatDump, readDump, type Dump } from './observe/dump.js';
import { onDumpSignal } from './observe/dump-signal.js';
import { allocTraceRings, exportTrace, traceClock } from './observe/trace.js';
import { allocHistograms } from './observe/latency.js';
import type { SchedulerStats } from './observe/stats.js';
import { readStats } from './observe/readstats.js';
import { inboxEmpty } from './sleep/inbox.js';
import { dropLateResults } from './threads/recover.js';
import { blocksEnd, mAddr } from './memory/mblock.js';
import { stopAll } from './sleep/park.js';
import { EnginePump } from './engine-pump.js';
import { MaxProcsUpdate } from './threads/maxprocs.js';
import { procsDefault, type ProcsDefault, type ProcsSource } from './host/cgroup.js';

export type { SpawnOptions } from './engine-state.js';

export class Engine extends EnginePump {
  /** Follows the default procs while it is one (null: procs was given, or resize called). */
  maxprocs: MaxProcsUpdate | null = null;
  /** Where procs comes from now, and the CPU limit last read (stats). */
  procsSource: ProcsSource = this.opts.procsSource;
  cpuLimit: number | null = this.opts.cpuLimit;

  /** Builds the memory, starts every M and waits for their handshakes. */
  static async start(opts: ResolvedOptions): Promise<Engine> {
    const problem = (await platformProblem()) ?? threadOptionsProblem(opts.thread);
    if (problem !== null) throw platformError(problem);
    const module = await loadCoreModule(opts.backend, opts.debug);
    const e = Engine.build(opts, module);
    try {
      await e.startThreads(module);
    } catch (err) {
      await Promise.all(e.threads.map((t) => t?.terminate()));
      e.alive.end();
      throw err;
    }
    e.begin();
    e.alive.release(); // started, and nothing is pending yet
    return e;
  }

  /**
   * Engine.start, finished in the caller's turn where the platform allows it (Node, Deno, Bun):
   * the core compiled and the threads started synchronously, their handshakes not waited for
   * (DESIGN.md "A synchronous start"). Root tasks may be spawned at once; the threads take them
   * as they come up. A thread that fails its start fails the scheduler (onStartFailed).
   */
  static startSync(opts: ResolvedOptions): Engine {
    const problem = syncStartProblem() ?? threadOptionsProblem(opts.thread);
    if (problem !== null) throw platformError(problem, 'Scheduler.startSync');
    const module = loadCoreModuleSync(opts.backend, opts.debug);
    const e = Engine.build(opts, module);
    e.atOnce = true;
    let handshakes: Promise<unknown>;
    try {
      handshakes = e.startThreadsSync(module);
    } catch (err) {
      for (const t of e.threads) void t?.terminate().catch(() => undefined);
      throw err;
    }
    e.begin();
    // The threads hold the process until their handshakes (a new Worker is ref'd); after that
    // only while work is pending (DESIGN.md "What keeps the process alive"): the idle look
    // releases them once nothing is (a pool made and never used lets the program end).
    void handshakes.then(() => e.lookIdle());
    return e;
  }

  /** The shared memory and the core over it, every P waiting for a thread. */
  private static build(opts: ResolvedOptions, module: WebAssembly.Module | null): Engine {
    // The core has procs + spareThreads Ps; the spares start in the reserve (sysmon.ts).
    const nprocs = opts.maxProcs + opts.spareThreads;
    const nms = nprocs + 1; // M0 (this thread) + one M per P
    const fixed = blocksEnd(nprocs, nms);
    const want = fixed + opts.initialTasks * G_SIZE + (1 << 20);
    const initialPages = Math.ceil(want / PAGE) + 1;
    const maxPages = Math.max(initialPages, Math.floor(opts.maxMemoryMB * 1024 * 1024 / PAGE));
    const memory = createMemory(initialPages, maxPages);
    const core = attachCore(opts.backend, memory, module, false);
    let flags = opts.victimOrder === 'round-robin' ? ORDER_ROUND_ROBIN : ORDER_RANDOM;
    if (opts.victimHint) flags |= FLAG_VICTIM_HINT;
    if (opts.stealThreshold === 'load') flags |= FLAG_THRESHOLD_LOAD;
    if (opts.globalQueueOnly) flags |= FLAG_GLOBAL_ONLY;
    if (opts.debug) flags |= FLAG_DEBUG;
    const threshold = opts.stealThreshold === 'load' ? 1 : opts.stealThreshold;
    core.init(nprocs, nms, opts.initialTasks, opts.maxTasks, flags, threshold, opts.seed);
    for (let p = opts.maxProcs; p < nprocs; p++) core.pReserve(p);
    // Every P waits for a thread; each thread takes one as it starts (mStart), so a P never sits
    // idle without an idle M (DESIGN.md "Threads that come and go"). The Ps beyond procs (up to
    // maxProcs) start out of service ("Resizing: procs at run time").
    for (let p = 0; p < opts.maxProcs; p++) core.pDetach(p);
    core.procresize(opts.procs, opts.maxProcs);
    const e = new Engine(opts, memory, core);
    if (opts.trace) {
      allocTraceRings(e.views, core, nms, opts.traceEvents);
      e.sysmon.onEvent = (name, p) => { e.monitorLog.push({ t: traceClock(), name, args: { P: p } }); };
    }
    allocHistograms(e.views, core, nms);
    e.reservedBlocks = (nms - 1) * (opts.trace ? 2 : 1);
    return e;
  }

  /** The start-up threads are started: the monitor, startm, schedtrace and the default procs'
   *  updates begin. */
  private begin(): void {
    if (this.opts.schedtrace > 0) this.startSchedtrace();
    if (this.opts.dumpSignal !== null) this.stopTimers.push(onDumpSignal(this.opts.dumpSignal, () => this.opts.logger(formatDump(this.dump()))));
    if (this.opts.procsSource !== 'option') {
      // procs is the default: follow it as Go 1.25 follows its default GOMAXPROCS (maxprocs.ts).
      this.maxprocs = new MaxProcsUpdate(this.opts.procs, this.opts.cpuLimit, procsDefault, (d) => this.followDefault(d));
      this.maxprocs.start();
      this.stopTimers.push(() => this.maxprocs?.stop());
    }
    this.sysmon.busy = () => this.npending !== 0 || this.deferred.length !== 0 || !this.allFinished();
    this.sysmon.startM = () => { if (this.startm.starting === 0) this.growM(1); };
    this.stopTimers.push(() => this.sysmon.stop());
    this.stopTimers.push(() => this.startm.stop());
    this.running = true;
  }

  /** The default procs changed (maxprocs.ts): resize to it, within maxProcs. */
  protected followDefault(d: ProcsDefault): void {
    if (this.closed || this.closing !== null || this.failure !== null) return;
    this.procsSource = d.source;
    this.cpuLimit = d.limit === null ? null : d.limit.cpus;
    const n = Math.min(d.procs, this.opts.maxProcs);
    if (n !== this.procs) void this.resize(n).catch(() => undefined); // only close rejects it
  }

  /** sched.resize: the user sets GOMAXPROCS, and the default is followed no more (as in Go). */
  resizeByUser(n: number): Promise<void> {
    if (this.maxprocs !== null && !this.closed && this.closing === null) {
      this.maxprocs.stop();
      this.maxprocs = null;
      this.procsSource = 'option';
    }
    return this.resize(n);
  }

  /** Prints Go's SCHED lines every opts.schedtrace ms until close (the timer never keeps the
   *  process alive). The first line is SCHED 0ms, as in Go. */
  protected startSchedtrace(): void {
    let t0 = -1;
    const print = (): void => {
      const t = now();
      if (t0 < 0) t0 = t; // Go's first line is SCHED 0ms: the clock starts at the first call
      for (const line of schedtraceLines(this.stats(), this.views, t - t0, this.opts.scheddetail)) this.opts.logger(line);
    };
    print();
    const timer = unrefTimer(setInterval(print, this.opts.schedtrace));
    this.stopTimers.push(() => clearInterval(timer));
  }

  /** The platform's Worker objects of the threads (Node's worker_threads.Worker). */
  get workers(): unknown[] {
    const out: unknown[] = [];
    for (const t of this.threads) if (t !== null) out.push(t.worker);
    return out;
  }

  /** The tasks the thread of `worker` has in progress now: the one it runs (MR_CURG) and its
   *  async ones awaiting (MR_ASYNC); 0 for a thread no longer in the scheduler. A snapshot. */
  threadUsage(worker: unknown): number {
    const i = this.threads.findIndex((t) => t !== null && t.worker === worker);
    if (i < 0) return 0;
    const a = mAddr(this.views, i + 1);
    const u32 = this.views.u32;
    return (Atomics.load(u32, (a + MR_CURG) >>> 2) !== 0 ? 1 : 0) + Atomics.load(u32, (a + MR_ASYNC) >>> 2); // pairs with the M's stores
  }

  /** The M slot (1..) of the thread of `worker`; 0 for a thread no longer in the scheduler. */
  threadSlot(worker: unknown): number {
    return this.threads.findIndex((t) => t !== null && t.worker === worker) + 1;
  }

  /**
   * Starts one thread now, for a P without one, as piscina adds a worker in `run()` when a task
   * finds none free (the piscina entry's dispatch ledger). startm would start it at the end of
   * the turn for the work waiting; a piscina program counts `pool.threads` right after `run()`.
   * False when every P has a thread or one is starting for it. Main thread.
   */
  addThread(): boolean {
    if (this.startm.withoutM - this.startm.starting <= 0) return false;
    const before = this.startm.starting;
    this.growM(1);
    return this.startm.starting > before;
  }

  /** Threads running now (each worker M slot that has one). */
  get liveThreads(): number {
    let n = 0;
    for (const t of this.threads) if (t !== null) n++;
    return n;
  }

  /** The event trace as Chrome Trace Event JSON (empty unless started with trace: true). */
  trace(): ReturnType<typeof exportTrace> {
    return exportTrace(this.views, this.nms, this.names, this.monitorLog);
  }

  /** The task dump (observe/dump.ts): every live task, read from the G table. */
  dump(): Dump {
    return readDump(this.gs, this.names, this.nms);
  }

  stats(): SchedulerStats {
    const st = readStats(this.views, this.reservedBlocks, this.nms, this.core);
    st.sched.restarts = this.restarts;
    st.sched.lateResults = this.lateResults;
    st.sched.sharedBuffers = this.shared.size;
    st.sched.threadsStarting = this.startm.starting;
    st.sched.sharesReleased = this.sharesReleased;
    st.sched.gomaxprocs = this.procs;
    st.sched.procsSource = this.procsSource;
    st.sched.cpuLimit = this.cpuLimit;
    st.sched.liveThreads = this.liveThreads;
    st.sched.threadStarts = this.threadStarts;
    st.sched.threadExits = this.threadExits;
    st.sched.threadStartFailures = this.threadStartFailures;
    st.sched.spareThreads = this.opts.spareThreads;
    return st;
  }

  /**
   * Waits for every task, then stops the Ms; with `force`, rejects what is pending and stops them
   * at once. A forced close ends a graceful one still waiting (both resolve once the threads are
   * gone); any other second close returns the first one's promise.
   */
  /** sched.broadcast: task `name` once on every thread, now and at each later thread's start
   *  (broadcast.ts). */
  broadcast(name: string, args: unknown[]): Promise<unknown[]> {
    if (this.closed || this.closing !== null) return Promise.reject(closedError(`broadcast('${name}')`));
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.namesKnown && !this.ids.has(name)) return Promise.reject(unknownTaskError(name, this.names));
    try {
      return this.broadcasts.send(name, args, this.threads, this.views);
    } catch (e) {
      return Promise.reject(e); // arguments structuredClone refused
    }
  }

  close(force: boolean): Promise<void> {
    if (this.idleLook !== null) { clearTimeout(this.idleLook); this.idleLook = null; }
    this.alive.holdFor('close'); // a close in progress holds the process until the threads are gone (stopThreads ends it)
    if (force && !this.closed) {
      this.closed = true; // a graceful close still draining sees this and waits for the stop below
      this.output.wake(); // ... also one waiting for output
      const err = closedForceError();
      this.failAll(err, true); // abandoned on purpose: no unhandledRejection for the unobserved ones
      for (const d of this.deferred) d.task.settle(false, err, true);
      this.deferred = [];
      this.stopping = this.stopThreads(0);
      if (this.closing === null) this.closing = this.stopping;
      return this.stopping;
    }
    if (this.closing === null) this.closing = this.drainThenStop();
    return force ? this.stopping ?? this.closing : this.closing;
  }

  protected async drainThenStop(): Promise<void> {
    // Root tasks first, then whatever they left running (detached children). The per-M counters
    // are not announced to this thread, so it looks every few ms (twice quiet in a row: a child
    // spawned between the two reads of one look shows up in the next).
    let quiet = 0;
    let delay = 1;
    while (quiet < 2) {
      if (this.failure !== null || this.closed) break;
      if (this.npending === 0 && this.deferred.length === 0 && this.allFinished()) quiet++;
      else quiet = 0;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 16);
    }
    // Then the output the tasks wrote, until it has all arrived here (DESIGN.md "Task output").
    if (this.failure === null && !this.closed) await new Promise<void>((r) => this.output.whenArrived(r));
    if (this.stopping !== null) return this.stopping; // a forced close overtook this one
    this.closed = true;
    this.stopping = this.stopThreads(1000);
    return this.stopping;
  }

  /** True when every task spawned anywhere has finished (sums of the per-M counters). */
  protected allFinished(): boolean {
    const f64 = this.views.f64;
    let s = 0;
    let f = 0;
    for (let m = 0; m < this.nms; m++) {
      const ma = mAddr(this.views, m);
      s += f64[(ma + MR_SPAWNED) >>> 3];
      f += f64[(ma + MR_FINISHED) >>> 3];
      // A result still in an inbox is not consumed yet; in a slot without a thread it is a late
      // one (its waiter died with an earlier thread of the slot): freed here, as nobody else will.
      if (m > 0 && !inboxEmpty(this.views, m)) {
        if (this.threads[m - 1] !== null) return false;
        this.lateResults += dropLateResults(this.gs, this.core, m);
      }
    }
    // Root tasks count as spawned by M0 and finished where they ran, and once more on delivery.
    return f === s + this.spawned;
  }

  protected async stopThreads(graceMs: number): Promise<void> {
    for (const stop of this.stopTimers) stop();
    stopAll(this.views, this.nms);
    if (graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all(this.exits), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
      clearTimeout(timer);
    }
    await Promise.all(this.threads.map((t) => t?.terminate()));
    this.alive.end();
  }
}
