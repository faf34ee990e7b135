// Every error the scheduler itself raises is built here, so codes and wording stay consistent,
// and each message carries the values involved (the option and the value it got, the M, the G,
// the task's name). Errors thrown by a task travel as they were thrown (see
// bindings/codec/errors.ts). Callers throw or reject with what these functions return; no other
// file of the runtime or the piscina entry constructs an error.
//
// Sections: the classes; the scheduler's StealworkErrors; option validation (TypeError and
// RangeError naming the option); misuse inside tasks; shared memory running out; internal
// faults (a bug of the scheduler, never a user's); the piscina entry's (piscina's words).

import type { ErrorDescription } from './description.js';

/** Stable, machine-readable reasons for a StealworkError. */
export type ErrorCode =
  /** Use after `close()`. */
  | 'ERR_CLOSED'
  /** `close({ force: true })` rejected a task still pending. */
  | 'ERR_CLOSED_FORCE'
  /** No task of that name in the task module. */
  | 'ERR_UNKNOWN_TASK'
  /** The task module failed to load in a worker. */
  | 'ERR_TASK_MODULE'
  /** A worker could not start. */
  | 'ERR_WORKER_START'
  /** A worker thread died (`process.exit`, out of memory: not an error a task threw); the
   *  tasks it was running fail with this. */
  | 'ERR_WORKER_CRASHED'
  /** The G table is at maxTasks and the task could not run inline. */
  | 'ERR_TABLE_FULL'
  /** The shared memory is at maxMemoryMB. */
  | 'ERR_OUT_OF_MEMORY'
  /** An error thrown outside any task (a callback a task left behind). */
  | 'ERR_UNCAUGHT'
  /** The runtime lacks what the scheduler needs. */
  | 'ERR_PLATFORM'
  /** The task was cancelled by its signal or timeout. */
  | 'ERR_ABORTED';

/** The one error class for failures of the scheduler (not of a task). */
export class StealworkError extends Error {
  /** Why it failed, stable across releases: test this, not the message. */
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StealworkError';
    this.code = code;
  }
}

/** A worker thread died; the task it was running fails with this. */
export class WorkerCrashedError extends StealworkError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_WORKER_CRASHED', message, options);
    this.name = 'WorkerCrashedError';
  }
}

/** A task cancelled by its AbortSignal or timeout; `reason` is the signal's reason. */
export class AbortError extends StealworkError {
  /** The signal's `reason`, or for a `timeout` an Error saying `timed out after N ms`; the
   *  error's `cause` too. */
  readonly reason: unknown;
  /** True when a thread running the task's code was terminated for it (`kill: true`; DESIGN.md
   *  "Killing a task"): set when the rejection happens if the abort found the code running,
   *  else when the thread stops itself on its way back from the runtime's code. Absent when no
   *  thread was ended (the task had not started, had returned, or awaits: its thread runs on). */
  declare killed?: true;
  constructor(message: string, reason: unknown) {
    super('ERR_ABORTED', message, { cause: reason });
    this.name = 'AbortError';
    this.reason = reason;
  }
}

export function closedError(what: string): StealworkError {
  return new StealworkError('ERR_CLOSED', `${what}: the scheduler is closed`);
}

export function unknownTaskError(name: unknown, known: readonly string[]): StealworkError {
  const list = known.length ? known.map((k) => `'${k}'`).join(', ') : '(none: the module exports no functions)';
  return new StealworkError('ERR_UNKNOWN_TASK', `unknown task ${typeof name === 'string' ? `'${name}'` : String(name)}; the task module exports: ${list}`);
}


/** The classes a StealworkError can have, by name: what reviveError rebuilds. */
const CLASSES: Record<string, (message: string, e: Error & { code?: unknown; reason?: unknown }) => StealworkError> = {
  StealworkError: (m, e) => new StealworkError(e.code as ErrorCode, m, 'cause' in e ? { cause: e.cause } : undefined),
  WorkerCrashedError: (m, e) => new WorkerCrashedError(m, 'cause' in e ? { cause: e.cause } : undefined),
  AbortError: (m, e) => new AbortError(m, e.reason),
};

/**
 * A scheduler error that crossed threads arrives as a plain Error carrying the class's name and
 * its `code` (the codec rebuilds only built-in classes). This gives it its class back, with the
 * same message, stack, cause and own properties, so `instanceof StealworkError` (and
 * WorkerCrashedError, AbortError) holds wherever it surfaces. Anything else is returned as it
 * is. Any thread; called on every error read from a result or argument slot (values.ts).
 */
