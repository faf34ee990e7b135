// Every error the scheduler itself raises is built here, so codes and wording stay consistent.
// Errors thrown by a task travel as they were thrown (see bindings/codec/errors.ts).

/** Stable, machine-readable reasons for a StealworkError. */
export type ErrorCode =
  | 'ERR_CLOSED'          // use after close()
  | 'ERR_CLOSED_FORCE'    // close({ force: true }) rejected a task still pending
  | 'ERR_UNKNOWN_TASK'    // no task of that name in the task module
  | 'ERR_TASK_MODULE'     // the task module failed to load in a worker
  | 'ERR_WORKER_START'    // a worker could not start
  | 'ERR_WORKER_CRASHED'  // a worker died outside a task
  | 'ERR_TABLE_FULL'      // the G table is at maxTasks and the task could not run inline
  | 'ERR_OUT_OF_MEMORY'   // the shared memory is at maxMemoryMB
  | 'ERR_UNCAUGHT'        // an error thrown outside any task (a callback a task left behind)
  | 'ERR_PLATFORM'        // the runtime lacks what the scheduler needs
  | 'ERR_ABORTED';        // the task was cancelled by its signal or timeout

/** The one error class for failures of the scheduler (not of a task). */
export class StealworkError extends Error {
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
  readonly reason: unknown;
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
export function uncaughtError(m: number, d: { name: string; message: string; stack?: string }): StealworkError {
  const cause = new Error(d.message);
  Object.defineProperty(cause, 'name', { value: d.name, writable: true, configurable: true });
  if (d.stack !== undefined) cause.stack = d.stack;
  return new StealworkError('ERR_UNCAUGHT', `worker M${m}: ${d.name}: ${d.message} (thrown outside any task, by a timer or promise callback a task left behind; no task failed)`, { cause });
}
