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
  | 'ERR_TABLE_FULL'      // a spawn inside a task found the G table at maxTasks
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

export function unknownTaskError(name: unknown, known: readonly string[]): TypeError {
  const list = known.length ? known.map((k) => `'${k}'`).join(', ') : '(none: the module exports no functions)';
  const err = new TypeError(`unknown task ${typeof name === 'string' ? `'${name}'` : String(name)}; the task module exports: ${list}`);
  (err as TypeError & { code: ErrorCode }).code = 'ERR_UNKNOWN_TASK';
  return err;
}

export function tableFullError(max: number): StealworkError {
  return new StealworkError('ERR_TABLE_FULL', `spawn: the task table is full (maxTasks=${max}); raise maxTasks or await some tasks first`);
}