export function reviveError(e: unknown): unknown {
  if (!(e instanceof Error) || e instanceof StealworkError) return e;
  const make = Object.hasOwn(CLASSES, e.name) ? CLASSES[e.name] : undefined;
  const code = (e as { code?: unknown }).code;
  if (make === undefined || typeof code !== 'string' || !code.startsWith('ERR_')) return e;
  const r = make(e.message, e);
  for (const k of Object.keys(e)) {
    if (k !== 'name' && k !== 'message' && k !== 'cause' && k !== 'reason' && k !== 'code') (r as unknown as Record<string, unknown>)[k] = (e as unknown as Record<string, unknown>)[k];
  }
  Object.defineProperty(r, 'stack', { value: e.stack, writable: true, configurable: true, enumerable: false });
  return r;
}

/** The shared memory reached maxMemoryMB: a value (or a task's G) found no room. */
export function memoryFullError(what: string, bytes: number, maxMemoryMB: number): StealworkError {
  const need = bytes > 0 ? ` (${bytes} more bytes needed)` : '';
  return new StealworkError('ERR_OUT_OF_MEMORY', `${what}: the shared memory is full at maxMemoryMB=${maxMemoryMB}${need}; raise maxMemoryMB, or hold fewer tasks and values at once`);
}

/**
 * `e` as the error a full memory should give: a RangeError of the codec or the G slots saying
 * the shared memory ran out becomes memoryFullError (naming maxMemoryMB); anything else is
 * returned as it is. Any thread.
 */
export function asMemoryError(e: unknown, what: string, maxMemoryMB: number): unknown {
  if (!(e instanceof RangeError) || !/out of shared memory/.test(e.message)) return e;
  const m = /(\d+) bytes/.exec(e.message);
  return memoryFullError(what, m !== null ? Number(m[1]) : 0, maxMemoryMB);
}

/** What a worker reports for an error thrown outside any task: the scheduler's unhandled error,
 *  never a task's. `cause` is the error rebuilt from the worker's description. Main thread. */
export function uncaughtError(m: number, d: ErrorDescription): StealworkError {
  const cause = new Error(d.message);
  Object.defineProperty(cause, 'name', { value: d.name, writable: true, configurable: true });
  if (d.stack !== undefined) cause.stack = d.stack;
  return new StealworkError('ERR_UNCAUGHT', `worker M${m}: ${d.name}: ${d.message} (thrown outside any task, by a timer or promise callback a task left behind; no task failed)`, { cause });
}

// ---- The scheduler's StealworkErrors (engine.ts, main thread) -----------------------------

/** The runtime lacks what the scheduler needs (platformProblem says what). */
export function platformError(problem: string, where = 'Scheduler.start'): StealworkError {
  return new StealworkError('ERR_PLATFORM', `${where}: ${problem}`);
}

/** Two workers loaded different task tables (the task ids would differ). */
export function taskModuleMismatchError(m: number, names: readonly string[], m2: number, names2: readonly string[]): StealworkError {
  return new StealworkError('ERR_TASK_MODULE', `the task module exported different functions in different workers: M${m} has [${names.join(', ')}], M${m2} has [${names2.join(', ')}]`);
}

/** What a worker reported as it failed: its description's stack, kept. */
function withStack<E extends Error>(err: E, d: ErrorDescription): E {
  if (d.stack) err.stack = d.stack;
  return err;
}

/** A worker's M loop itself failed after the handshake (not a task): fail fast. */
export function workerLoopError(m: number, d: ErrorDescription): WorkerCrashedError {
  return withStack(new WorkerCrashedError(`worker M${m} failed: ${d.message}`), d);
}

/** A worker reported that it could not start: the task module would not load
 *  (ERR_TASK_MODULE), or anything else before its handshake (ERR_WORKER_START). */
export function workerStartError(code: 'ERR_TASK_MODULE' | 'ERR_WORKER_START', d: ErrorDescription): StealworkError {
  return withStack(new StealworkError(code, d.message), d);
}

/** A worker thread was started with a calling kind no adapter registered on it (its adapter's
 *  worker entry registers it: threads/calling.ts). */
export function unknownCallingError(kind: string): StealworkError {
  return new StealworkError('ERR_WORKER_START', `no calling convention '${kind}' is registered on the worker thread (the adapter's worker entry registers it)`);
}

/** registerCalling of a kind taken by another convention (or 'context', the runtime's own). */
export function callingTakenError(kind: string): TypeError {
  return new TypeError(`calling convention '${kind}' is already registered`);
}

