// piscina's constructor options: its defaults, and its checks with its messages and classes,
// in its order (piscina 5.3.2, src/index.ts), so a bad value fails here as it fails there; and
// piscina 4's `useAtomics`, which 5 renamed `atomics`, with 4's check (piscina 4.9.4). One
// difference: the thread defaults count the CPUs as the scheduler's procs default does, lowered
// to a container's CPU limit (DESIGN.md "Default procs"), where piscina counts every CPU.

import { procsDefault } from '../runtime/host/cgroup.js';
import type { ResourceLimits } from '../runtime/options.js';
import { argumentError, threadsConflictError } from './errors.js';

/** A custom task queue (piscina's TaskQueue); accepted, and unused here. */
export interface TaskQueue {
  /** The number of tasks queued. */
  readonly size: number;
  /** Takes the task queued first; null when empty. */
  shift(): unknown;
  /** Takes `task` out of the queue (an aborted one). */
  remove(task: unknown): void;
  /** Queues `task` last. */
  push(task: unknown): void;
}

/**
 * What `new Piscina(options)` takes: piscina 5's options, with its defaults and its errors for
 * bad values (a TypeError or RangeError with piscina's message); piscina 4's `useAtomics`
 * too. Those marked no-op are checked and have no effect.
 */
export interface Options {
  /** The worker file, a path or a file: URL: its default export, or the export `name` names,
   *  runs each task. Null (the default): the first run's `filename` gives it. One file per
   *  pool: a run naming another is a TypeError. */
  filename?: string | null;
  /** The export a run calls when it names none. Default 'default'. */
  name?: string;
  /** Threads started with the pool and kept when idle. Default: half the CPUs, at least 1
   *  (the CPUs counted as the scheduler's default procs counts them, lowered to a cgroup CPU
   *  limit). */
  minThreads?: number;
  /** The most threads (the scheduler's Ps, rounded up): more start, up to it, while tasks
   *  wait. Default 1.5 x the CPUs. */
  maxThreads?: number;
  /** How long (ms) a thread above minThreads stays idle before it ends. Default 0: as soon as
   *  it is idle. */
  idleTimeout?: number;
  /** The runs that may wait beyond the capacity (maxThreads x concurrentTasksPerWorker) before
   *  `run` rejects ('Task queue is at limit'); 'auto' is maxThreads squared. Default Infinity. */
  maxQueue?: number | 'auto';
  /** Tasks a thread keeps in progress at once, async ones included (an async task is in progress
   *  until it settles); the capacity is maxThreads x this. Default 1. */
  concurrentTasksPerWorker?: number;
  /** No-op: stealwork's threads wait on their own futex words. */
  atomics?: 'sync' | 'async' | 'disabled';
  /** piscina 4's name for `atomics` (`false` is `'disabled'`); a no-op as that is. */
  useAtomics?: boolean;
  /** Each thread's V8 heap limits (Node's Worker `resourceLimits`). A thread over them dies:
   *  its task rejects with Node's ERR_WORKER_OUT_OF_MEMORY, and a new thread takes over. */
  resourceLimits?: ResourceLimits;
  /** Appended to the threads' `process.argv`. */
  argv?: string[];
  /** The threads' Node options (Node's Worker `execArgv`). Default: the process's. */
  execArgv?: string[];
  /** The threads' `process.env`: an object of strings, or `worker_threads.SHARE_ENV` to share
   *  the process's. Default: a copy of the process's. */
  env?: Record<string, string | undefined> | symbol;
  /** Any structured-cloneable value the threads see as `workerData` (node:worker_threads', and
   *  this module's). */
  workerData?: unknown;
  /** No-op: the scheduler's queues are not pluggable. */
  taskQueue?: TaskQueue;
  /** No-op: thread priorities are not set. */
  niceIncrement?: number;
  /** No-op: Node's default (true) holds. */
  trackUnmanagedFds?: boolean;
  /** How long (ms) `close()` waits for the runs in flight before it emits 'error' ('Close
   *  operation timed out') and stops the threads anyway. Default 30000. */
  closeTimeout?: number;
  /** Times each task (its wait and its run) for `histogram`, `utilization`, `runTime` and
   *  `waitTime`. Default true. */
  recordTiming?: boolean;
  /** No-op: no queue of piscina's to be stricter about. */
  stricterFIFO?: boolean;
  /** No-op: idle threads steal; there is no balancer to choose. */
  loadBalancer?: (...args: unknown[]) => unknown;
  /** No-op: there are no per-worker histograms. */
  workerHistogram?: boolean;
}

/** `pool.options`: the options as given (own properties, no-op ones included), with piscina's
 *  defaults filled in, maxQueue made a number and minThreads and maxThreads reconciled as
 *  piscina reconciles them. */
export interface FilledOptions extends Options {
  filename: string | null;
  name: string;
  minThreads: number;
  maxThreads: number;
  idleTimeout: number;
  maxQueue: number;
  concurrentTasksPerWorker: number;
  closeTimeout: number;
  recordTiming: boolean;
  atomics: 'sync' | 'async' | 'disabled';
  /** piscina 4's view of `atomics`: false when it is 'disabled'. */
  useAtomics: boolean;
}

export function isTaskQueue(q: unknown): q is TaskQueue {
  const t = q as Record<string, unknown> | null;
  return typeof t === 'object' && t !== null && 'size' in t && typeof t.shift === 'function' &&
    typeof t.remove === 'function' && typeof t.push === 'function';
}

