// Scheduler options: the defaults in one object, and eager validation that names the option.

import { MAX_PROCS } from '../../assembly/shared/layout.js';
import type { Backend } from '../core/core.js';
import { procsDefault, type ProcsSource } from './host/cgroup.js';
import { filePathUrl } from './host/platform.js';
import { debugEnv, parseDebugEnv } from './observe/schedtrace.js';
import { optionRangeError, optionTypeError, relativeTasksError, unknownOptionError } from './base/errors.js';
import type { UnobservedHook, UnobservedInfo } from './tasks/unobserved.js';
import type { ResourceLimits, ThreadOptions } from './host/thread-options.js';
import type { TaskCalling } from './threads/calling.js';

export type { ResourceLimits, ThreadOptions, TaskCalling };

/** The order in which a P without work tries the other Ps when it steals: 'random' is Go's (a
 *  random start and a random stride coprime with the number of Ps, so each P is tried once per
 *  pass), 'round-robin' the Ps after it in index order (DESIGN.md "Victim order and steal
 *  threshold"). */
export type VictimOrder = 'random' | 'round-robin';

/**
 * What `Scheduler.start` takes: `tasks` is required, every other option has a default. Each is
 * checked before any thread starts: a bad value, or a name that is no option, rejects
 * `Scheduler.start` with a TypeError or RangeError naming the option.
 */
export interface SchedulerOptions {
  /** The task module, loaded in every worker; its exported functions are the tasks. */
  tasks: URL | string;
  /** Number of Ps (GOMAXPROCS). Default: the machine's available parallelism, lowered to the
   *  cgroup CPU limit on Linux (Go 1.25's rule; DESIGN.md "Default procs"), read again every
   *  second and followed (up to maxProcs) until `resize` is called. */
  procs?: number;
  /** The most Ps `sched.resize(n)` may set at run time (runtime.GOMAXPROCS); the core is laid out
   *  with this many. procs..MAX_PROCS. Default: procs. */
  maxProcs?: number;
  /**
   * Spare threads (each with a spare P) that the monitor lends when a P has run one task for
   * longer than `handoffAfterMs` while work waits behind it (Go's sysmon + handoffp). 0 turns
   * the handoff off. Default 1.
   */
  spareThreads?: number;
  /** How long a P may run the same task, with work queued, before the monitor lends a spare
   *  (Go's forcePreemptNS). Default 10 ms. */
  handoffAfterMs?: number;
  /**
   * Threads kept when idle (DESIGN.md "Threads that come and go"): a thread that stayed idle for
   * `idleTimeout` ends, down to this many for the Ps plus `spareThreads`; work that arrives for a
   * P without a thread starts one. 0..procs. Default 1.
   */
  minThreads?: number;
  /** How long (ms) a thread stays idle before it ends, while more than `minThreads` run; 0 ends
   *  it as soon as it sleeps, Infinity never. Default 10,000 ms. */
  idleTimeout?: number;
  /** How long (ms) `Scheduler.start` waits for its threads to load the task module before it
   *  rejects with ERR_WORKER_START naming this option (a module whose top-level `await` never
   *  settles). Default Infinity: wait as long as the module takes. */
  startTimeout?: number;
  /**
   * The most async tasks a thread keeps in flight (started, not yet settled) before it leaves
   * the queued work to other threads (DESIGN.md "Async tasks: where they start"). A task's
   * continuation can only run on the thread that started it, so this is what spreads async
   * work over the threads and bounds the memory it holds. A task awaiting a Task it spawned
   * does not count while it waits. 1..2^31-1, Infinity (no limit), or 'auto' (the default): from
   * 1, a thread at its limit whose event loop stays free (tasks that wait on I/O) raises it by
   * one per sample (a settle, or a long wait), one whose continuations hold the loop halves it,
   * between 1 and 256.
   */
  asyncPerThread?: number | 'auto';
  /** Which core runs the queues: 'wasm' (threaded WebAssembly) or 'js' (the TypeScript twin). */
  backend?: Backend;
  /** Victim order when stealing: Go's random coprime enumeration, or round-robin. */
  victimOrder?: VictimOrder;
  /** Try the last victim that had work first. */
  victimHint?: boolean;
  /** Steal only from a P holding at least this many Gs; 'load' derives it from load. */
  stealThreshold?: number | 'load';
  /** Every spawn goes to the global queue (a baseline for benchmarks, not for production). */
  globalQueueOnly?: boolean;
  /** G table slots allocated at start. */
  initialTasks?: number;
  /** Most tasks alive at once (spawned and not yet consumed). */
  maxTasks?: number;
  /** Upper bound of the shared memory, in MiB. */
  maxMemoryMB?: number;
  /** Park ladder: polls of the park word before yielding (the seed's 32). */
  spinLimit?: number;
  /** Park ladder: short timed waits before sleeping (default min(1024, 8 * ncpu), ncpu the
   *  default procs). */
  yieldLimit?: number;
  /** Debug core build: G state transitions checked, an illegal one is a loud error. */
  debug?: boolean;
  /** Seed of the victim order's random numbers. */
  seed?: number;
  /** Print Go's SCHED line every this many ms (0: off). Default from STEALWORK_DEBUG=schedtrace=X. */
  schedtrace?: number;
  /** With schedtrace, also print Go's per-P and per-M lines (STEALWORK_DEBUG=scheddetail=1). */
  scheddetail?: boolean;
  /** Where schedtrace lines go. Default: console.error. */
  logger?: (line: string) => void;
  /**
   * Called on the main thread with each error thrown outside any task (by a timer or promise
   * callback a task left behind), as a StealworkError ERR_UNCAUGHT whose cause is the error.
   * Default: it is raised as an unhandledRejection on the main thread.
   */
  onError?: (error: Error) => void;
  /**
   * Called on the main thread with the error of each task that failed when nobody will await or
   * join it (a child its parent task ended without awaiting or joining: detached), and `info`
   * naming the task and the thread that reported it. Default: a process warning naming the task
   * (code STEALWORK_UNOBSERVED). A cancelled tree's ERR_ABORTED failures are not reported; a root
   * Task's failure nobody awaits is an unhandledRejection, as any Promise's
   * (DESIGN.md "Unobserved failures").
   */
  onUnobservedError?: (error: unknown, info: UnobservedInfo) => void;
  /** Record an event trace (sched.trace() exports it). Default from STEALWORK_DEBUG=trace=1. */
  trace?: boolean;
  /** Events kept per thread when tracing (the latest ones; a power of two). */
  traceEvents?: number;
  /** Any structured-cloneable value each worker thread sees as `workerData` (Node's
   *  `worker_threads.workerData`; on every platform also `workerData` of `stealwork/piscina`). */
  workerData?: unknown;
  /** Node only: the threads' V8 heap limits (Node's Worker `resourceLimits`). They bound each
   *  thread's own JS heap, not the shared memory (see maxMemoryMB). */
  resourceLimits?: ResourceLimits;
  /** Node only: the threads' `process.env` (an object of strings; Node's `SHARE_ENV` shares it). */
  env?: Record<string, string | undefined> | symbol;
  /** Node only: appended to the threads' `process.argv`. */
  argv?: readonly unknown[];
  /** Node only: the threads' Node options (Node's Worker `execArgv`). */
  execArgv?: readonly string[];
}