/** A worker thread ended before its handshake. */
export function workerExitError(m: number, reason: string, cause: unknown): StealworkError {
  return new StealworkError('ERR_WORKER_START', `worker M${m} failed to start: ${reason}`, { cause });
}

/** A worker thread died outside close: what the task running there (and its pinned ones) fail
 *  with; a new thread takes over the slot (DESIGN.md "Crashed workers"). */
export function workerCrashedError(m: number, reason: string, cause: unknown): WorkerCrashedError {
  return new WorkerCrashedError(`worker M${m} ${reason}; the task running there failed, and a new thread took over its queue`,
    cause !== undefined ? { cause } : undefined);
}

/** What a refused thread's error says: its code (Node's ERR_WORKER_INIT_FAILED) and message. */
export function describeRefusal(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${e.message}` : e.message;
}

/** Node refused the threads' own flags (options.execArgv): ERR_WORKER_INVALID_EXEC_ARGV. */
function execArgvRefused(e: unknown): boolean {
  return e instanceof Error && (e as { code?: unknown }).code === 'ERR_WORKER_INVALID_EXEC_ARGV';
}

/** A thread's start refused because of options.execArgv: the option named, not a thread limit.
 *  (V8 flags such as --expose-gc are process-wide: Node takes them only on its command line.) */
function execArgvError(e: unknown): StealworkError {
  return new StealworkError('ERR_WORKER_START', `options.execArgv: Node refuses these flags for a worker thread (${describeRefusal(e)}); ` +
    'flags that apply to the whole process (V8 flags such as --expose-gc) go on the node command line instead', { cause: e });
}

/** Scheduler.start: `waiting` of its n threads had not loaded the task module after
 *  options.startTimeout ms (a top-level await that never settles, an import that hangs). */
export function startTimeoutError(tasks: string, ms: number, waiting: number, n: number): StealworkError {
  return new StealworkError('ERR_WORKER_START', `Scheduler.start: ${waiting} of ${n} threads had not loaded the task module ${tasks} ` +
    `after startTimeout=${ms} ms (does its top-level await never settle?)`);
}

/** Scheduler.start: the platform refused thread m of the n it starts. */
export function threadsRefusedError(m: number, n: number, e: unknown): StealworkError {
  if (execArgvRefused(e)) return execArgvError(e);
  return new StealworkError('ERR_WORKER_START', `worker M${m} of the ${n} threads Scheduler.start starts did not start ` +
    `(${describeRefusal(e)}): the platform refused a thread (a container's pids limit, a process limit); ` +
    'fewer procs (or spareThreads: 0) need fewer', { cause: e });
}

/** A thread started for work waiting on a P without one did not start, and no P has a thread:
 *  nothing could run that work, so the scheduler fails with this (engine-threads.ts growFailed). */
export function threadStartError(m: number, e: unknown): StealworkError {
  if (execArgvRefused(e)) return execArgvError(e);
  return new StealworkError('ERR_WORKER_START', `worker M${m}, started for work waiting on a P without a thread, did not start ` +
    `(${describeRefusal(e)}), and no other thread serves the scheduler's Ps`, { cause: e });
}

