// Every error the piscina entry raises is built here, in piscina's own classes and words (its
// src/errors.ts and its argument checks), so a piscina program sees the errors it saw before it
// switched. The scheduler's own errors (StealworkError and its codes) are bindings/runtime/
// errors.ts's; the pool maps them to these where piscina would have rejected differently.

/** The code of the error a task not started before a forced close fails with (worker-side.ts
 *  throws it, the pool maps it to AbortError('pool is closed')). */
export const POOL_CLOSED = 'STEALWORK_PISCINA_POOL_CLOSED';

/** piscina's own errors, same messages. */
export const Errors = {
  ThreadTermination: (): Error => new Error('Terminating worker thread'),
  FilenameNotProvided: (): Error => new Error('filename must be provided to run() or in options object'),
  TaskQueueAtLimit: (): Error => new Error('Task queue is at limit'),
  NoTaskQueueAvailable: (): Error => new Error('No task queue available and all Workers are busy'),
  CloseTimeout: (): Error => new Error('Close operation timed out'),
  /** A task's thread exited (piscina's worker 'exit' handler). */
  WorkerExited: (code: number): Error => new Error(`worker exited with code: ${code}`),
};

/** What a run rejects with when its signal aborted (piscina's AbortError). */
export class AbortError extends Error {
  constructor(reason?: unknown) {
    super('The task has been aborted', { cause: reason });
  }

  get name(): string {
    return 'AbortError';
  }
}

/** A run that ends aborted (AbortError, its cause the reason: a signal's reason, or what ended
 *  the pool: 'queue is being terminated', 'pool is closed'). */
export function abortError(reason: unknown): AbortError {
  return new AbortError(reason);
}

/** A bad argument or option, in piscina's words (`message` is piscina's text, as it is). */
export function argumentError(message: string): TypeError {
  return new TypeError(message);
}

/** minThreads above maxThreads (piscina's RangeError). */
export function threadsConflictError(): RangeError {
  return new RangeError('options.minThreads and options.maxThreads must not conflict');
}

/** A run naming another task file than the pool's: a pool is one scheduler over one module. */
export function oneFileError(running: string, asked: string): TypeError {
  return new TypeError(`stealwork/piscina runs one task file per pool: this pool runs ${running}, not ${asked}`);
}

/** A run naming a function the task file does not export (piscina's words). */
export function noHandlerError(filename: string): Error {
  return new Error(`No handler function exported from ${filename}`);
}

/** What a task not started before a forced close throws on its worker (code POOL_CLOSED). */
export function poolClosedError(): Error {
  const e = new Error('pool is closed') as Error & { code: string };
  e.name = 'AbortError';
  e.code = POOL_CLOSED;
  return e;
}