export interface ResolvedOptions {
  tasks: string;
  procs: number;
  /** Where procs came from: the option, or the default lowered to the cgroup CPU limit
   *  ('cgroup'), or the default at the CPU count ('cpus'). */
  procsSource: ProcsSource;
  /** The most Ps sched.resize may set (the core's Ps, the spares aside). */
  maxProcs: number;
  /** The cgroup CPU limit found when the default was chosen, in CPUs (1.5: 150 ms of CPU time
   *  per 100 ms); null: none found (or not Linux, not Node, or a file that did not parse). */
  cpuLimit: number | null;
  /** Internal: the CPUs this process may use (the CPU count, lowered to a cgroup CPU limit: the
   *  default procs). An M polls in its sleep only while a CPU is free (DESIGN.md "Scaling"). */
  ncpu: number;
  spareThreads: number;
  handoffAfterMs: number;
  minThreads: number;
  idleTimeout: number;
  startTimeout: number;
  asyncPerThread: number | 'auto';
  /** Internal: threads for the Ps started with the scheduler (procs; the piscina entry starts
   *  minThreads), the spares' threads besides. */
  startThreads: number;
  backend: Backend;
  victimOrder: VictimOrder;
  victimHint: boolean;
  stealThreshold: number | 'load';
  globalQueueOnly: boolean;
  initialTasks: number;
  maxTasks: number;
  maxMemoryMB: number;
  spinLimit: number;
  yieldLimit: number;
  debug: boolean;
  seed: number;
  schedtrace: number;
  scheddetail: boolean;
  logger: (line: string) => void;
  onError: ((error: Error) => void) | null;
  onUnobservedError: UnobservedHook | null;
  /** STEALWORK_DEBUG=dumpsignal=SIG...: the signal on which the task dump goes to the logger
   *  (observe/dump-signal.ts); null: none. From the environment only. */
  dumpSignal: string | null;
  trace: boolean;
  traceEvents: number;
  thread: ThreadOptions;
  /** Internal: set by the stealwork/piscina entry, never by an option. */
  calling: TaskCalling;
  /** Internal: the worker entry the threads run, null for the runtime's own (worker.ts beside
   *  the engine). An adapter whose calling convention must be registered on the threads names
   *  its own entry (threads/calling.ts); set by the stealwork/piscina entry, never by an option. */
  worker: URL | null;
  /** Internal (the stealwork/piscina entry sets it for its 'message' event): told of every
   *  message a thread's own code posted to the main thread (messages.ts isEngineMessage), in
   *  each thread's order. Null: such messages are dropped. */
  onMessage: ((message: unknown) => void) | null;
  /** Internal: told with the platform's Worker when a thread said it is ready (its handshake),
   *  and once when a thread is gone (its slot freed by an idle exit, or its Worker's exit,
   *  whatever ended it, whichever comes first): the piscina entry's
   *  'workerCreate' and 'workerDestroy'. */
  onThreadUp: ((worker: unknown) => void) | null;
  onThreadGone: ((worker: unknown) => void) | null;
}

