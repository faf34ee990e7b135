// The engine's state: the fields of the main thread's engine behind the public Scheduler, made
// once by its constructor. The engine is one object in five files, each a class over the one
// before (docs/DESIGN.md "The runtime's rooms"):
//   engine-state.ts    the fields (this file)
//   engine-threads.ts  the Ms' threads: start, grow, resize, idle exits, crash recovery, kills
//   engine-spawn.ts    root spawning: Gs on the global queue in batches, cancellation, shares
//   engine-pump.ts     results: settling root Tasks from M0's inbox
//   engine.ts          the engine: start-up, observation (stats, trace, schedtrace), close
//
// Everything here runs on the main thread (M0), which never holds a P and never blocks.

import type { Core } from '../core/index.js';
import { CancelTokens, SignalWatch } from './tasks/cancel.js';
import { GSlots } from './memory/gslots.js';
import type { ResolvedOptions } from './options.js';
import { now, type ThreadHandle } from './host/platform.js';
import type { ToWorker } from './messages.js';
import type { MonitorEvent } from './observe/trace.js';
import { RootTask } from './tasks/root-task.js';
import { mAddr } from './memory/mblock.js';
import { parkWord } from './sleep/park.js';
import { Views } from './memory/values.js';
import { SharedRegistry } from './memory/shared-registry.js';
import { Sysmon } from './threads/sysmon.js';
import type { Priority } from './tasks/priority.js';
import { KeepAlive } from './threads/keepalive.js';
import { OutputWatch } from './host/stdio.js';
import { StartM } from './threads/startm.js';
import { Killer } from './tasks/kill.js';
import { Broadcasts } from './broadcast.js';

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

