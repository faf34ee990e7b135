// The main thread's engine behind the public Scheduler: it lays out the shared memory, starts
// the Ms, turns root spawns into Gs on the global queue, and settles their Tasks from M0's inbox
// (one Atomics.waitAsync per batch of results, not a message per task).
//
// Everything here runs on the main thread (M0), which never holds a P and never blocks.

import {
  MR_FINISHED, MR_SPAWNED,
  FLAG_DEBUG, FLAG_GLOBAL_ONLY, FLAG_THRESHOLD_LOAD, FLAG_VICTIM_HINT, ORDER_ROUND_ROBIN, ORDER_RANDOM,
  PRIO_NORMAL, G_SIZE, PAGE, S_RT_SHARES, G_DEAD, G_RUNNABLE, G_PRIO, G_TOKEN_SHIFT, G_SPAWN_TIME,
} from '../../assembly/shared/layout.js';
import { attachCore, createMemory, loadCoreModule, type Core } from '../core/index.js';
import {
  abortedError, asMemoryError, closedError, closedForceError, killReason, platformError, replacementFailedError, taskModuleMismatchError,
  timeoutError, uncaughtError, unknownTaskError, workerCrashedError, workerExitError, workerLoopError, workerStartError,
} from './base/errors.js';
import { CancelTokens, SignalWatch } from './tasks/cancel.js';
import { GSlots } from './memory/gslots.js';
import type { ResolvedOptions } from './options.js';
import { isNode, now, platformProblem, startThread, threadOptionsProblem, unrefTimer, type ThreadHandle } from './host/platform.js';
import { isEngineMessage, type ToWorker } from './messages.js';
import { schedtraceLines } from './observe/schedtrace.js';
import { allocTraceRings, exportTrace, traceClock, type MonitorEvent } from './observe/trace.js';
import { allocHistograms, LATENCY_SAMPLE } from './observe/latency.js';
import type { SchedulerStats } from './observe/stats.js';
import { readStats } from './observe/readstats.js';
import { TASK_PENDING } from './tasks/task.js';
import { RootTask } from './tasks/root-task.js';
import { inboxEmpty, takeInbox } from './sleep/inbox.js';
import { blocksEnd, mAddr } from './memory/mblock.js';
import { parkSwap, parkWaitAsync, parkWord, stopAll, wakeForMessage } from './sleep/park.js';
import { Views } from './memory/values.js';
import { SharedRegistry } from './memory/shared-registry.js';
import { Sysmon } from './threads/sysmon.js';
import { priorityClass, type Priority } from './tasks/priority.js';
import { casualties, detachOrphans, failCasualties } from './threads/recover.js';
import { rootAwaited } from './tasks/join.js';
import { longTimeout } from './host/timer.js';
import { KeepAlive } from './threads/keepalive.js';
import { StartM } from './threads/startm.js';
import { Killer, type KillCause } from './tasks/kill.js';

interface Deferred {
  task: RootTask<unknown>;
  id: number;
  args: unknown[];
  token: number;
  /** Priority class byte (PRIO_*). */
  cls: number;
}

/** Per-spawn options of root tasks (sched.with(...)). */
export interface SpawnOptions {
  /** Aborting it cancels the task and every task it spawns. */
  signal?: AbortSignal;
  /** Cancel after this many ms. */
  timeout?: number;
  /** With `timeout` or `signal`: their cancellation also terminates a thread still running the
   *  task's code (DESIGN.md "Killing a task"). */
  kill?: boolean;
  /** The task's class (default 'normal'); the tasks it spawns inherit it. */
  priority?: Priority;
  /** ArrayBuffers moved into the task: copied into shared memory with the arguments, then
   *  detached in the caller, as postMessage's transfer list leaves them. */
  transfer?: readonly ArrayBuffer[];
}

/** Detaches each buffer (its contents move to a clone that is dropped: no copy). */
function detach(bufs: readonly ArrayBuffer[]): void {
  for (const b of bufs) structuredClone(b, { transfer: [b] });
}

const WORKER_URL = new URL('./worker.js', import.meta.url);

/** Root spawns queued before the batch goes to the global queue even within one turn. */
const FLUSH_AT = 256;