export function defaults(): Omit<ResolvedOptions, 'tasks'> {
  // ncpu is the CPUs this process may use: the CPU count, lowered to a container's CPU limit.
  const d = procsDefault();
  const ncpu = Math.min(d.procs, MAX_PROCS);
  return {
    procs: ncpu,
    procsSource: d.source,
    maxProcs: ncpu,
    cpuLimit: d.limit === null ? null : d.limit.cpus,
    ncpu,
    spareThreads: 1,
    handoffAfterMs: 10,
    minThreads: 1,
    idleTimeout: 10_000,
    startTimeout: Infinity,
    asyncPerThread: 'auto',
    startThreads: ncpu,
    backend: 'wasm',
    victimOrder: 'random',
    victimHint: false,
    stealThreshold: 1,
    globalQueueOnly: false,
    initialTasks: 4096,
    maxTasks: 1 << 20,
    maxMemoryMB: 2048,
    spinLimit: 32,
    yieldLimit: Math.min(1024, 8 * ncpu),
    debug: false,
    seed: 0x5eed,
    schedtrace: 0,
    scheddetail: false,
    logger: (line: string) => console.error(line),
    onError: null,
    onUnobservedError: null,
    dumpSignal: null,
    trace: false,
    traceEvents: 1 << 16,
    thread: {},
    calling: { kind: 'context' },
    worker: null,
    onMessage: null,
    onThreadUp: null,
    onThreadGone: null,
  };
}

function int(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw optionTypeError(`options.${name}`, `must be an integer, got ${typeof v === 'number' ? v : typeof v}`);
  }
  if (v < min || v > max) throw optionRangeError(`options.${name}`, `must be between ${min} and ${max}, got ${v}`);
  return v;
}

function bool(name: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw optionTypeError(`options.${name}`, `must be a boolean, got ${typeof v}`);
  return v;
}

