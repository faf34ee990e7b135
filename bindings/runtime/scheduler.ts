// The public face: a thin class over the private Engine. Methods that do work asynchronously
// reject rather than throw; options are checked eagerly (TypeError/RangeError naming the option).

import { Engine, type SpawnOptions } from './engine.js';
import { resolveOptions, type ResolvedOptions, type SchedulerOptions } from './options.js';
import type { SchedulerStats } from './observe/stats.js';
import { formatDump, type Dump } from './observe/dump.js';
import type { RootTask } from './tasks/root-task.js';
import type { AnyModule, TaskArgs, TaskName, TaskResult } from './tasks/module-types.js';
import { checkPriority } from './tasks/priority.js';
import { optionRangeError, optionTypeError, unknownOptionError } from './base/errors.js';
import { parJob, type ParOptions, type ParSource } from './tasks/par-api.js';
import { PAR_FOR_EACH, PAR_MAP, PAR_REDUCE } from './tasks/par-job.js';
import { PAR_ROOT } from './tasks/par.js';
import { isBuiltin } from './tasks/builtins.js';

// The task module types (tasks/module-types.ts), re-exported where they were declared first.
export type { TaskFunction, TaskName, TaskArgs, TaskResult } from './tasks/module-types.js';

/** Options of a data-parallel call from the main thread: ParOptions plus a root task's
 *  `signal`, `timeout` and `priority` (as `sched.with`). */
export interface ParCallOptions extends ParOptions, Pick<SpawnOptions, 'signal' | 'timeout' | 'priority'> {}

/** `sched.with(options)`: spawn and run with per-task options. */
export interface ScheduleWith<Mod> {
  /** `sched.spawn` with the options: a root task's handle, a Promise of its result. */
  spawn<K extends TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): RootTask<TaskResult<Mod, K>>;
  /** `sched.run` with the options: resolves with the task's result. */
  run<K extends TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): Promise<TaskResult<Mod, K>>;
}

function checkSpawnOptions(o: unknown): SpawnOptions {
  if (o === null || typeof o !== 'object') throw optionTypeError('with: options', `must be an object, got ${o === null ? 'null' : typeof o}`);
  const { signal, timeout, kill, priority, transfer, ...rest } = o as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length) throw unknownOptionError(`with: options.${extra[0]}`, ['signal', 'timeout', 'kill', 'priority', 'transfer']);
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof (signal as AbortSignal).addEventListener !== 'function' || typeof (signal as AbortSignal).aborted !== 'boolean')) {
    throw optionTypeError('with: options.signal', `must be an AbortSignal, got ${signal === null ? 'null' : typeof signal === 'object' ? (signal as object).constructor?.name ?? 'object' : typeof signal}`);
  }
  if (timeout !== undefined) {
    if (typeof timeout !== 'number') throw optionTypeError('with: options.timeout', `must be a number of ms, got ${typeof timeout}`);
    if (!(timeout > 0) || !Number.isFinite(timeout)) {
      throw optionRangeError('with: options.timeout', `must be a positive finite number of ms (any length: long ones chain timers), got ${String(timeout)}; leave it out for no timeout`);
    }
  }
  if (kill !== undefined) {
    if (typeof kill !== 'boolean') throw optionTypeError('with: options.kill', `must be a boolean, got ${kill === null ? 'null' : typeof kill}`);
    if (kill && signal === undefined && timeout === undefined) {
      throw optionTypeError('with: options.kill', 'needs a timeout or a signal: it says what their cancellation does to a task still running (its thread is terminated)');
    }
  }
  return {
    signal: signal as AbortSignal | undefined,
    timeout: timeout as number | undefined,
    kill: kill === true,
    priority: priority === undefined ? undefined : checkPriority('with', priority),
    transfer: transfer === undefined ? undefined : checkTransfer(transfer),
  };
}

/** A transfer list: distinct ArrayBuffers, none detached (postMessage's DataCloneError cases).
 *  `name` is the list's name in the errors (the piscina entry's is `transferList`). */