export class Engine {
  readonly opts: ResolvedOptions;
  readonly memory: WebAssembly.Memory;
  readonly core: Core;
  readonly views: Views;
  readonly gs: GSlots;
  readonly shared: SharedRegistry;
  names: string[] = [];
  private ids = new Map<string, number>();
  /** Each worker M slot's thread (slot i at i - 1); null while the slot has none (not started,
   *  or idled out: DESIGN.md "Threads that come and go"). */
  private threads: Array<ThreadHandle<ToWorker, unknown> | null> = [];
  /** Root Tasks by G id (an array: ids are dense), and how many are pending. */
  private pending: Array<RootTask<unknown> | undefined> = [];
  private npending = 0;
  private batch: number[] = [];
  private deferred: Deferred[] = [];
  private pumping = false;
  private spawned = 0;
  private finished = 0;
  private failure: Error | null = null;
  closing: Promise<void> | null = null;
  /** The threads' stop, once under way (a forced close, or a graceful one done draining). */
  private stopping: Promise<void> | null = null;
  closed = false;
  private readonly park0: number;
  /** Address of M0's block (the main thread's counters and inbox). */
  private readonly mAddr0: number;
  private readonly exits: Array<Promise<void>> = [];
  /** M slots: M0 (this thread) and one worker per P, spares included. */
  readonly nms: number;
  /** The monitor that lends spare Ps to the work behind a long task. */
  readonly sysmon: Sysmon;
  /** The compiled core (null for the TypeScript twin), for threads started later. */
  private module: WebAssembly.Module | null = null;
  /** Threads started to replace crashed ones. */
  restarts = 0;
  /** Threads started for Ps without one (after start-up), and threads that idled out. */
  threadStarts = 0;
  threadExits = 0;
  /** Starts threads for work that waits on a P without one (startm.ts). */
  readonly startm: StartM;
  /** Set once the start-up threads are ready: a thread started later gets the shared buffers
   *  registered so far before its init. */
  private running = false;
  /** Ps in service now (GOMAXPROCS): opts.procs at the start, then what sched.resize set. */
  procs: number;
  /** sched.resize still under way: Ms yet to give their Ps back, or Ps still to bring back. */
  private resizing: { timer: ReturnType<typeof setInterval>; done: Array<() => void> } | null = null;
  /** What the monitor did, for the event trace (kept only when tracing). */
  private readonly monitorLog: MonitorEvent[] = [];
  private readonly stopTimers: Array<() => void> = [];
  /** Value blocks the scheduler keeps for itself (histograms, trace rings, cancellation flags). */
  private reservedBlocks = 0;
  /** Root spawns counted for latency sampling. */
  private sampled = 0;
  /** Cancellation tokens (made on first use) and the clean-ups of cancellable root tasks. */
  private tokens: CancelTokens | null = null;
  private readonly cleanups = new Map<RootTask<unknown>, () => void>();
  /** Claims the threads running a killed tree's code (made with the first kill-armed token). */
  private killer: Killer | null = null;
  /** Threads already being recovered (a kill and the thread's own end give one recovery). */
  private readonly recovered = new WeakSet<object>();
  /** The one 'abort' listener of each signal given to root tasks. */
  private readonly signals = new SignalWatch();
  /** Shared buffers every worker has acknowledged (ids below this), and the delivery in flight. */
  private sharesAcked = 0;
  private sharesDelivered: Promise<void> = Promise.resolve();
  private shareWaiters: Array<{ m: number; id: number; resolve(): void }> = [];
  /** Told when a thread died outside close and was replaced, with the number of tasks that
   *  failed with it (the stealwork/piscina entry's 'error' event). */
  onThreadError: ((err: Error, failedTasks: number) => void) | null = null;
  /** Whether the threads hold the process (keepalive.ts): while work is pending. */
  private readonly alive = new KeepAlive(() => this.threads);
  /** The look for detached tasks still running after the last root settled, when scheduled. */
  private idleLook: ReturnType<typeof setTimeout> | null = null;