function oneOf<T extends string>(name: string, v: unknown, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw optionTypeError(`options.${name}`, `must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

/** Async tasks in flight per thread: a whole number >= 1, Infinity (no limit) or 'auto'. */
export function asyncPerThread(name: string, v: unknown): number | 'auto' {
  if (v === Infinity || v === 'auto') return v;
  if (typeof v === 'string') throw optionTypeError(`options.${name}`, `must be a whole number, Infinity or 'auto', got ${JSON.stringify(v)}`);
  return int(name, v, 1, 2 ** 31 - 1);
}

/** A thread's idle timeout: ms, a whole number >= 0, or Infinity (never). */
export function idleTimeout(name: string, v: unknown): number {
  if (v === Infinity) return v;
  return int(name, v, 0, 2 ** 31 - 1);
}

/** Validates every option eagerly; throws TypeError/RangeError naming the option. */
export function resolveOptions(opts: unknown): ResolvedOptions {
  if (opts === null || typeof opts !== 'object') throw optionTypeError('Scheduler.start: options', `must be an object with at least { tasks }, got ${opts === null ? 'null' : typeof opts}`);
  const o = opts as Record<string, unknown>;
  const known = new Set(['tasks', 'procs', 'maxProcs', 'spareThreads', 'handoffAfterMs', 'minThreads', 'idleTimeout', 'startTimeout', 'asyncPerThread', 'backend', 'victimOrder', 'victimHint', 'stealThreshold', 'globalQueueOnly',
    'initialTasks', 'maxTasks', 'maxMemoryMB', 'spinLimit', 'yieldLimit', 'debug', 'seed', 'schedtrace', 'scheddetail', 'logger', 'onError', 'onUnobservedError', 'trace', 'traceEvents',
    'workerData', 'resourceLimits', 'env', 'argv', 'execArgv']);
  for (const k of Object.keys(o)) {
    if (!known.has(k)) throw unknownOptionError(`options.${k}`, [...known]);
  }
  const d = defaults();
  let tasks: string;
  if (o.tasks instanceof URL) tasks = o.tasks.href;
  else if (typeof o.tasks === 'string' && o.tasks.length > 0) tasks = taskModuleSpecifier(o.tasks);
  else throw optionTypeError('options.tasks', `must be a URL or a non-empty string naming the task module, got ${typeof o.tasks === 'string' ? "''" : o.tasks === null ? 'null' : typeof o.tasks}`);
  const r: ResolvedOptions = { tasks, ...d };
  if (o.procs !== undefined) {
    r.procs = int('procs', o.procs, 1, MAX_PROCS);
    r.procsSource = 'option';
  }
  r.maxProcs = o.maxProcs === undefined ? r.procs : int('maxProcs', o.maxProcs, r.procs, MAX_PROCS);
  if (o.spareThreads !== undefined) r.spareThreads = int('spareThreads', o.spareThreads, 0, MAX_PROCS - r.maxProcs);
  r.spareThreads = Math.min(r.spareThreads, MAX_PROCS - r.maxProcs);
  if (o.handoffAfterMs !== undefined) r.handoffAfterMs = int('handoffAfterMs', o.handoffAfterMs, 1, 3600_000);
  r.minThreads = Math.min(r.minThreads, r.procs);
  if (o.minThreads !== undefined) r.minThreads = int('minThreads', o.minThreads, 0, r.procs);
  if (o.idleTimeout !== undefined) r.idleTimeout = idleTimeout('idleTimeout', o.idleTimeout);
  if (o.startTimeout !== undefined) r.startTimeout = o.startTimeout === Infinity ? Infinity : int('startTimeout', o.startTimeout, 1, 2 ** 31 - 1);
  if (o.asyncPerThread !== undefined) r.asyncPerThread = asyncPerThread('asyncPerThread', o.asyncPerThread);
  r.startThreads = r.procs;
  if (o.backend !== undefined) r.backend = oneOf('backend', o.backend, ['wasm', 'js'] as const);
  if (o.victimOrder !== undefined) r.victimOrder = oneOf('victimOrder', o.victimOrder, ['random', 'round-robin'] as const);
  if (o.victimHint !== undefined) r.victimHint = bool('victimHint', o.victimHint);
  if (o.stealThreshold !== undefined) {
    if (o.stealThreshold !== 'load' && !Number.isInteger(o.stealThreshold)) {
      throw optionTypeError('options.stealThreshold', `must be an integer (1..256) or 'load', got ${typeof o.stealThreshold === 'string' ? JSON.stringify(o.stealThreshold) : typeof o.stealThreshold === 'number' ? o.stealThreshold : typeof o.stealThreshold}`);
    }
    r.stealThreshold = o.stealThreshold === 'load' ? 'load' : int('stealThreshold', o.stealThreshold, 1, 256);
  }
  if (o.globalQueueOnly !== undefined) r.globalQueueOnly = bool('globalQueueOnly', o.globalQueueOnly);
  if (o.maxTasks !== undefined) r.maxTasks = int('maxTasks', o.maxTasks, 1024, 4096 * 1024 - 1);
  if (o.initialTasks !== undefined) r.initialTasks = int('initialTasks', o.initialTasks, 1, r.maxTasks);
  r.initialTasks = Math.min(r.initialTasks, r.maxTasks);
  if (o.maxMemoryMB !== undefined) r.maxMemoryMB = int('maxMemoryMB', o.maxMemoryMB, 16, 4095);
  if (o.spinLimit !== undefined) r.spinLimit = int('spinLimit', o.spinLimit, 0, 1 << 20);
  if (o.yieldLimit !== undefined) r.yieldLimit = int('yieldLimit', o.yieldLimit, 0, 1 << 20);
  if (o.debug !== undefined) r.debug = bool('debug', o.debug);
  if (o.seed !== undefined) r.seed = int('seed', o.seed, 0, 0xffffffff);
  const env = parseDebugEnv(debugEnv());
  r.schedtrace = env.schedtrace;
  r.scheddetail = env.scheddetail;
  r.trace = env.trace;
  r.dumpSignal = env.dumpsignal;
  if (o.trace !== undefined) r.trace = bool('trace', o.trace);
  if (o.traceEvents !== undefined) {
    r.traceEvents = int('traceEvents', o.traceEvents, 16, 1 << 24);
    if ((r.traceEvents & (r.traceEvents - 1)) !== 0) throw optionRangeError('options.traceEvents', `must be a power of two, got ${r.traceEvents}`);
  }
  if (o.schedtrace !== undefined) r.schedtrace = int('schedtrace', o.schedtrace, 0, 3600_000);
  if (o.scheddetail !== undefined) r.scheddetail = bool('scheddetail', o.scheddetail);
  if (o.logger !== undefined) {
    if (typeof o.logger !== 'function') throw optionTypeError('options.logger', `must be a function, got ${typeof o.logger}`);
    r.logger = o.logger as (line: string) => void;
  }
  r.thread = threadOptions(o);
  if (o.onError !== undefined) {
    if (typeof o.onError !== 'function') throw optionTypeError('options.onError', `must be a function, got ${typeof o.onError}`);
    r.onError = o.onError as (error: Error) => void;
  }
  if (o.onUnobservedError !== undefined) {
    if (typeof o.onUnobservedError !== 'function') throw optionTypeError('options.onUnobservedError', `must be a function, got ${typeof o.onUnobservedError}`);
    r.onUnobservedError = o.onUnobservedError as UnobservedHook;
  }
  return r;
}

const LIMITS = ['maxOldGenerationSizeMb', 'maxYoungGenerationSizeMb', 'codeRangeSizeMb', 'stackSizeMb'] as const;

/** Checks the per-thread options (workerData is checked by the structured clone that sends it). */
export function threadOptions(o: Record<string, unknown>): ThreadOptions {
  const t: ThreadOptions = {};
  if (o.workerData !== undefined) t.workerData = o.workerData;
  const rl = o.resourceLimits;
  if (rl !== undefined) {
    if (rl === null || typeof rl !== 'object') throw optionTypeError('options.resourceLimits', `must be an object, got ${rl === null ? 'null' : typeof rl}`);
    const limits: ResourceLimits = {};
    for (const [k, v] of Object.entries(rl)) {
      if (!(LIMITS as readonly string[]).includes(k)) throw unknownOptionError(`options.resourceLimits.${k}`, LIMITS, 'limit');
      if (v === undefined) continue;
      if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw optionRangeError(`options.resourceLimits.${k}`, `must be a positive number, got ${String(v)}`);
      limits[k as keyof ResourceLimits] = v;
    }
    t.resourceLimits = limits;
  }
  if (o.env !== undefined) {
    const env = o.env;
    if (typeof env !== 'symbol' && (env === null || typeof env !== 'object')) {
      throw optionTypeError('options.env', `must be an object of strings or worker_threads.SHARE_ENV, got ${env === null ? 'null' : typeof env}`);
    }
    t.env = env as ThreadOptions['env'];
  }
  if (o.argv !== undefined) {
    if (!Array.isArray(o.argv)) throw optionTypeError('options.argv', `must be an array, got ${typeof o.argv}`);
    t.argv = o.argv;
  }
  if (o.execArgv !== undefined) {
    if (!Array.isArray(o.execArgv) || !o.execArgv.every((a) => typeof a === 'string')) {
      throw optionTypeError('options.execArgv', `must be an array of strings, got ${Array.isArray(o.execArgv) ? `an array holding a ${typeof o.execArgv.find((a) => typeof a !== 'string')}` : typeof o.execArgv}`);
    }
    t.execArgv = o.execArgv as string[];
  }
  return t;
}

/**
 * What the workers import for `options.tasks` given as a string: a URL as it is; an absolute
 * file path as its file: URL (Node); a package name as it is. A relative path is refused: the
 * workers would resolve it against this package's own folder, not the caller's file, and the
 * caller's file cannot be known reliably.
 */
function taskModuleSpecifier(spec: string): string {
  if (/^\.{1,2}([/\\]|$)/.test(spec)) {
    throw relativeTasksError(spec);
  }
  if (/^[A-Za-z][A-Za-z\d+.-]+:/.test(spec)) return spec; // a URL (a one-letter scheme is a Windows drive)
  if (spec.startsWith('/') || /^[A-Za-z]:[/\\]/.test(spec) || spec.startsWith('\\\\')) return filePathUrl(spec);
  return spec; // a bare specifier: a package the workers import by name
}
