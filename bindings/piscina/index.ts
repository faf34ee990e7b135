// stealwork/piscina: piscina's Piscina class over the scheduler, so a piscina program switches by
// changing one import. Node only (the pool is an EventEmitter and its threads are worker_threads).
//
// Mapping (DESIGN.md "The piscina entry"): the pool is one Scheduler with maxThreads Ps (one
// thread each, no spare), started with calling 'piscina' (worker-side.ts wraps each exported
// `(task) => result` as a task); each run() is a root task. What piscina decides on the main
// thread per task (admission against maxQueue, 'drain'/'needsDrain', queueSize, which runs a
// forced close lets finish, when a worker is added) is computed from a ledger of piscina's
// dispatch (dispatch.ts), as piscina computes it from its queue and its workers' loads. Nothing
// here queues or dispatches tasks: the ledger only counts.

/**
 * piscina's API on stealwork's scheduler: a program takes `Piscina` from `stealwork/piscina` in
 * place of `piscina`, its worker file unchanged. Node only. README "Switching from piscina"
 * lists what differs.
 * @module stealwork/piscina
 */

import { engineOf, startResolvedSync, checkTransfer, type Scheduler } from '../runtime/scheduler.js';
import type { Engine } from '../runtime/engine.js';
import { resolveOptions, threadOptions } from '../runtime/options.js';
import { nodeModule } from '../runtime/host/platform.js';
import { checkOptions, fillOptions, nullProto, type FilledOptions, type Options, type TaskQueue } from './options.js';
import { emptySummary, RUN, TimingReader, timingBuffer, WAIT, type HistogramSummary } from './timing.js';
import { isMovable, kQueueOptions, kTransferable, kValue, move, type Transferable } from './move.js';
import { wallClock } from './worker-side.js';
import { Errors, POOL_CLOSED, abortError, argumentError, noHandlerError, oneFileError } from './errors.js';
import { workerMark } from '../runtime/threads/mark.js';
import type { PiscinaEvents, PiscinaListener, PoolEvents } from './events.js';
import { Ledger, LedgerRun, type Balancer, type BalancerTask } from './dispatch.js';

const EventEmitterAsyncResource = nodeModule<typeof import('node:events')>('node:events').EventEmitterAsyncResource as unknown as
  new (options: { name: string }) => PoolEvents;
const { fileURLToPath, pathToFileURL } = nodeModule<typeof import('node:url')>('node:url');
const { existsSync } = nodeModule<typeof import('node:fs')>('node:fs');
const { createRequire } = nodeModule<typeof import('node:module')>('node:module');

export type { Options, FilledOptions, TaskQueue, Transferable, HistogramSummary, PiscinaEvents, PiscinaListener, PoolEvents };

/** A task as a custom task queue holds it (piscina's PiscinaTask; the queue is unused here). */
export interface PiscinaTask {
  /** piscina's number for the task, counted per process. */
  taskId: number;
  /** The worker file that runs it. */
  filename: string;
  /** The export of that file that runs it. */
  name: string;
  /** When `run()` made it: `performance.now()`, in ms. */
  created: number;
  /** True when its run was given a signal. */
  isAbortable: boolean;
}

/** A pool thread (node:worker_threads' Worker at run time), typed without Node's types: the
 *  members piscina's users reach for. */