export function checkTransfer(transfer: unknown, name = 'with: options.transfer'): ArrayBuffer[] {
  if (!Array.isArray(transfer)) throw optionTypeError(name, `must be an array of ArrayBuffers, got ${typeof transfer}`);
  transfer.forEach((b, i) => {
    if (!(b instanceof ArrayBuffer)) {
      const what = b === null ? 'null' : typeof b === 'object' ? (b as object).constructor?.name ?? 'object' : typeof b;
      throw optionTypeError(`${name}[${i}]`, `must be an ArrayBuffer (shared memory holds the copy; a ${what} cannot move there), got ${what}`);
    }
    if ((b as { detached?: boolean }).detached === true) throw optionTypeError(`${name}[${i}]`, 'is already detached');
    if (transfer.indexOf(b) !== i) throw optionTypeError(`${name}[${i}]`, 'appears twice in the list');
  });
  return transfer as ArrayBuffer[];
}

/** Each Scheduler's engine, for the stealwork/piscina entry (not exported by the package). */
const engines = new WeakMap<object, Engine>();

/** @internal The engine behind a Scheduler. */
export function engineOf(s: Scheduler<any>): Engine {
  return engines.get(s)!;
}

/** @internal Starts a Scheduler on options already resolved (the entry sets `calling`). */
export async function startResolved<Mod = AnyModule>(opts: ResolvedOptions): Promise<Scheduler<Mod>> {
  return new (Scheduler as unknown as new (e: Engine) => Scheduler<Mod>)(await Engine.start(opts));
}

/** @internal startResolved, synchronously (Engine.startSync). */
export function startResolvedSync<Mod = AnyModule>(opts: ResolvedOptions): Scheduler<Mod> {
  return new (Scheduler as unknown as new (e: Engine) => Scheduler<Mod>)(Engine.startSync(opts));
}

// `[Symbol.asyncDispose]` below needs the symbol's type, which TypeScript's default libraries
// lack before `esnext.disposable` (TypeScript 7's defaults included): the package's declarations
// would not compile for a consumer on default libs. Declared here the way lib.esnext.disposable
// declares it, so the two merge where both are present.
declare global {
  interface SymbolConstructor {
    /** The method `await using` calls at the end of the scope (TC39 explicit resource management). */
    readonly asyncDispose: unique symbol;
  }
}

/**
 * A work-stealing scheduler: `procs` Ps, one worker thread (M) each, run queues in shared
 * memory. `Scheduler<typeof import('./tasks.js')>` type-checks task names, arguments and results.
 */
export class Scheduler<Mod = AnyModule> {
  readonly #engine: Engine;

  private constructor(engine: Engine) {
    this.#engine = engine;
    engines.set(this, engine);
  }

  /** Starts the threads and resolves once every worker has loaded the task module. */
  static async start<Mod = AnyModule>(options: SchedulerOptions): Promise<Scheduler<Mod>> {
    const opts = resolveOptions(options);
    return new Scheduler<Mod>(await Engine.start(opts));
  }

  /**
   * Starts the threads and returns at once, on Node, Deno and Bun (a browser compiles the core
   * asynchronously: there, and in code for every platform, use `start`). The threads load the
   * task module meanwhile; tasks spawned at once wait in the scheduler's queues until a thread
   * takes them, and the main thread may block (`Atomics.wait`) right after a spawn: no turn of
   * its event loop is needed to start a task. A thread that fails its start (a task module that
   * fails to load) fails the tasks spawned so far and later with the error `start` would reject
   * with. `taskNames` is empty until a thread has loaded the module. Throws a TypeError or
   * RangeError for bad options, and ERR_PLATFORM where no synchronous start is possible.
   */
  static startSync<Mod = AnyModule>(options: SchedulerOptions): Scheduler<Mod> {
    const opts = resolveOptions(options);
    return new Scheduler<Mod>(Engine.startSync(opts));
  }

  /** Number of Ps in service (GOMAXPROCS): the procs option, or what resize set last. */
  get procs(): number {
    return this.#engine.procs;
  }

  /**
   * Sets the number of Ps at run time, as Go's `runtime.GOMAXPROCS(n)`: 1..maxProcs (the option,
   * default procs). Growing puts Ps back in service at once (their threads start when work waits
   * for them); shrinking takes idle Ps out at once and has busy ones given back by their threads
   * between two tasks, their queues moving to the global queue. Resolves once no more than n Ps
   * run tasks; rejects after close. A default procs is no longer followed after it (as setting
   * GOMAXPROCS ends Go's updates).
   */
  resize(n: number): Promise<void> {
    const max = this.#engine.opts.maxProcs;
    if (typeof n !== 'number' || !Number.isInteger(n)) return Promise.reject(optionTypeError('resize: n', `must be an integer, got ${typeof n === 'number' ? n : typeof n}`));
    if (n < 1 || n > max) return Promise.reject(optionRangeError('resize: n', `must be between 1 and maxProcs (${max}), got ${n}${n > max ? '; start the scheduler with a larger maxProcs' : ''}`));
    return this.#engine.resizeByUser(n);
  }

