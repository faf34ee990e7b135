// The sign a stealwork worker thread leaves for its task module: what the thread was started
// with, under a global symbol, set by the runtime's worker entry whatever the calling convention
// (stealwork/piscina's isWorkerThread and workerData read it). A global symbol, because the task
// module's copy of stealwork/piscina (ESM or CommonJS) is not the module instance that runs the
// worker. The runtime owns it so that the arrow runs from the adapter to the runtime.

/** Set by the worker entry (bindings/runtime/worker.ts) before it imports the task module. */
export const WORKER_MARK: unique symbol = Symbol.for('stealwork.worker') as never;

export interface WorkerMark {
  /** The workerData the scheduler was started with. */
  workerData: unknown;
}

/** The mark, on a stealwork worker thread; undefined elsewhere. Any thread. */
export function workerMark(): WorkerMark | undefined {
  return (globalThis as Record<symbol, WorkerMark | undefined>)[WORKER_MARK];
}