export interface PoolThread {
  /** The thread's id: `worker_threads.threadId` inside it. */
  readonly threadId: number;
  /** Sends `value` (a structured clone; `transferList`'s objects moved) to the thread's
   *  `parentPort` listeners. */
  postMessage(value: any, transferList?: readonly any[]): void;
  /** Lets the thread keep the process alive. The pool refs its threads while a run is pending
   *  and unrefs them when none is; a call here lasts until the pool's next change. */
  ref(): void;
  /** Stops the thread from keeping the process alive; see `ref`. */
  unref(): void;
  /** Stops the thread at once; resolves with its exit code. Not for a pool in use: a thread
   *  stopped in the middle of the scheduler's own work can leave it stuck (DESIGN.md "Crashed
   *  workers"). `close()` and `destroy()` end the threads. */
  terminate(): Promise<number>;
  /** Listens to the Worker's events ('exit', 'error', 'online', 'message': the thread's
   *  `parentPort` messages, the scheduler's own among them). */
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  /** `on`, for the next event only. */
  once(event: string | symbol, listener: (...args: any[]) => void): this;
  /** Removes a listener `on` or `once` added. */
  off(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** What 'workerCreate' and 'workerDestroy' give: piscina's worker interface. */
export interface PiscinaWorker {
  /** The thread's id: `worker_threads.threadId` inside it. */
  readonly id: number;
  /** The runs piscina would have posted to it and not settled (Infinity while that is one run
   *  with a signal): what piscina's balancer weighs. The runs themselves go to whichever thread
   *  takes them first. */
  readonly currentUsage: number;
  /** True while the one run piscina would have posted to it has a signal (it takes no other). */
  readonly isRunningAbortableTask: boolean;
  /** With `workerHistogram: true`, the run times of the tasks this thread ran; else null. */
  readonly histogram: HistogramSummary | null;
  /** Always false: a thread here ends at once. */
  readonly terminating: boolean;
  /** True once the thread left the pool ('workerDestroy'). */
  readonly destroyed: boolean;
}

/** The piscina release whose API this entry follows, and which test/piscina-compat.test.ts
 *  runs beside it: what `Piscina.version` says, for code that checks piscina's version. */
const PISCINA_VERSION = '5.3.2';

/** The threads' entry (worker.ts: the piscina calling convention, then the runtime's worker). */
const PISCINA_WORKER = new URL('./worker.js', import.meta.url);

/** An AbortSignal, or an EventEmitter-style one (piscina takes both). */
export type AbortSignalAny =
  | {
    /** How the run listens for 'abort' (with `{ once: true }`), from `run()` on. */
    addEventListener(name: 'abort', l: () => void, o?: { once: boolean }): void;
    /** How it stops listening, once the run settles. */
    removeEventListener(name: 'abort', l: () => void): void;
    /** True once aborted: a run given an aborted signal rejects at once. */
    aborted?: boolean;
    /** What the run's AbortError carries as its `reason`. */
    reason?: unknown;
  }
  | {
    /** How the run listens for 'abort', from `run()` on. */
    once(name: 'abort', l: () => void): void;
    /** How it stops listening, once the run settles. */
    off(name: 'abort', l: () => void): void;
    /** True once aborted: a run given an aborted signal rejects at once. */
    aborted?: boolean;
    /** What the run's AbortError carries as its `reason`. */
    reason?: unknown;
  };

/** What `run(task, options)` takes; only own properties are read, as piscina reads them. */
export interface RunOptions {
  /** ArrayBuffers moved into the task: copied once into shared memory, then detached here.
   *  Anything else (a MessagePort) is a TypeError naming `transferList[i]`. */
  transferList?: readonly unknown[];
  /** Must name the pool's file (one task file per pool). */
  filename?: string | null;
  /** Aborting it rejects the run with piscina's AbortError; a task already running has its
   *  thread terminated and replaced, as piscina terminates its worker. */
  signal?: AbortSignalAny | null;
  /** The export of the worker file to call. Default: the pool's `name` option. */
  name?: string | null;
}

/** What `close(options)` takes. */
export interface CloseOptions {
  /** Fail the runs piscina would still hold in its queue (an AbortError, 'pool is closed')
   *  rather than wait for them; those it would have posted to a worker finish, as do runs a
   *  thread has started. */
  force?: boolean;
}

/** `pool.histogram`: piscina's timing summaries, computed when read, in milliseconds. */
export interface PiscinaHistogram {
  /** How long tasks ran: from the function's start to its end (an async one's settlement), on
   *  its thread. Undefined with `recordTiming: false`, or before the pool has started. */
  readonly runTime: HistogramSummary;
  /** How long runs waited: from `run()` to the function's start. Undefined as runTime is. */
  readonly waitTime: HistogramSummary;
  /** Forgets the run times recorded so far. */
  resetRunTime(): void;
  /** Forgets the wait times recorded so far. */
  resetWaitTime(): void;
}

/** A task queue for code that passes one in `taskQueue` (a no-op option here). */
export class ArrayTaskQueue implements TaskQueue {
  private readonly tasks: unknown[] = [];
  get size(): number { return this.tasks.length; }
  shift(): unknown { return this.tasks.shift() ?? null; }
  push(task: unknown): void { this.tasks.push(task); }
  remove(task: unknown): void {
    const i = this.tasks.indexOf(task);
    if (i !== -1) this.tasks.splice(i, 1);
  }
}

/** piscina's other queue class; the same no-op here. */
export class FixedQueue extends ArrayTaskQueue {}

/** A started pool: the scheduler, its timing words, its file, the ledger of piscina's dispatch. */
interface Started {
  sched: Scheduler;
  engine: Engine;
  reader: TimingReader;
  filename: string;
  ledger: Ledger;
}

const NO_OPTIONS: RunOptions = Object.freeze({});

function own(o: object, key: string): unknown {
  return Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/** The path of a worker file, given as a path or a file: URL. A path that names no file is
 *  resolved as piscina's `require` of it would resolve it (`resolve(__dirname, 'worker')` finds
 *  worker.js, or worker.ts under a TypeScript require hook); one that resolves to nothing stays
 *  as it is, and its thread reports it. */
function toPath(filename: string): string {
  const path = filename.startsWith('file:') ? fileURLToPath(new URL(filename)) : filename;
  if (existsSync(path)) return path;
  try {
    return createRequire(pathToFileURL(path).href).resolve(path);
  } catch {
    return path;
  }
}

/** An AbortSignal for the scheduler, from either kind of signal, calling `aborted` first when
 *  it aborts; and how to let go of it. */
function bridgeSignal(signal: AbortSignalAny, aborted: () => void): { signal: AbortSignal; release(): void } {
  if (signal instanceof AbortSignal) {
    signal.addEventListener('abort', aborted, { once: true });
    return { signal, release: () => signal.removeEventListener('abort', aborted) };
  }
  const ac = new AbortController();
  const onAbort = (): void => { aborted(); ac.abort(signal.reason); };
  if ('addEventListener' in signal) {
    signal.addEventListener('abort', onAbort, { once: true });
    return { signal: ac.signal, release: () => signal.removeEventListener('abort', onAbort) };
  }
  signal.once('abort', onAbort);
  return { signal: ac.signal, release: () => signal.off('abort', onAbort) };
}

// `[Symbol.dispose]` and `[Symbol.asyncDispose]` below need the symbols' types, which
// TypeScript's default libraries lack before `esnext.disposable` (TypeScript 7's defaults
// included): declared as lib.esnext.disposable declares them, so they merge where both are
// present (the same as bindings/runtime/scheduler.ts does for asyncDispose).
declare global {
  interface SymbolConstructor {
    /** The method `using` calls at the end of the scope (TC39 explicit resource management). */
    readonly dispose: unique symbol;
    /** The method `await using` calls at the end of the scope (TC39 explicit resource management). */
    readonly asyncDispose: unique symbol;
  }
}

/**
 * piscina's pool, running on stealwork's scheduler. Construct it as piscina's; `run(task,
 * { name, signal, transferList })` resolves with what the worker file's function returned.
 */
export class Piscina<T = any, R = any> extends EventEmitterAsyncResource {
  readonly #opts: FilledOptions;
  readonly #thread: ReturnType<typeof threadOptions>;
  /** The pool once started (a filename known), or the error that refused its threads. */
  #started: Started | null = null;
  #startError: unknown = null;
  #filename: string | null = null;
  /** The filename as given, whose path #filename is. */
  #rawFilename: string | null = null;
  /** A drain check is queued for this turn. */
  #drainQueued = false;
  /** Runs accepted and not settled. */
  #inFlight = 0;
  readonly #capacity: number;
  #completed = 0;
  readonly #t0 = performance.now();
  #needsDrain = false;
  #closingUp = false;
  #destroying = false;
  /** close({ force: true }) under way: a run not yet given to the scheduler fails. */
  #forced = false;
  #idleWaiters: Array<() => void> = [];
  #histogram: PiscinaHistogram | null = null;
  /** Each live thread's PiscinaWorker, by its Worker (once 'workerCreate' was emitted). */
  readonly #workers = new Map<unknown, { info: PiscinaWorker; gone: () => void }>();

  /** Checks the options as piscina does (a TypeError or RangeError with piscina's message)
   *  and, given a filename, starts the scheduler: minThreads threads are in `threads` when it
   *  returns, and each loads the file as it comes up; runs made meanwhile wait in the
   *  scheduler's queues for them. A file that fails to load rejects the runs made so far (or is
   *  an 'error' event when there are none). */
  constructor(options: Options = {}) {
    const opts = nullProto(options);
    super(nullProto(opts as object, { name: 'Piscina' }) as { name: string });
    checkOptions(opts);
    this.#opts = fillOptions(opts);
    this.#capacity = this.#opts.maxThreads * this.#opts.concurrentTasksPerWorker;
    this.#thread = threadOptions(opts as Record<string, unknown>); // env, argv, execArgv: TypeError now
    if (this.#opts.filename !== null) {
      this.#begin(toPath(this.#opts.filename));
      this.#rawFilename = this.#opts.filename;
    }
  }

  /** Starts the scheduler on `filename`: maxThreads Ps, minThreads threads, piscina calling.
   *  Synchronous (DESIGN.md "A synchronous start"): the threads exist when this returns and a
   *  run is queued for them at once; each thread loads the file as it comes up. */
  #begin(filename: string): void {
    this.#filename = filename;
    this.#startError = null;
    const procs = Math.ceil(this.#opts.maxThreads);
    const resolved = resolveOptions({ tasks: pathToFileURL(filename).href, procs, spareThreads: 0 });
    // piscina's thread counts (DESIGN.md "Threads that come and go"): minThreads threads at the
    // start and whenever idle; more, up to maxThreads, while tasks wait; a thread above
    // minThreads ends after idleTimeout idle (0, piscina's default: as soon as it sleeps).
    resolved.minThreads = Math.min(procs, Math.ceil(this.#opts.minThreads));
    resolved.startThreads = resolved.minThreads;
    resolved.idleTimeout = this.#opts.idleTimeout;
    // piscina's tasks in progress per thread, async ones included: a thread at the limit leaves
    // the queued runs to the others (DESIGN.md "Async tasks: where they start").
    resolved.asyncPerThread = Math.ceil(this.#opts.concurrentTasksPerWorker);
    resolved.thread = this.#thread;
    // Room to list the runs piscina had dispatched, for a forced close (timing.ts).
    const shared = timingBuffer(procs + 1, 2 * procs * Math.ceil(this.#opts.concurrentTasksPerWorker) + 16);
    resolved.calling = { kind: 'piscina', shared };
    // The threads run this entry's worker, which registers the 'piscina' calling convention
    // (worker.ts); bundled, it is dist/worker.js beside dist/piscina.cjs, as it is for the engine.
    resolved.worker = PISCINA_WORKER;
    // What a task posts on parentPort is the pool's 'message' event, as piscina emits it.
    resolved.onMessage = (message) => this.emit('message', message);
    // piscina's 'workerCreate' when a thread is ready (the start-up ones: below), and
    // 'workerDestroy' when it is gone.
    let engineRef: Engine | null = null;
    resolved.onThreadUp = (w) => { if (engineRef !== null) this.#workerUp(engineRef, w, true); };
    resolved.onThreadGone = (w) => this.#workerGone(w);
    let sched: Scheduler;
    try {
      sched = startResolvedSync(resolved);
    } catch (e) {
      // An option the Worker constructor refuses (workerData that cannot be cloned, a bad
      // execArgv): piscina's constructor throws that error, as its own new Worker does.
      const cause = (e as { cause?: { name?: string; code?: unknown } }).cause;
      if (cause !== undefined && cause !== null && (cause.name === 'DataCloneError' ||
        (typeof cause.code === 'string' && cause.code.startsWith('ERR_WORKER_INVALID')))) throw cause;
      // The platform refused a thread: runs reject with the error, or it is the 'error' event.
      this.#startError = e;
      queueMicrotask(() => { if (this.#startError === e && this.listenerCount('error') > 0) this.emit('error', e); });
      return;
    }
    const engine = engineOf(sched);
    engineRef = engine;
    const o = this.#opts;
    const ledger = new Ledger({
      threadCount: () => engine.liveThreads,
      addThread: () => engine.addThread(),
    }, Math.ceil(o.maxThreads), Math.ceil(o.concurrentTasksPerWorker), (o.loadBalancer ?? null) as Balancer | null,
    o.stricterFIFO === true, (run, taskId) => this.#taskInfo(run, taskId, filename));
    const started: Started = { sched, engine, reader: new TimingReader(shared, procs + 1), filename, ledger };
    this.#started = started;
    // piscina marks its first workers ready at once (runs made now are dispatched to them) and
    // announces them in a microtask, so a listener added right after the constructor hears
    // them; then each takes what waits for it.
    const first = engine.workers;
    for (const w of first) this.#workerUp(engine, w, false);
    queueMicrotask(() => {
      for (const w of first) {
        const entry = this.#workers.get(w);
        if (entry !== undefined && engine.workers.includes(w)) { this.emit('workerCreate', entry.info); ledger.available(); }
      }
    });
    engine.onThreadError = (err, failed) => {
      // piscina: a worker's error with no task to fail is the pool's 'error' event
      if (failed === 0 && err.cause !== undefined) queueMicrotask(() => this.emit('error', err.cause));
    };
    engine.onStartFailed = (err, failed) => {
      // A thread could not load the file: the runs made so far reject with the error (the
      // engine failed them); with none, it is the 'error' event.
      if (this.#started !== started) return;
      this.#startError = err;
      if (failed === 0 && this.listenerCount('error') > 0) this.emit('error', err);
    };
  }

  /** piscina's task interface, for a custom loadBalancer. */
  #taskInfo(run: LedgerRun, taskId: number, filename: string): BalancerTask {
    return { taskId, filename, name: run.name, created: run.created, isAbortable: run.abortable };
  }

  /** Thread `w` joined the pool (loaded the file; a start-up thread at once): a worker of the
   *  ledger, and 'workerCreate' once per thread (`announce`: now; the start-up ones in the
   *  constructor's microtask). */
  #workerUp(engine: Engine, w: unknown, announce: boolean): void {
    const s = this.#started;
    if (this.#workers.has(w) || s === null) return;
    let destroyed = false;
    const id = (w as { threadId: number }).threadId; // a Worker's threadId is -1 once it exited
    const slot = engine.threadSlot(w);
    const reader = s.reader;
    const perWorker = this.#opts.workerHistogram === true;
    const info: PiscinaWorker = {
      id,
      get currentUsage() { return destroyed ? 0 : lw.usage; },
      get isRunningAbortableTask() { return !destroyed && lw.runningAbortable; },
      get histogram() { return perWorker && slot !== 0 ? reader.summary(RUN, slot) : null; },
      terminating: false,
      get destroyed() { return destroyed; },
    };
    const lw = s.ledger.addWorker(info);
    this.#workers.set(w, { info, gone: () => { destroyed = true; } });
    if (!announce) return;
    this.emit('workerCreate', info);
    s.ledger.available();
  }

  /** Thread `w` left the pool: 'workerDestroy' with the object its 'workerCreate' gave. A
   *  thread that never joined (its start failed after the constructor) gives none. */
  #workerGone(w: unknown): void {
    const entry = this.#workers.get(w);
    if (entry === undefined) return;
    this.#workers.delete(w);
    entry.gone();
    this.#started?.ledger.removeWorker(entry.info);
    this.emit('workerDestroy', entry.info);
  }

  /**
   * Runs `task` on a thread: the worker file's export `options.name` (default: the pool's
   * `name`) is called with it, and the promise resolves with what it returned (awaited). It
   * rejects with the task's error; at once for a bad option, a closing pool, an aborted signal,
   * or a full queue (maxQueue runs already waiting).
   */
  run(task: T, options: RunOptions = NO_OPTIONS): Promise<R> {
    if (options === null || typeof options !== 'object') return Promise.reject(argumentError('options must be an object'));
    // Own properties only, as piscina's prototype-less copy reads them (without the copy)
    const transferList = own(options, 'transferList') as RunOptions['transferList'];
    const signal = (own(options, 'signal') ?? null) as AbortSignalAny | null;
    const filename = (own(options, 'filename') ?? null) as string | null;
    const name = (own(options, 'name') ?? null) as string | null;
    if (transferList !== undefined && !Array.isArray(transferList)) return Promise.reject(argumentError('transferList argument must be an Array'));
    if (filename != null && typeof filename !== 'string') return Promise.reject(argumentError('filename argument must be a string'));
    if (name != null && typeof name !== 'string') return Promise.reject(argumentError('name argument must be a string'));
    if (signal != null && typeof signal !== 'object') return Promise.reject(argumentError('signal argument must be an object'));
    return this.#runTask(task, (transferList ?? []) as unknown[], filename ?? this.#opts.filename, name ?? this.#opts.name, signal);
  }

  /**
   * piscina 4's way to run a task, which piscina 5 dropped: the default export (whatever
   * `name` the pool was given), optional arguments shifted as piscina 4 shifts them.
   * @deprecated Use run(task, options) instead.
   */
  runTask(task: T, transferList?: readonly unknown[], filename?: string, signal?: AbortSignalAny): Promise<R>;
  /** @deprecated Use run(task, options) instead. */
  runTask(task: T, transferList?: readonly unknown[], signal?: AbortSignalAny): Promise<R>;
  /** @deprecated Use run(task, options) instead. */
  runTask(task: T, filename?: string, signal?: AbortSignalAny): Promise<R>;
  /** @deprecated Use run(task, options) instead. */
  runTask(task: T, signal?: AbortSignalAny): Promise<R>;
  runTask(task: T, transferList?: unknown, filename?: unknown, signal?: unknown): Promise<R> {
    // piscina 4.9.4's shifting: a string or a signal in transferList's place moves right.
    if ((typeof transferList === 'object' && !Array.isArray(transferList)) || typeof transferList === 'string') {
      signal = filename;
      filename = transferList;
      transferList = undefined;
    }
    if (typeof filename === 'object' && !Array.isArray(filename)) {
      signal = filename;
      filename = undefined;
    }
    if (transferList !== undefined && !Array.isArray(transferList)) return Promise.reject(argumentError('transferList argument must be an Array'));
    if (filename !== undefined && typeof filename !== 'string') return Promise.reject(argumentError('filename argument must be a string'));
    if (signal !== undefined && typeof signal !== 'object') return Promise.reject(argumentError('signal argument must be an object'));
    return this.#runTask(task, (transferList ?? []) as unknown[], (filename as string | undefined) || this.#opts.filename, 'default',
      (signal ?? null) as AbortSignalAny | null, true);
  }

  /** `v4`: called by piscina 4's runTask, whose refusal during close says piscina 4's words. */
  #runTask(task: unknown, transferList: unknown[], filenameIn: string | null, name: string, signal: AbortSignalAny | null, v4 = false): Promise<R> {
    if (typeof filenameIn !== 'string') return Promise.reject(Errors.FilenameNotProvided());
    const filename = filenameIn === this.#rawFilename ? this.#filename! : toPath(filenameIn); // a URL parse per run costs 8%
    if (this.#closingUp || this.#destroying) return Promise.reject(abortError(v4 ? 'queue is closing up' : 'queue is being terminated'));
    if (signal !== null && signal.aborted) return Promise.reject(abortError(signal.reason));
    if (this.#filename === null) { this.#begin(filename); this.#rawFilename = filenameIn; }
    else if (filename !== this.#filename) {
      return Promise.reject(oneFileError(this.#filename!, filename));
    }
    if (isMovable(task)) {
      transferList = transferList.concat(task[kTransferable]);
      task = task[kValue];
    }
    let transfer: ArrayBuffer[];
    try {
      transfer = transferList.length === 0 ? [] : checkTransfer(transferList, 'transferList').slice();
    } catch (e) {
      return Promise.reject(e);
    }
    const s = this.#started;
    if (s === null) { // the platform refused the threads
      this.#inFlight++;
      return Promise.reject(this.#startError).then(this.#onResult, this.#onError) as Promise<R>;
    }
    // piscina's admission (its runTask): a queue holding maxQueue runs (and what the threads
    // still starting will take) refuses; with no queue, a run no worker can take refuses.
    const maxQueue = this.#opts.maxQueue;
    const waiting = s.ledger.taskQueueSize;
    if (waiting > 0 && maxQueue !== Infinity && waiting >= maxQueue + this.#pendingCapacity()) {
      return Promise.reject(maxQueue === 0 ? Errors.NoTaskQueueAvailable() : Errors.TaskQueueAtLimit());
    }
    const run = new LedgerRun(signal !== null, name, s.ledger.balancer === null ? 0 : performance.now());
    const dispatched = s.ledger.submit(run);
    if (!dispatched && maxQueue <= 0 && this.#pendingCapacity() === 0) {
      s.ledger.settle(run);
      return Promise.reject(Errors.NoTaskQueueAvailable());
    }
    const submitted = this.#opts.recordTiming ? wallClock() : undefined;
    this.#inFlight++;
    // The signal is listened to from now, as piscina does, even while the pool is starting; an
    // abort takes the run off the ledger at once (piscina's queueSize drops in emit('abort')).
    const bridge = signal === null ? null : bridgeSignal(signal, () => {
      s.ledger.settle(run);
      const held = run.held;
      if (held !== null) { run.held = null; held.fail({ code: 'ERR_ABORTED' }); } // #mapError: the signal's reason
    });
    // A run piscina would queue reaches the scheduler at once, but for two kinds held here until
    // the ledger dispatches it: one with a signal (piscina runs it alone on a worker, so aborting
    // it, which ends that worker, fails nothing else), and every run of a pool with a
    // loadBalancer (the balancer decides when each starts).
    const p = dispatched || (signal === null && s.ledger.balancer === null)
      ? this.#spawn(s, run, name, task, submitted, bridge?.signal, transfer)
      : new Promise<unknown>((resolve, reject) => {
        run.held = {
          launch: () => { this.#spawn(s, run, name, task, submitted, bridge?.signal, transfer).then(resolve, reject); },
          fail: reject,
        };
      });
    this.#checkDrain();
    if (bridge === null) {
      return p.then((v) => { this.#done(run); return v as R; }, (e) => { this.#done(run); throw this.#mapError(e, null); });
    }
    return p.then(
      (v) => { bridge.release(); this.#done(run); return v as R; },
      (e) => { bridge.release(); this.#done(run); throw this.#mapError(e, signal); });
  }

  /** A settlement with no run of the ledger (a pool whose threads were refused). */
  readonly #onResult = (v: unknown): unknown => {
    this.#done(null);
    return v;
  };

  readonly #onError = (e: unknown): never => {
    this.#done(null);
    throw this.#mapError(e, null);
  };

  /** What threads still starting will take: piscina's pendingCapacity (its workers not ready). */
  #pendingCapacity(): number {
    const s = this.#started;
    if (s === null) return 0;
    return Math.max(0, s.engine.liveThreads - s.ledger.ready) * this.#opts.concurrentTasksPerWorker;
  }

  #spawn(s: Started, run: LedgerRun, name: string, task: unknown, submitted: number | undefined, signal: AbortSignal | undefined, transfer: ArrayBuffer[]): Promise<unknown> {
    if (signal?.aborted === true) return Promise.reject({ code: 'ERR_ABORTED' }); // #mapError: the caller's reason
    if (this.#forced) return Promise.reject(abortError('pool is closed'));
    // Before a thread has loaded the file the name is resolved there (#mapError).
    if (s.engine.unknownName(name)) return Promise.reject(noHandlerError(s.filename));
    const args = submitted === undefined ? [task] : [task, submitted];
    // piscina terminates the worker of a task aborted while it runs: kill does (DESIGN.md "Killing a task").
    const t = signal === undefined && transfer.length === 0 ? s.engine.spawn(name, args)
      : s.engine.spawn(name, args, { signal, kill: signal !== undefined, transfer: transfer.length === 0 ? undefined : transfer });
    run.g = t.g; // what a forced close lists when piscina had dispatched the run
    return t.result();
  }

  /** A scheduler error as piscina would have rejected the run. */
  #mapError(e: unknown, signal: AbortSignalAny | null): unknown {
    const err = e as { code?: string; name?: string; reason?: unknown; cause?: unknown };
    if (err === null || typeof err !== 'object') return e;
    if (err.code === 'ERR_ABORTED') return abortError(signal !== null ? signal.reason : err.reason);
    // A name the file does not export, found by the thread that took the run (a run made before
    // any thread had loaded the file): what the check in #spawn gives.
    if (err.code === 'ERR_UNKNOWN_TASK' && err.name === 'StealworkError') return noHandlerError(this.#started?.filename ?? this.#filename ?? '');
    if (err.code === POOL_CLOSED) return abortError('pool is closed');
    if (err.code === 'ERR_CLOSED_FORCE' || err.code === 'ERR_CLOSED') return Errors.ThreadTermination();
    // Its thread was terminated to stop another task, aborted while it ran: piscina's worker
    // destroy fails the other tasks on that worker so.
    if (err.code === 'ERR_WORKER_CRASHED' && (err.cause as { killed?: unknown } | undefined)?.killed === true) return Errors.ThreadTermination();
    // The thread died under the task: piscina rejects with the thread's own error (e.g.
    // ERR_WORKER_OUT_OF_MEMORY); the scheduler's WorkerCrashedError carries it as its cause.
    if (err.code === 'ERR_WORKER_CRASHED' && err.cause !== null && typeof err.cause === 'object') return err.cause;
    // The thread exited under the task (process.exit in it): piscina's words for that, with the
    // code the scheduler's error names (runtime base/errors.ts workerCrashedError).
    const exit = err.code === 'ERR_WORKER_CRASHED' ? /exited with code (-?\d+)/.exec(String((e as Error).message)) : null;
    if (exit !== null) return Errors.WorkerExited(Number(exit[1]));
    return e;
  }

  #done(run: LedgerRun | null): void {
    if (run !== null) this.#started?.ledger.settle(run);
    this.#inFlight--;
    this.#completed++;
    this.#checkDrain();
    if (this.#inFlight === 0 && this.#idleWaiters.length !== 0) for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** Queues one drain check for this turn (piscina queues one per run and per result; the
   *  checks of one turn see the same count at its end, so one does). */
  #checkDrain(): void {
    if (this.#drainQueued) return;
    this.#drainQueued = true;
    queueMicrotask(this.#maybeDrain);
  }

  /** piscina's _maybeDrain, on the in-flight count: full capacity in use is 'needsDrain'; room
   *  again after that is 'drain'. Nothing is queued for an event nobody listens to. */
  readonly #maybeDrain = (): void => {
    this.#drainQueued = false;
    const usage = this.#started?.ledger.usage ?? 0;
    if (usage >= this.#capacity) {
      this.#needsDrain = true;
      if (this.listenerCount('needsDrain') !== 0) queueMicrotask(() => this.emit('needsDrain'));
    } else if (this.#needsDrain) {
      this.#needsDrain = false;
      if (this.listenerCount('drain') !== 0) queueMicrotask(() => this.emit('drain'));
    }
  };

  #whenIdle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Waits for the tasks in flight (at most closeTimeout ms: then 'error' with piscina's
   * CloseTimeout), then stops the threads. With `force`, the runs piscina would still hold in
   * its queue fail with an AbortError ('pool is closed'); the dispatched ones finish.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    if (options === null || typeof options !== 'object') throw argumentError('options must be an object');
    const o = nullProto(options);
    let { force } = o;
    if (force !== undefined && typeof force !== 'boolean') return Promise.reject(argumentError('force argument must be a boolean'));
    force ??= false;
    this.#closingUp = true;
    if (force) {
      // piscina fails the runs in its queue and lets those it posted to a worker finish: the
      // threads refuse to start any run but those the ledger dispatched (timing.ts refuses);
      // a queued run a thread had started already runs to its end.
      this.#forced = true;
      const s = this.#started;
      if (s !== null) {
        s.ledger.takeQueued(() => abortError('pool is closed'));
        s.reader.markClosed(s.ledger.dispatched().map((r) => r.g).filter((g) => g !== 0));
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Errors.CloseTimeout()), this.#opts.closeTimeout);
      (timer as { unref?: () => void }).unref?.();
    });
    try {
      await Promise.race([this.#whenIdle(), timeout]);
    } catch (error) {
      this.emit('error', error);
    } finally {
      clearTimeout(timer);
      await this.destroy();
      this.emit('close');
      this.#closingUp = false;
    }
  }

  /** Stops the threads now: every task not finished fails with 'Terminating worker thread'. */
  async destroy(): Promise<void> {
    this.#destroying = true;
    const s = this.#started;
    this.#started = null;
    this.#startError = null;
    this.#filename = null;
    this.#rawFilename = null;
    if (s !== null) {
      s.ledger.clear(() => ({ code: 'ERR_CLOSED_FORCE' })); // #mapError: piscina's 'Terminating worker thread'
      try {
        await s.sched.close({ force: true });
      } catch { /* a pool whose start failed has nothing more to stop */ }
    }
    this.#destroying = false;
    this.#forced = false;
  }

  /** `using pool = new Piscina(...)` starts `close()` at the end of the scope, without waiting
   *  for it. */
  [Symbol.dispose](): void {
    void this.close();
  }

  /** `await using pool = new Piscina(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The maxThreads option, or its default (1.5 x the CPUs). */
  get maxThreads(): number {
    return this.#opts.maxThreads;
  }

  /** The minThreads option, or its default (half the CPUs, at least 1). */
  get minThreads(): number {
    return this.#opts.minThreads;
  }

  /** The options as given, with piscina's defaults filled in. */
  get options(): FilledOptions {
    return this.#opts;
  }

  /** The worker_threads.Worker of every live thread: minThreads at the start, up to maxThreads
   *  while tasks wait, back down after idleTimeout. */
  get threads(): PoolThread[] {
    return this.#started === null ? [] : engineOf(this.#started.sched).workers as PoolThread[];
  }

  /** Ready threads piscina would have posted no run to (the threads are not asked). */
  get idleThreads(): number {
    return this.#started?.ledger.idle ?? 0;
  }

  /** Runs piscina would hold in its queue, less what the threads still starting will take. */
  get queueSize(): number {
    const s = this.#started;
    return s === null ? 0 : Math.max(0, s.ledger.queued - this.#pendingCapacity());
  }

  /** Runs settled since the pool was made, fulfilled or rejected (not those refused at once). */
  get completed(): number {
    return this.#completed;
  }

  /** True from the 'needsDrain' check that found the runs in flight at the capacity
   *  (maxThreads x concurrentTasksPerWorker) until the 'drain' one. */
  get needsDrain(): boolean {
    return this.#needsDrain;
  }

  /** Milliseconds since the pool was made. */
  get duration(): number {
    return performance.now() - this.#t0;
  }

  /** The run time recorded, over the time maxThreads threads could have run since the start. */
  get utilization(): number {
    if (!this.#opts.recordTiming || this.#started === null) return 0;
    const { count, sum } = this.#started.reader.totals(RUN);
    if (count === 0) return 0;
    return (sum / 1000) / (this.duration * this.#opts.maxThreads);
  }

  /** Run time (a task's start to its end, on its thread) and wait time (run() to its start). */
  get histogram(): PiscinaHistogram {
    if (this.#histogram === null) {
      const reader = (): TimingReader | undefined => (this.#opts.recordTiming ? this.#started?.reader : undefined);
      this.#histogram = {
        get runTime() { return reader()?.summary(RUN) as HistogramSummary; },
        get waitTime() { return reader()?.summary(WAIT) as HistogramSummary; },
        resetRunTime: () => reader()?.reset(RUN),
        resetWaitTime: () => reader()?.reset(WAIT),
      };
    }
    return this.#histogram;
  }

  /** piscina 4's `runTime`: `histogram.runTime` (null with recordTiming: false, as there). */
  get runTime(): HistogramSummary {
    return this.#summary(RUN);
  }

  /** piscina 4's `waitTime`: `histogram.waitTime` (null with recordTiming: false, as there). */
  get waitTime(): HistogramSummary {
    return this.#summary(WAIT);
  }

  #summary(kind: number): HistogramSummary {
    if (!this.#opts.recordTiming) return null as unknown as HistogramSummary; // piscina 4 typed these any
    return this.#started?.reader.summary(kind) ?? emptySummary();
  }

  /** True in a thread started by a stealwork pool or scheduler. */
  static get isWorkerThread(): boolean {
    return workerMark() !== undefined;
  }

  /** The workerData the pool was made with, in its threads. */
  static get workerData(): any {
    return workerMark()?.workerData;
  }

  /** The piscina version whose API this is (stealwork's own is in its package.json). */
  static get version(): string {
    return PISCINA_VERSION;
  }

  /** The class itself, as piscina has it: CommonJS code that takes `.Piscina` off the module
   *  (which is the class) gets the class. */
  static get Piscina(): typeof Piscina {
    return Piscina;
  }

  /** The {@link FixedQueue} class. */
  static get FixedQueue(): typeof FixedQueue {
    return FixedQueue;
  }

  /** The {@link ArrayTaskQueue} class. */
  static get ArrayTaskQueue(): typeof ArrayTaskQueue {
    return ArrayTaskQueue;
  }

  /** Marks `val` to be moved rather than copied: an ArrayBuffer, or a view's buffer, is
   *  detached on the sending side once its bytes were copied into shared memory. Either side
   *  may call it: in a task, on the result it returns. */
  static move<V>(val: V): V {
    return move(val);
  }

  /** The key of what a {@link Transferable} moves (`Symbol.for('Piscina.transferable')`). */
  static get transferableSymbol(): typeof kTransferable {
    return kTransferable;
  }

  /** The key of the value a {@link Transferable} stands for (`Symbol.for('Piscina.valueOf')`). */
  static get valueSymbol(): typeof kValue {
    return kValue;
  }

  /** piscina's key of a task's options for a custom queue (`Symbol.for('Piscina.queueOptions')`);
   *  nothing reads it here. */
  static get queueOptionsSymbol(): typeof kQueueOptions {
    return kQueueOptions;
  }
}

/** True in a thread started by a stealwork pool or scheduler (`Piscina.isWorkerThread`, read
 *  when this module loaded). */
const isWorkerThread: boolean = Piscina.isWorkerThread;
/** In a pool's (or a Scheduler's) thread, the workerData it was made with
 *  (`Piscina.workerData`); undefined on the main thread. */
const workerData: any = Piscina.workerData;
/** The piscina release whose API this module follows, '5.3.2' (`Piscina.version`). */
const version: string = PISCINA_VERSION;

// piscina's named exports, no more (the ESM bundle re-exports the CommonJS one's statics: one
// class for both, as piscina's esm-wrapper does; rollup.config.mjs).
export default Piscina;
export {
  move, isWorkerThread, workerData, version, kTransferable as transferableSymbol, kValue as valueSymbol, kQueueOptions as queueOptionsSymbol,
};