  /** Which core runs the queues. */
  get backend(): 'wasm' | 'js' {
    return this.#engine.opts.backend;
  }

  /** The task names the module exports, in id order (after `startSync`: empty until a thread
   *  has loaded the module). */
  get taskNames(): readonly string[] {
    const names = this.#engine.names;
    return names.length !== 0 && isBuiltin(names[names.length - 1]) ? names.filter((n) => !isBuiltin(n)) : names;
  }

  /** Spawns a root task and returns its handle, a Promise of its result (DESIGN.md "Root tasks"). */
  spawn<K extends TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): RootTask<TaskResult<Mod, K>> {
    return this.#engine.spawn(name, args) as RootTask<TaskResult<Mod, K>>;
  }

  /** Spawns a root task and resolves with its result: `spawn`, typed as a plain Promise. */
  run<K extends TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): Promise<TaskResult<Mod, K>> {
    return this.#engine.spawn(name, args) as Promise<TaskResult<Mod, K>>;
  }

  /**
   * Spawning with options: `sched.with({ signal, timeout, priority }).run('fib', 30)`. Aborting
   * the signal (or the timeout firing) cancels the task and every task it spawns: one not yet
   * started never runs, a running one sees `ctx.cancelled` / `ctx.signal`, and the Task rejects
   * at once with an AbortError (code ERR_ABORTED) whose `reason` is the signal's. With
   * `kill: true` the cancellation also stops the task's code by force: a thread still running
   * the code of its tree is terminated and replaced (a thread start), and the AbortError says
   * `killed: true` (DESIGN.md "Killing a task"). `priority`
   * ('high' | 'normal' | 'low') sets the class of the task and, by inheritance, of its tree.
   * `transfer: [buf]` moves ArrayBuffers into the task: the arguments are copied into shared
   * memory (one copy, the cost of any argument), then each listed buffer is detached in the
   * caller, as a postMessage transfer list leaves it.
   */
  with(options: SpawnOptions): ScheduleWith<Mod> {
    const opts = checkSpawnOptions(options);
    const engine = this.#engine;
    return {
      spawn: (name, ...args) => engine.spawn(name, args, opts) as never,
      run: (name, ...args) => engine.spawn(name, args, opts) as never,
    };
  }

  /**
   * Data-parallel map (rayon's `par_iter().map().collect()`; docs/guide.md "Data-parallel
   * calls"): calls task `name` as `name(ctx, item, index, source)` for every item of `source` (a
   * count n: the indices 0..n-1; `{ start, end }`; an array; a typed array, shared and never
   * copied when on a SharedArrayBuffer) and resolves with the results in item order. The items
   * are split adaptively over the threads (split in two while threads steal, down to
   * `options.minLen`): no chunk size to tune. With `chunk: true` the task is called once per leaf
   * range, `name(ctx, lo, hi, source)`, and returns that range's results. An error of any item
   * rejects the call and stops the rest; `signal`, `timeout` and `priority` act as for `with`.
   */
  parMap<K extends TaskName<Mod>>(name: K, source: ParSource, options?: ParCallOptions): Promise<Array<TaskResult<Mod, K>>> {
    return this.#par('parMap', PAR_MAP, name, source, undefined, options) as Promise<Array<TaskResult<Mod, K>>>;
  }

  /** `parMap` for the effect alone (writes into a shared typed array, say): resolves with
   *  undefined once every item ran. */
  parForEach<K extends TaskName<Mod>>(name: K, source: ParSource, options?: ParCallOptions): Promise<void> {
    return this.#par('parForEach', PAR_FOR_EACH, name, source, undefined, options) as Promise<void>;
  }

  /**
   * Data-parallel reduce (rayon's `map().reduce()`): each item's `name(ctx, item, index, source)`
   * (or each leaf's `name(ctx, lo, hi, source)` with `chunk: true`) combined by task `combine`,
   * `combine(ctx, a, b)`, which must be associative: left and right parts are combined in item
   * order, their grouping depends on the splits. An empty source gives `options.identity`.
   */
  parReduce<K extends TaskName<Mod>, C extends TaskName<Mod>>(name: K, source: ParSource, combine: C,
    options?: ParCallOptions & { identity?: unknown }): Promise<TaskResult<Mod, C> | TaskResult<Mod, K>> {
    return this.#par('parReduce', PAR_REDUCE, name, source, combine, options) as Promise<TaskResult<Mod, C>>;
  }

  #par(what: string, kind: number, name: string, source: unknown, combine: unknown, options: unknown): Promise<unknown> {
    let spawn: SpawnOptions | null;
    let job;
    try {
      const r = parJob(what, kind, name, source, combine, options, this.#engine.procs, true);
      job = r.job;
      spawn = r.spawn === null ? null : checkSpawnOptions(r.spawn);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#engine.spawn(PAR_ROOT, [job], spawn);
  }

  /**
   * Runs task `name` once on every worker thread, as `name(ctx, ...args)` (rayon's `broadcast`
   * and `start_handler`; docs/guide.md "Broadcast"): on each thread running now, at its next
   * turn of its event loop (at once when idle; after its current synchronous task when busy),
   * and on every thread started later (a replacement, a resize up, an elastic thread) before it
   * takes any task. Resolves with the results of the threads running now, in thread order (a
   * thread that ends before it answers is left out; the one started in its place runs it at its
   * start). Rejects with the first error; a start hook's error on a later thread goes to
   * `onError`. For thread-local set-up, caches, JIT warm-up. The arguments are structured-cloned
   * once, at the call. `ctx` has `thread`, `signal` and `yield` only (no task tree).
   */
  broadcast<K extends TaskName<Mod>>(name: K, ...args: TaskArgs<Mod, K>): Promise<Array<TaskResult<Mod, K>>> {
    return this.#engine.broadcast(name, args) as Promise<Array<TaskResult<Mod, K>>>;
  }

  /**
   * Every live task: its name, state ('queued', 'running', 'awaiting', 'joining', 'waiting'),
   * thread, parent and age where known, read from the shared G table without stopping the
   * threads (Go's goroutine dump; DESIGN.md "The task dump" says what consistency it gives).
   * `'text'`: the same as readable lines, one per task. STEALWORK_DEBUG=dumpsignal=SIGUSR2
   * prints it on that signal.
   */
  dump(): Dump;
  dump(format: 'json'): Dump;
  dump(format: 'text'): string;
  dump(format: 'json' | 'text' = 'json'): Dump | string {
    if (format !== 'json' && format !== 'text') throw optionTypeError('dump: format', `must be 'json' or 'text', got ${typeof format === 'string' ? `'${format}'` : typeof format}`);
    const d = this.#engine.dump();
    return format === 'text' ? formatDump(d) : d;
  }

  /** A snapshot of the counters per P, per thread and for the scheduler. */
  stats(): SchedulerStats {
    return this.#engine.stats();
  }

  /**
   * The event trace (start with `trace: true`) as Chrome Trace Event JSON: write it to a file
   * with JSON.stringify and open it in ui.perfetto.dev or chrome://tracing. One track per thread,
   * tasks as slices, steals as arrows from the victim's thread to the thief's.
   */
  trace(): {
    /** Trace Event Format objects: the track names first (`ph: 'M'`), then the events by `ts`,
     *  in microseconds from the first one; `tid` 0 is the monitor on the main thread, `tid` m
     *  the thread Mm. Without `trace: true`, only the track names. */
    traceEvents: object[];
    /** The unit the viewers show times in: 'ms' (the events' `ts` stays in microseconds). */
    displayTimeUnit: string;
  } {
    return this.#engine.trace();
  }

  /**
   * Finishes every spawned task, then stops the threads. With `force`, rejects what is left
   * with ERR_CLOSED_FORCE and terminates the threads at once. A second close is harmless.
   */
  close(options: { force?: boolean } = {}): Promise<void> {
    if (options === null || typeof options !== 'object') return Promise.reject(optionTypeError('close: options', `must be an object, got ${options === null ? 'null' : typeof options}`));
    return this.#engine.close(options.force === true);
  }

  /** `await using sched = await Scheduler.start(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