export abstract class EngineState {
  readonly opts: ResolvedOptions;
  readonly memory: WebAssembly.Memory;
  readonly core: Core;
  readonly views: Views;
  readonly gs: GSlots;
  readonly shared: SharedRegistry;
  names: string[] = [];
  protected ids = new Map<string, number>();
  /** sched.broadcast's broadcasts, and the start hooks they leave (broadcast.ts). */
  readonly broadcasts = new Broadcasts();
  /** True once a thread said the task names (at once for Scheduler.start, which waits for the
   *  handshakes; at the first handshake for a synchronous start). */
  protected namesKnown = false;
  /** Root spawns go on the global queue one by one, each with a wakep, before spawn returns
   *  (a synchronous start), rather than together at the end of the turn (DESIGN.md "Root
   *  tasks", "A synchronous start"). */
  protected atOnce = false;
  /** With atOnce, each slot's channel for shared buffers, which its thread reads without a turn
   *  of its event loop. */
  protected sharePorts: Array<{ send(msg: unknown): void; close(): void } | null> = [];
  /** Root spawns whose name is not a string, made before the names were known: they fail when
   *  the names are known, as such a spawn fails then (engine-threads.ts). */
  protected unnamed: Array<{ task: RootTask<unknown>; name: unknown }> = [];
  /** Each worker M slot's thread (slot i at i - 1); null while the slot has none (not started,
   *  or idled out: DESIGN.md "Threads that come and go"). */
  protected threads: Array<ThreadHandle<ToWorker, unknown> | null> = [];
  /** Root Tasks by G id (an array: ids are dense), and how many are pending. */
  protected pending: Array<RootTask<unknown> | undefined> = [];
  protected npending = 0;
  protected batch: number[] = [];
  protected deferred: Deferred[] = [];
  protected pumping = false;
  protected spawned = 0;
  protected finished = 0;
  protected failure: Error | null = null;
  closing: Promise<void> | null = null;
  /** The threads' stop, once under way (a forced close, or a graceful one done draining). */
  protected stopping: Promise<void> | null = null;
  closed = false;
  protected readonly park0: number;
  /** Address of M0's block (the main thread's counters and inbox). */
  protected readonly mAddr0: number;
  protected readonly exits: Array<Promise<void>> = [];
  /** M slots: M0 (this thread) and one worker per P, spares included. */
  readonly nms: number;
  /** The monitor that lends spare Ps to the work behind a long task. */
  readonly sysmon: Sysmon;
  /** The compiled core (null for the TypeScript twin), for threads started later. */
  protected module: WebAssembly.Module | null = null;
  /** Threads started to replace crashed ones. */
  restarts = 0;
  /** Each M slot's epoch: the threads started in it so far (tasks/waiters.ts); and the slots a
   *  thread died in with waiters (a crash or a kill), whose later threads may get late results
   *  (DESIGN.md "Late results"). */
  protected readonly epochs: number[] = [];
  protected readonly diedIn = new Set<number>();
  /** Threads of the start whose task module has not loaded yet (their handshake not in). */
  loading = 0;
  /** Late results freed by the main thread, for slots without a thread. */
  lateResults = 0;
  /** Threads started for Ps without one (after start-up), and threads that idled out. */
  threadStarts = 0;
  threadExits = 0;
  /** Of threadStarts, those that did not come up (engine-threads.ts growFailed). */
  threadStartFailures = 0;
  /** Starts threads for work that waits on a P without one (startm.ts). */
  readonly startm: StartM;
  /** Set once the start-up threads are ready: a thread started later gets the shared buffers
   *  registered so far before its init. */
  protected running = false;
  /** Ps in service now (GOMAXPROCS): opts.procs at the start, then what sched.resize set. */
  procs: number;
  /** sched.resize still under way: Ms yet to give their Ps back, or Ps still to bring back. */
  protected resizing: { timer: ReturnType<typeof setInterval>; done: Array<() => void> } | null = null;
  /** What the monitor did, for the event trace (kept only when tracing). */
  protected readonly monitorLog: MonitorEvent[] = [];
  protected readonly stopTimers: Array<() => void> = [];
  /** Value blocks the scheduler keeps for itself (histograms, trace rings, cancellation flags). */
  protected reservedBlocks = 0;
  /** Root spawns counted for latency sampling. */
  protected sampled = 0;
  /** Cancellation tokens (made on first use) and the clean-ups of cancellable root tasks. */
  protected tokens: CancelTokens | null = null;
  protected readonly cleanups = new Map<RootTask<unknown>, () => void>();
  /** Claims the threads running a killed tree's code (made with the first kill-armed token). */
  protected killer: Killer | null = null;
  /** Threads already being recovered (a kill and the thread's own end give one recovery). */
  protected readonly recovered = new WeakSet<object>();
  /** The one 'abort' listener of each signal given to root tasks. */
  protected readonly signals = new SignalWatch();
  /** Shared buffers every worker has acknowledged (ids below this), and the delivery in flight. */
  protected sharesAcked = 0;
  /** Shared buffers released so far (their ids sent to the threads to forget). */
  sharesReleased = 0;
  /** The shared buffers each pending root's arguments carry (by G id), pinned until it is back. */
  protected readonly rootShares = new Map<number, number[]>();
  protected sharesDelivered: Promise<void> = Promise.resolve();
  protected shareWaiters: Array<{ m: number; id: number; resolve(): void }> = [];
  /** Told when a thread died outside close and was replaced, with the number of tasks that
   *  failed with it (the stealwork/piscina entry's 'error' event). */
  onThreadError: ((err: Error, failedTasks: number) => void) | null = null;
  /** Told when a synchronous start failed (a thread's handshake), with the number of tasks
   *  that failed with it (the stealwork/piscina entry's 'error' event when none did). */
  onStartFailed: ((err: Error, failedTasks: number) => void) | null = null;
  /** Whether the threads hold the process (keepalive.ts): while work is pending. */
  protected readonly alive = new KeepAlive(() => this.threads);
  /** Each live thread's output on its way to this thread (DESIGN.md "Task output"). */
  protected readonly output = new OutputWatch();
  /** The look for detached tasks still running after the last root settled, when scheduled. */
  protected idleLook: ReturnType<typeof setTimeout> | null = null;

  protected constructor(opts: ResolvedOptions, memory: WebAssembly.Memory, core: Core) {
    this.opts = opts;
    this.memory = memory;
    this.core = core;
    this.views = new Views(memory);
    this.shared = new SharedRegistry(true);
    this.gs = new GSlots(core, this.views, this.shared);
    this.gs.maxMemoryMB = opts.maxMemoryMB; // recovery's results (gslots.ts slotOf)
    this.mAddr0 = mAddr(this.views, 0);
    this.park0 = parkWord(this.views, 0);
    this.nms = opts.maxProcs + opts.spareThreads + 1;
    this.procs = opts.procs;
    this.sysmon = new Sysmon(this.views, core, this.nms - 1, opts.spareThreads, opts.handoffAfterMs, now, opts.ncpu);
    this.startm = new StartM(this.views, core, opts.maxProcs, (n) => this.growM(n),
      () => this.npending !== 0 || this.deferred.length !== 0 || !this.allFinished());
  }

  /** True when the task names are known and `name` is not one of them (false while unknown:
   *  a spawn by that name is resolved by the thread that runs it). */
  unknownName(name: string): boolean {
    return this.namesKnown && !this.ids.has(name);
  }

  // ---- Defined by the classes above (the constructor's helpers call them) ----
  /** engine-threads.ts: starts up to n threads for Ps without one. */
  protected abstract growM(n: number): void;
  /** engine.ts: every task spawned anywhere has finished. */
  protected abstract allFinished(): boolean;
}