  private constructor(opts: ResolvedOptions, memory: WebAssembly.Memory, core: Core) {
    this.opts = opts;
    this.memory = memory;
    this.core = core;
    this.views = new Views(memory);
    this.shared = new SharedRegistry(true);
    this.gs = new GSlots(core, this.views, this.shared);
    this.mAddr0 = mAddr(this.views, 0);
    this.park0 = parkWord(this.views, 0);
    this.nms = opts.maxProcs + opts.spareThreads + 1;
    this.procs = opts.procs;
    this.sysmon = new Sysmon(this.views, core, this.nms - 1, opts.spareThreads, opts.handoffAfterMs, now, opts.ncpu);
    this.startm = new StartM(this.views, core, opts.maxProcs, (n) => this.growM(n),
      () => this.npending !== 0 || this.deferred.length !== 0 || !this.allFinished());
  }

  /** Builds the memory, starts every M and waits for their handshakes. */
  static async start(opts: ResolvedOptions): Promise<Engine> {
    const problem = (await platformProblem()) ?? threadOptionsProblem(opts.thread);
    if (problem !== null) throw platformError(problem);
    const module = await loadCoreModule(opts.backend, opts.debug);
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
    try {
      await e.startThreads(module);
    } catch (err) {
      await Promise.all(e.threads.map((t) => t?.terminate()));
      throw err;
    }
    if (opts.schedtrace > 0) e.startSchedtrace();
    e.sysmon.busy = () => e.npending !== 0 || e.deferred.length !== 0 || !e.allFinished();
    e.sysmon.startM = () => { if (e.startm.starting === 0) e.growM(1); };
    e.stopTimers.push(() => e.sysmon.stop());
    e.stopTimers.push(() => e.startm.stop());
    e.running = true;
    e.alive.release(); // started, and nothing is pending yet
    return e;
  }

  private async startThreads(module: WebAssembly.Module | null): Promise<void> {
    this.module = module;
    const ready: Array<Promise<string[]>> = [];
    // The threads for startThreads Ps and the spares' threads; the other slots wait for work.
    const n = Math.max(1, this.opts.startThreads) + this.opts.spareThreads;
    for (let i = 1; i <= n; i++) ready.push(this.startM(i, undefined));
    for (let i = n + 1; i < this.nms; i++) this.threads[i - 1] = null;
    const lists = await Promise.all(ready);
    const names = lists[0];
    for (let m = 1; m < lists.length; m++) {
      if (lists[m].join('\0') !== names.join('\0')) throw taskModuleMismatchError(1, names, m + 1, lists[m]);
    }
    this.names = names;
    names.forEach((n, i) => this.ids.set(n, i));
  }

  /**
   * Starts the thread of M slot i (at start-up, or to replace a crashed one: `restart`) and
   * resolves with the task names it loaded.
   */
  private startM(i: number, restart: { resumeP: number } | undefined): Promise<string[]> {
    const o = this.opts;
    const t = startThread<ToWorker, unknown>(o.worker ?? WORKER_URL, `stealwork M${i}`, o.thread);
    this.threads[i - 1] = t;
    this.alive.adopt(t);
    let exitResolve!: () => void;
    this.exits[i - 1] = new Promise<void>((r) => { exitResolve = r; });
    let gone = false; // this thread's end is handled once (Node reports 'error', then 'exit')
    const ready = new Promise<string[]>((resolve, reject) => {
      let isReady = false;
      t.onMessage((msg) => {
        // Not the engine's: the thread's own code posted it (messages.ts).
        if (!isEngineMessage(msg)) { o.onMessage?.(msg); return; }
        switch (msg.type) {
          case 'stealwork:ready': isReady = true; resolve(msg.names); break;
          case 'stealwork:error':
            // After the handshake the M loop itself failed (not a task): the scheduler's state is
            // suspect; fail fast.
            if (isReady) this.crash(workerLoopError(i, msg.error));
            else reject(workerStartError(msg.code === 'ERR_TASK_MODULE' ? 'ERR_TASK_MODULE' : 'ERR_WORKER_START', msg.error));
            break;
          case 'stealwork:exit':
            exitResolve();
            if (msg.idle) this.idledOut(i, t);
            break;
          case 'stealwork:share-ack': this.onShareAck(i, msg.id); break;
          case 'stealwork:uncaught': this.uncaught(uncaughtError(i, msg.error)); break;
          case 'stealwork:halt': if (this.killer?.halted(i, msg.token)) this.killThread(i, this.killer.cause(msg.token)); break;
        }
      });
      t.onExit((reason, error) => {
        exitResolve();
        if (gone) return;
        gone = true;
        if (!isReady) reject(workerExitError(i, reason, error));
        else if (!this.closed) void this.recover(i, t, reason, error);
      });
    });
    if (restart !== undefined || this.running) t.post({ type: 'stealwork:share', shares: this.shared.all() });
    t.post({
      type: 'stealwork:init', memory: this.memory, module: this.module, backend: o.backend, tasks: o.tasks, mid: i,
      spinLimit: o.spinLimit, yieldLimit: o.yieldLimit, ncpu: o.ncpu, maxTasks: o.maxTasks, maxMemoryMB: o.maxMemoryMB, debug: o.debug, restart, calling: o.calling,
      idleTimeout: o.idleTimeout, minLive: o.minThreads + o.spareThreads,
      ...(isNode ? {} : { workerData: o.thread.workerData }), // Node passes it as the Worker's option
    });
    return ready;
  }