/** Own properties on a prototype-less object (as piscina reads options). */
export function nullProto<T extends object>(o: T, extra?: object): T {
  return Object.assign(Object.create(null) as T, o, extra);
}

/** Throws piscina's error for the first bad option. */
export function checkOptions(opts: Options): void {
  if (typeof opts.filename !== 'string' && opts.filename != null) throw argumentError('options.filename must be a string or null');
  if (typeof opts.name !== 'string' && opts.name != null) throw argumentError('options.name must be a string or null');
  if (opts.minThreads !== undefined && (typeof opts.minThreads !== 'number' || opts.minThreads < 0)) {
    throw argumentError('options.minThreads must be a non-negative integer');
  }
  if (opts.maxThreads !== undefined && (typeof opts.maxThreads !== 'number' || opts.maxThreads < 1)) {
    throw argumentError('options.maxThreads must be a positive integer');
  }
  if (opts.minThreads !== undefined && opts.maxThreads !== undefined && opts.minThreads > opts.maxThreads) {
    throw threadsConflictError();
  }
  if (opts.idleTimeout !== undefined && (typeof opts.idleTimeout !== 'number' || opts.idleTimeout < 0)) {
    throw argumentError('options.idleTimeout must be a non-negative integer');
  }
  if (opts.maxQueue !== undefined && opts.maxQueue !== 'auto' && (typeof opts.maxQueue !== 'number' || opts.maxQueue < 0)) {
    throw argumentError('options.maxQueue must be a non-negative integer');
  }
  if (opts.concurrentTasksPerWorker !== undefined &&
    (typeof opts.concurrentTasksPerWorker !== 'number' || opts.concurrentTasksPerWorker < 1)) {
    throw argumentError('options.concurrentTasksPerWorker must be a positive integer');
  }
  if (opts.atomics != null && (typeof opts.atomics !== 'string' || !['sync', 'async', 'disabled'].includes(opts.atomics))) {
    throw argumentError('options.atomics should be a value of sync, sync or disabled.'); // piscina's words
  }
  if (opts.useAtomics !== undefined && typeof opts.useAtomics !== 'boolean') {
    throw argumentError('options.useAtomics must be a boolean value'); // piscina 4's words
  }
  if (opts.resourceLimits !== undefined && (typeof opts.resourceLimits !== 'object' || opts.resourceLimits === null)) {
    throw argumentError('options.resourceLimits must be an object');
  }
  if (opts.taskQueue !== undefined && !isTaskQueue(opts.taskQueue)) throw argumentError('options.taskQueue must be a TaskQueue object');
  if (opts.niceIncrement !== undefined && (typeof opts.niceIncrement !== 'number' || opts.niceIncrement < 0)) {
    throw argumentError('options.niceIncrement must be a non-negative integer on Unix systems');
  }
  if (opts.trackUnmanagedFds !== undefined && typeof opts.trackUnmanagedFds !== 'boolean') {
    throw argumentError('options.trackUnmanagedFds must be a boolean value');
  }
  if (opts.closeTimeout !== undefined && (typeof opts.closeTimeout !== 'number' || opts.closeTimeout < 0)) {
    throw argumentError('options.closeTimeout must be a non-negative integer');
  }
  if (opts.loadBalancer !== undefined && (typeof opts.loadBalancer !== 'function' || opts.loadBalancer.length < 1)) {
    throw argumentError('options.loadBalancer must be a function with at least two args');
  }
  if (opts.workerHistogram !== undefined && typeof opts.workerHistogram !== 'boolean') {
    throw argumentError('options.workerHistogram must be a boolean');
  }
  if (opts.stricterFIFO !== undefined && typeof opts.stricterFIFO !== 'boolean') {
    throw argumentError('options.stricterFIFO must be a boolean');
  }
}

/** piscina's defaults and its reconciliation of minThreads, maxThreads and maxQueue. */
export function fillOptions(opts: Options): FilledOptions {
  const ncpu = procsDefault().procs;
  const f = nullProto({
    filename: null, name: 'default', minThreads: Math.max(Math.floor(ncpu / 2), 1), maxThreads: ncpu * 1.5,
    idleTimeout: 0, maxQueue: Infinity, concurrentTasksPerWorker: 1, atomics: 'sync', niceIncrement: 0,
    trackUnmanagedFds: true, closeTimeout: 30000, recordTiming: true, stricterFIFO: false, workerHistogram: false,
  } as FilledOptions, opts) as FilledOptions;
  for (const k of ['filename', 'name'] as const) if (f[k] == null) (f as unknown as Record<string, unknown>)[k] = k === 'name' ? 'default' : null;
  if (opts.maxThreads !== undefined && f.minThreads >= opts.maxThreads) f.minThreads = opts.maxThreads;
  if (opts.minThreads !== undefined && f.maxThreads <= opts.minThreads) f.maxThreads = opts.minThreads;
  f.maxQueue = opts.maxQueue === 'auto' ? f.maxThreads ** 2 : (opts.maxQueue ?? Infinity);
  // piscina 4's useAtomics and 5's atomics say one thing: `atomics` wins when both are given.
  if (opts.atomics == null && opts.useAtomics !== undefined) f.atomics = opts.useAtomics ? 'sync' : 'disabled';
  f.useAtomics = f.atomics !== 'disabled';
  return f;
}