/** The thread started in place of a crashed one failed to start too. */
export function replacementFailedError(m: number, reason: string, e: unknown): WorkerCrashedError {
  return new WorkerCrashedError(`worker M${m} ${reason}, and its replacement failed to start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** What a kill adds to a cancellation's message. */
const KILLED = 'killed (the thread running its code was terminated)';

/** A kill ended a thread running the code of the task `err` rejected it with (kill.ts): says so,
 *  once (`killed: true`, and the message). The main thread, at the abort or at a thread's halt. */
export function markKilled(err: AbortError): void {
  if (err.killed === true) return;
  err.killed = true;
  err.message += / was aborted$/.test(err.message) ? ` and ${KILLED}` : ` and was ${KILLED}`;
}

/** A root task whose signal aborted: before it started, or while it ran (markKilled adds a
 *  kill's words when one ended a thread). */
export function abortedError(task: string, reason: unknown, beforeStart: boolean): AbortError {
  return new AbortError(beforeStart ? `task '${task}' was aborted before it started` : `task '${task}' was aborted`, reason);
}

/** A root task past its `timeout`; its reason is an Error saying the same. `killed`: spawned
 *  with `kill: true`. */
export function timeoutError(task: string, ms: number): AbortError {
  return new AbortError(`task '${task}' timed out after ${ms} ms`, new Error(`timed out after ${ms} ms`));
}

/** Why a thread a kill terminated ended (the reason in workerCrashedError's message, for the
 *  other tasks that die with it); task undefined: a leftover of a tree whose root is back. */
export function killReason(task: string | undefined): string {
  return task !== undefined ? `was terminated to stop task '${task}' (kill: true)` : 'was terminated to stop a killed task\'s leftover child (kill: true)';
}

/** What close({ force: true }) rejects a task still pending with. */
export function closedForceError(): StealworkError {
  return new StealworkError('ERR_CLOSED_FORCE', 'close({ force: true }): the scheduler was closed before this task finished');
}

/** What a task's ctx.signal aborts with: the tree was cancelled from its root. */
export function cancelledError(): AbortError {
  return new AbortError('the task was cancelled (its root task\'s signal aborted or timed out)', undefined);
}

// ---- Option validation: eager, naming the option and the value it got ----------------------

/** `${path} ${problem}`, a value of the wrong kind: `optionTypeError('options.procs', 'must be
 *  an integer, got string')`. `path` names the call where the options are not Scheduler.start's
 *  ('with: options.timeout'). */
export function optionTypeError(path: string, problem: string): TypeError {
  return new TypeError(`${path} ${problem}`);
}

/** `${path} ${problem}`, a value of the right kind out of its range. */
export function optionRangeError(path: string, problem: string): RangeError {
  return new RangeError(`${path} ${problem}`);
}

/** A key that names no option (`kind` 'limit' for resourceLimits' keys). */
export function unknownOptionError(path: string, known: readonly string[], kind: 'option' | 'limit' = 'option'): TypeError {
  return new TypeError(`${path} is not ${kind === 'option' ? 'an option' : 'a limit'}; known ${kind}s: ${known.join(', ')}`);
}

/** `options.tasks` given as a relative path: the workers would resolve it against this
 *  package's folder. */
export function relativeTasksError(spec: string): TypeError {
  return new TypeError(`options.tasks: '${spec}' is a relative path, which the worker threads would resolve against stealwork's own folder; ` +
    `pass new URL('${spec.replace(/\\/g, '/')}', import.meta.url) (or an absolute path, or a URL string)`);
}

// ---- Misuse inside tasks -------------------------------------------------------------------

/** Awaiting a Task already handed to ctx.join. */
export function joinedTaskError(task: string): TypeError {
  return new TypeError(`task '${task}' was handed to ctx.join; its result goes to the join`);
}

/** ctx.join given a Task another thread's tasks (or the main thread) spawned. */
export function joinForeignTaskError(join: string, where: string): TypeError {
  return new TypeError(`ctx.join('${join}'): ${where} is a Task spawned by another thread's tasks (or the main thread); await it instead`);
}

/** ctx.join given the same Task twice: its one result cannot fill two slots. */
export function joinTwiceTaskError(join: string, task: string, where: string): TypeError {
  return new TypeError(`ctx.join('${join}'): task '${task}' (${where}) is given to this join twice; a Task's result goes to one place`);
}

/** ctx.join given a Task already awaited or joined. */
export function joinUsedTaskError(join: string, task: string, where: string): TypeError {
  return new TypeError(`ctx.join('${join}'): task '${task}' (${where}) was already awaited or joined`);
}

/** A Task handle awaited after its G was reused: it outlived the task that spawned it. */
export function staleHandleError(task: string, g: number, gen: number, now: number): Error {
  return new Error(`task '${task}': its handle outlived its parent task (G ${g} is at generation ${now}, the handle names ${gen})`);
}

/** A SharedArrayBuffer made inside a task, passed to another task: only the main thread
 *  registers shared buffers. */
export function sharedInTaskError(bytes: number): TypeError {
  return new TypeError(`a SharedArrayBuffer created inside a task (${bytes} bytes) cannot cross threads; create it on the main thread and pass it in as an argument`);
}

/** A shared buffer the scheduler released (the main thread's program dropped it, no root task
 *  carrying it was pending, and no task ran: DESIGN.md "Shared buffers") named again: by a task
 *  that kept it past its root (id -1: the task passes it on) or in a value from such a task. */
export function sharedReleasedError(id: number): TypeError {
  return new TypeError(`a SharedArrayBuffer${id >= 0 ? ` (shared buffer ${id})` : ''} the scheduler released cannot cross threads again: ` +
    'the main thread dropped it once no pending root task carried it; keep a reference on the main thread while tasks may pass it on or return it');
}

/** ctx.fork's misuses and limits (fork.ts, DESIGN.md "Fork-join"). `what` says what the
 *  forked task returned: 'a promise' or 'a ctx.join request'. */
export function forkNotSyncError(name: string, what: string): TypeError {
  return new TypeError(`ctx.fork('${name}'): the task returned ${what}; a forked task must return its result synchronously (use ctx.spawn for async work)`);
}
export function forkOutsideError(name: string): TypeError {
  return new TypeError(`ctx.fork('${name}'): only while the task runs synchronously (not after an await, nor once it returned)`);
}
export function forkAsyncTaskError(name: string): TypeError {
  return new TypeError(`ctx.fork('${name}'): '${name}' is an async function; fork runs synchronous task functions only (use ctx.spawn)`);
}
export function forkFromAsyncError(name: string): TypeError {
  return new TypeError(`ctx.fork('${name}'): called from an async task; fork and join are for synchronous tasks (use ctx.spawn)`);
}
export function forkDepthError(name: string, depth: number, limit: number): RangeError {
  return new RangeError(`ctx.fork('${name}'): ${depth} task calls already nest on this thread's stack (the limit is ${limit})`);
}
export function forkTableFullError(name: string): RangeError {
  return new RangeError(`ctx.fork('${name}'): the G table is full`);
}

// ---- Shared memory running out ---------------------------------------------------------------

/** A value or a G's arguments found no room; asMemoryError turns it into memoryFullError where
 *  the caller knows maxMemoryMB (the words "out of shared memory" are what it looks for). */
export function outOfSharedMemoryError(what: string, need: string): RangeError {
  return new RangeError(`${what}: out of shared memory for ${need}`);
}

/** A block the scheduler reserves for itself at start (trace rings, histograms, cancellation
 *  flags) found no room. */
export function reserveError(what: string, need: string): RangeError {
  return new RangeError(`${what}: no shared memory for ${need}`);
}

// ---- Internal faults: a bug of the scheduler, or a core call that failed ---------------------

/** An invariant of the runtime broke (a bug, never a user's error): says which, with the values. */
export function internalError(what: string): Error {
  return new Error(`stealwork: ${what}`);
}

/** A core call failed inside a task (DESIGN.md "Core faults"): the M stops after the task. */
export function coreFaultError(op: string, m: number, e: unknown): Error {
  return new Error(`the scheduler's core failed in ${op} on M${m}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** The platform lacks what the runtime needs on this thread. */
export function platformMissingError(what: string): Error {
  return new Error(`stealwork: ${what}`);
}

// ---- The data-parallel calls (tasks/par.ts, DESIGN.md "Data-parallel calls") -----------------

/** A chunk call of a parallel map returned something else than one result per item. */
export function parChunkError(fn: string, lo: number, hi: number, got: unknown): TypeError {
  const what = got === null ? 'null' : typeof got !== 'object' ? typeof got
    : typeof (got as ArrayLike<unknown>).length === 'number' ? `${(got as ArrayLike<unknown>).length} results` : 'an object with no length';
  return new TypeError(`parMap('${fn}', { chunk: true }): the chunk [${lo}, ${hi}) must return an array of ${hi - lo} results, got ${what}`);
}
/** A data-parallel call's item (or combine) function is async: the items run inside fork-join. */
export function parAsyncError(fn: string, combine: boolean): TypeError {
  return combine
    ? new TypeError(`data-parallel reduce: combine '${fn}' is an async function; it must return its result synchronously`)
    : new TypeError(`data-parallel call of '${fn}': it is an async function; the items run synchronously inside fork-join (use ctx.spawn per item for async work)`);
}
/** ctx.parMap & co outside a synchronous task's run. */
export function parOutsideError(what: string, name: string): TypeError {
  return new TypeError(`${what}('${name}'): only while the task runs synchronously (not after an await, nor from an async task: spawn a synchronous task that makes the call)`);
}

// ---- Broadcast (tasks/broadcast.ts, DESIGN.md "Broadcast") -------------------------------------

/** What a broadcast's ctx refuses: it belongs to no task tree. */
export function broadcastTreeError(what: string, name: string): TypeError {
  return new TypeError(`ctx.${what} in broadcast '${name}': a broadcast runs outside any task tree (ctx.thread, ctx.signal and ctx.yield are what it has); spawn from the main thread instead`);
}
/** A broadcast's result (or error) that postMessage cannot clone. */
export function broadcastCloneError(name: string, m: number, result: boolean, problem: string): TypeError {
  return new TypeError(`broadcast('${name}') on thread M${m}: its ${result ? 'result' : 'error'} cannot be cloned: ${problem}`);
}