  /**
   * Starts up to n threads in free slots, for Ps without one (startm.ts): each takes a P off the
   * no-M list as it starts (mStart) and wakes an M for the work waiting.
   */
  private growM(n: number): void {
    if (this.closed || this.closing !== null || this.failure !== null) return;
    for (let i = 1; i < this.nms && n > 0; i++) {
      if (this.threads[i - 1] !== null) continue;
      n--;
      this.startm.starting++;
      this.threadStarts++;
      if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'startm', args: { M: i } });
      this.startM(i, undefined).then((names) => {
        this.startm.starting--;
        if (names.join('\0') !== this.names.join('\0')) this.crash(taskModuleMismatchError(1, this.names, i, names));
      }, (e: unknown) => {
        this.startm.starting--;
        this.threads[i - 1] = null;
        this.crash(replacementFailedError(i, 'it was started for a P without a thread', e));
      });
    }
  }

  /**
   * runtime.GOMAXPROCS(n) (DESIGN.md "Resizing: procs at run time"): n Ps in service from now on.
   * Resolves once no more than n Ps run tasks and n can: at once when no M holds a P it must give
   * back, else after the Ms give theirs back between two tasks (a P running one long task gives
   * it back when that task ends).
   */
  resize(n: number): Promise<void> {
    if (this.closed || this.closing !== null) return Promise.reject(closedError('resize'));
    if (this.failure !== null) return Promise.reject(this.failure);
    this.procs = n;
    const left = this.core.procresize(n, this.opts.maxProcs);
    this.core.wakep(); // a P back in service with an idle M: work waiting finds it
    this.startm.look(); // or a P without an M: a thread starts when work waits for it
    if (left === 0 && this.resizing === null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (this.resizing === null) {
        const r = { timer: unrefTimer(setInterval(() => this.resizeLook(), 4)), done: [] as Array<() => void> };
        this.stopTimers.push(() => { clearInterval(r.timer); for (const f of r.done) f(); });
        this.resizing = r;
      }
      this.resizing.done.push(resolve);
    });
  }

  /** Every 4 ms while a resize is under way: moves what can move now (an idle P out of service,
   *  a given-back P back in), and settles the resizes once nothing is left. */
  private resizeLook(): void {
    const r = this.resizing;
    if (r === null) return;
    if (this.core.procresize(this.procs, this.opts.maxProcs) !== 0) return;
    this.core.wakep();
    this.startm.look();
    clearInterval(r.timer);
    this.resizing = null;
    for (const f of r.done) f();
  }

  /** M slot i's thread left the scheduler after idleTimeout (mExit): it ends, and the slot is
   *  free for a thread started later. A share delivery waiting for its acknowledgement does not
   *  wait any longer: a thread started in the slot gets every buffer before its init. */
  private idledOut(i: number, t: ThreadHandle<ToWorker, unknown>): void {
    if (this.threads[i - 1] !== t || this.closed) return;
    this.threads[i - 1] = null;
    this.threadExits++;
    this.onShareAck(i, Number.MAX_SAFE_INTEGER);
    if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'idle exit', args: { M: i } });
    void t.terminate().catch(() => undefined);
  }

  /**
   * M slot i's thread died outside close (DESIGN.md "Crashed workers"): fail the task it was
   * running and the async tasks pinned to it with WorkerCrashedError, then start a new thread
   * in the same slot, which takes over its P (and so its queue) or its place on the idle list.
   */
  private async recover(i: number, dead: ThreadHandle, reason: string, cause: unknown, killed = false): Promise<void> {
    if (this.failure !== null || this.recovered.has(dead)) return;
    this.recovered.add(dead);
    await dead.terminate().catch(() => undefined); // make sure it is gone before its slot is reused
    if (this.closed) return;
    const err = workerCrashedError(i, reason, cause);
    const c = casualties(this.gs, i);
    const failed = failCasualties(this.gs, this.core, i, c, err, this.names);
    detachOrphans(this.gs, this.core, i);
    this.killer?.reset(i);
    this.restarts++;
    if (!killed) this.onThreadError?.(err, failed); // a kill was asked for: its task's rejection reports it
    if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'restart', args: killed ? { M: i, P: c.p, failed, killed: 1 } : { M: i, P: c.p, failed } });
    try {
      await this.startM(i, { resumeP: c.p });
    } catch (e) {
      this.crash(replacementFailedError(i, reason, e));
    }
  }

  /** Ends M slot i's thread, claimed for a kill (kill.ts), and recovers its slot as for a
   *  crash; `why` undefined: a leftover of a tree whose root is back. */
  private killThread(i: number, why: KillCause | undefined): void {
    const t = this.threads[i - 1];
    if (t === null) return; // a claimed thread runs a task: it has not idled out
    void this.recover(i, t, killReason(why?.task), why?.err, true);
  }

  /** An error thrown outside any task in a worker (DESIGN.md "Stranded callbacks"): to the
   *  onError hook, else an unhandledRejection here, as a rejected Promise nobody awaits. */
  private uncaught(err: Error): void {
    const hook = this.opts.onError;
    if (hook !== null) hook(err);
    else void Promise.reject(err);
  }

  /** Releases a root task's cancellation token and listeners, once its G is back. */
  private cleanup(t: RootTask<unknown>): void {
    const f = this.cleanups.get(t);
    if (f !== undefined) { this.cleanups.delete(t); f(); }
  }

  /** Rejects every root Task still pending or deferred. */
  private failAll(err: Error, quiet = false): void {
    for (const t of this.pending) if (t !== undefined) t.settle(false, err, quiet);
    this.pending = [];
    this.npending = 0;
  }

  /** The scheduler itself failed (an M loop error that is not a task's, or a replacement thread
   *  that would not start): fail everything pending. A crashed thread alone is recovered. */
  private crash(err: Error): void {
    if (this.failure !== null) return;
    this.failure = err;
    this.failAll(err);
    for (const d of this.deferred) d.task.settle(false, err);
    this.deferred = [];
  }

  /**
   * Spawns a root task: a G whose result comes back to this thread. Gs spawned in one turn of
   * the event loop go to the global queue together, with one lock and one wakep, at the next
   * microtask (DESIGN.md "Root tasks").
   */
  spawn(name: string, args: unknown[], opts: SpawnOptions | null = null): RootTask<unknown> {
    const t = new RootTask<unknown>(String(name));
    if (this.closed || this.closing) { t.settle(false, closedError(`spawn('${name}')`)); return t; }
    if (this.failure !== null) { t.settle(false, this.failure); return t; }
    const id = this.ids.get(name);
    if (id === undefined) { t.settle(false, unknownTaskError(name, this.names)); return t; }
    let token = 0;
    let cls = PRIO_NORMAL;
    if (opts !== null) {
      if (opts.signal !== undefined || opts.timeout !== undefined) {
        token = this.cancellable(t, opts);
        if (t.state !== TASK_PENDING) return t; // already aborted
      }
      if (opts.priority !== undefined) cls = priorityClass(opts.priority);
      if (opts.transfer !== undefined && opts.transfer.length !== 0) {
        this.submit(t, id, args, token, cls, opts.transfer);
        return t;
      }
    }
    this.submit(t, id, args, token, cls);
    return t;
  }

  /**
   * Gives task t a cancellation token wired to opts.signal and opts.timeout: on abort the
   * token's flag is set, the workers are told (for ctx.signal), and t rejects at once.
   */
  private cancellable(t: RootTask<unknown>, opts: SpawnOptions): number {
    const { signal, timeout } = opts;
    const kill = opts.kill === true;
    if (signal !== undefined && signal.aborted) {
      t.settle(false, abortedError(t.name, signal.reason, true));
      return 0;
    }
    if (this.tokens === null) { this.tokens = new CancelTokens(this.views, this.core); this.reservedBlocks++; }
    if (kill) this.killer ??= new Killer(this.views, this.nms);
    const token = this.tokens.take(kill);
    if (token === 0) return 0; // every token of its kind in use: the task runs uncancellable
    let stopTimer: (() => void) | undefined;
    const abort = (err: Error): void => {
      this.tokens!.cancel(token); // first: a thread marking itself killable after this sees it (kill.ts)
      // A kill-armed tree: end the threads running its code now (DESIGN.md "Killing a task").
      if (kill) for (const m of this.killer!.claim(token, { task: t.name, err })) this.killThread(m, { task: t.name, err });
      for (const th of this.threads) th?.post({ type: 'stealwork:cancel', token });
      t.settle(false, err);
    };
    const unwatch = signal === undefined ? undefined
      : this.signals.watch(signal, () => abort(abortedError(t.name, signal.reason, false, kill)));
    if (timeout !== undefined) {
      stopTimer = longTimeout(() => abort(timeoutError(t.name, timeout, kill)), timeout);
    }
    this.cleanups.set(t, () => {
      unwatch?.();
      stopTimer?.();
      this.tokens!.release(token);
      if (kill) this.killer!.forget(token);
    });
    return token;
  }

  private submit(t: RootTask<unknown>, id: number, args: unknown[], token: number, cls: number, transfer?: readonly ArrayBuffer[]): void {
    const core = this.core;
    const g = core.gfGet(-1);
    if (g === 0) {
      // Backpressure: the table is at maxTasks; wait until results free some Gs. Moved buffers
      // leave the caller now, into a private clone of the arguments.
      if (transfer !== undefined) {
        try {
          args = structuredClone(args, { transfer: transfer as ArrayBuffer[] });
        } catch (e) {
          this.cleanup(t);
          t.settle(false, e);
          return;
        }
      }
      this.deferred.push({ task: t, id, args, token, cls });
      this.alive.hold();
      this.pump();
      return;
    }
    const a = this.gs.addr(g);
    this.shared.usedMax = -1;
    try {
      this.gs.init(g, a, id, args, t.name);
    } catch (e) {
      core.gfPut(-1, g);
      this.cleanup(t);
      t.settle(false, asMemoryError(e, `spawn('${t.name}')`, this.opts.maxMemoryMB));
      return;
    }
    if (transfer !== undefined) detach(transfer); // the arguments hold their copy now
    if ((token | cls) !== 0) this.views.u32[(a + G_PRIO) >>> 2] = (token << G_TOKEN_SHIFT) | cls; // the tree inherits both
    if ((++this.sampled & (LATENCY_SAMPLE - 1)) === 0) this.views.f64[(a + G_SPAWN_TIME) >>> 3] = traceClock();
    rootAwaited(this.views, a); // the main thread (M0) awaits the root
    t.g = g;
    t.gen = this.gs.gen(a);
    this.sysmon.start(); // watches while tasks are in flight (a no-op when it runs already)
    this.pending[g] = t;
    this.npending++;
    this.alive.hold(); // a root is pending: the threads hold the process until nothing is
    this.views.f64[(this.mAddr0 + MR_SPAWNED) >>> 3] = ++this.spawned;
    if (this.shared.unsent.length !== 0) this.sharesDelivered = this.deliverShares();
    if (this.shared.usedMax >= this.sharesAcked) {
      // The arguments hold a shared buffer some worker may not have yet: every worker must hold
      // it before any may decode this G.
      this.sharesDelivered.then(() => { if (!this.closed) { core.ready(-1, g, 0); this.startm.look(); } }, (e) => this.crash(e as Error));
    } else if (cls !== PRIO_NORMAL) {
      core.ready(-1, g, 0); // straight to its class queue: the batch is for the global queue
      this.startm.look();
    } else {
      this.batch.push(g);
      if (this.batch.length === 1) queueMicrotask(this.flush);
      else if (this.batch.length >= FLUSH_AT) this.flush(); // a long synchronous burst: let the Ms start
      return; // flush starts the pump, after the wake-up: its first Atomics.waitAsync costs ~15 us
    }
    this.pump();
  }

  /** Puts the Gs spawned since the last flush on the global queue in one batch, then wakep. */
  private readonly flush = (): void => {
    const batch = this.batch;
    const n = batch.length;
    if (n === 0 || this.closed) { batch.length = 0; return; }
    const gs = this.gs;
    const core = this.core;
    for (let i = 0; i < n; i++) {
      const g = batch[i];
      const a = gs.addr(g);
      gs.setSchedlink(a, i + 1 < n ? batch[i + 1] : 0);
      if (this.opts.debug) core.gSetStatus(g, G_DEAD, G_RUNNABLE);
      else Atomics.store(this.views.u32, a >>> 2, G_RUNNABLE); // G_STATUS: pairs with the M's load after globrunqGet (published by the queue lock)
    }
    core.globrunqPutBatch(batch[0], batch[n - 1], n);
    batch.length = 0;
    core.wakep();
    this.startm.look(); // a P whose thread idled out gets one again when work waits for it
    this.pump(); // the results come back to M0's inbox (a result already there is taken at once)
  };

  /** Posts the unsent shared buffers to every worker; resolves when all have acknowledged
   *  (and every earlier delivery has, too). */
  private deliverShares(): Promise<void> {
    const batch = this.shared.unsent.splice(0);
    const last = batch[batch.length - 1].id;
    Atomics.store(this.views.i32, S_RT_SHARES >>> 2, last + 1); // pairs with the Ms' loads between tasks (m.ts schedule) and in receiveShares
    const acks: Array<Promise<void>> = [];
    this.threads.forEach((t, i) => {
      if (t === null) return; // no thread: one started later gets every buffer before its init
      acks.push(new Promise<void>((resolve) => {
        this.shareWaiters.push({ m: i + 1, id: last, resolve });
        t.post({ type: 'stealwork:share', shares: batch });
        wakeForMessage(this.views, i + 1); // a sleeping M takes a turn of its event loop
      }));
    });
    const before = this.sharesDelivered;
    return Promise.all([before, ...acks]).then(() => { this.sharesAcked = Math.max(this.sharesAcked, last + 1); });
  }

  private onShareAck(m: number, id: number): void {
    this.shareWaiters = this.shareWaiters.filter((w) => {
      if (w.m === m && w.id <= id) { w.resolve(); return false; }
      return true;
    });
  }

  /** Settles root Tasks as their Gs arrive in M0's inbox; runs while any is pending. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.pumpLoop();
  }

  private async pumpLoop(): Promise<void> {
    const i32 = this.views.i32;
    const out = { ok: true, value: undefined as unknown };
    try {
      while (this.npending !== 0 || this.deferred.length !== 0) {
        if (this.failure !== null) break;
        parkSwap(i32, this.park0); // before the take: a push after it sets the bit again
        let g = takeInbox(this.views, 0);
        if (g === 0) {
          const w = parkWaitAsync(i32, this.park0);
          if (w !== null) await w;
          continue;
        }
        while (g !== 0) {
          const a = this.gs.addr(g);
          const next = this.gs.schedlink(a);
          const t = this.pending[g];
          this.pending[g] = undefined;
          this.npending--;
          this.gs.takeResult(a, out);
          this.core.gfPut(-1, g);
          this.views.f64[(this.mAddr0 + MR_FINISHED) >>> 3] = ++this.finished;
          if (t !== undefined) { if (this.cleanups.size !== 0) this.cleanup(t); t.settle(out.ok, out.value); }
          out.value = undefined;
          g = next;
        }
        if (this.deferred.length !== 0) this.retryDeferred();
      }
    } finally {
      this.pumping = false;
    }
    this.lookIdle();
  }

  /**
   * After the last root settled: once every task spawned anywhere has finished too (a root may
   * leave detached children running), the threads stop holding the process. Tasks still running
   * are looked for again a few ms later (the per-M counters are not announced to this thread, as
   * in drainThenStop); a new root ends the looking (it holds the process itself).
   */
  private lookIdle(delay = 1): void {
    if (this.idleLook !== null) { clearTimeout(this.idleLook); this.idleLook = null; }
    if (this.closing !== null || this.closed || this.failure !== null) return;
    if (this.npending !== 0 || this.deferred.length !== 0) return; // the pump runs, and looks again when it ends
    if (this.allFinished()) { this.alive.release(); return; }
    // Unref'd: the threads hold the process meanwhile.
    this.idleLook = unrefTimer(setTimeout(() => { this.idleLook = null; this.lookIdle(Math.min(delay * 2, 16)); }, delay));
  }

  private retryDeferred(): void {
    const list = this.deferred;
    this.deferred = [];
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.task.state !== TASK_PENDING) { this.cleanup(d.task); continue; } // aborted while waiting
      this.submit(d.task, d.id, d.args, d.token, d.cls);
    }
  }

  /** Prints Go's SCHED lines every opts.schedtrace ms until close (the timer never keeps the
   *  process alive). The first line is SCHED 0ms, as in Go. */
  private startSchedtrace(): void {
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

  stats(): SchedulerStats {
    const st = readStats(this.views, this.reservedBlocks, this.nms, this.core);
    st.sched.restarts = this.restarts;
    st.sched.gomaxprocs = this.procs;
    st.sched.procsSource = this.opts.procsSource;
    st.sched.cpuLimit = this.opts.cpuLimit;
    st.sched.liveThreads = this.liveThreads;
    st.sched.threadStarts = this.threadStarts;
    st.sched.threadExits = this.threadExits;
    st.sched.spareThreads = this.opts.spareThreads;
    return st;
  }

  /**
   * Waits for every task, then stops the Ms; with `force`, rejects what is pending and stops them
   * at once. A forced close ends a graceful one still waiting (both resolve once the threads are
   * gone); any other second close returns the first one's promise.
   */
  close(force: boolean): Promise<void> {
    if (this.idleLook !== null) { clearTimeout(this.idleLook); this.idleLook = null; }
    this.alive.hold(); // a close in progress holds the process until the threads are gone
    if (force && !this.closed) {
      this.closed = true; // a graceful close still draining sees this and waits for the stop below
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

  private async drainThenStop(): Promise<void> {
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
    if (this.stopping !== null) return this.stopping; // a forced close overtook this one
    this.closed = true;
    this.stopping = this.stopThreads(1000);
    return this.stopping;
  }

  /** True when every task spawned anywhere has finished (sums of the per-M counters). */
  private allFinished(): boolean {
    const f64 = this.views.f64;
    let s = 0;
    let f = 0;
    for (let m = 0; m < this.nms; m++) {
      const ma = mAddr(this.views, m);
      s += f64[(ma + MR_SPAWNED) >>> 3];
      f += f64[(ma + MR_FINISHED) >>> 3];
      // A result still in an inbox is not consumed yet (after a crash: one awaited by a task
      // that died with its thread, which the successor frees).
      if (m > 0 && !inboxEmpty(this.views, m)) return false;
    }
    // Root tasks count as spawned by M0 and finished where they ran, and once more on delivery.
    return f === s + this.spawned;
  }

  private async stopThreads(graceMs: number): Promise<void> {
    for (const stop of this.stopTimers) stop();
    stopAll(this.views, this.nms);
    if (graceMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all(this.exits), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
      clearTimeout(timer);
    }
    await Promise.all(this.threads.map((t) => t?.terminate()));
  }
}
