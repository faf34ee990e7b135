// Calling conventions: how a worker thread calls the task module's functions (docs/DESIGN.md
// "Calling conventions"). The runtime's own is 'context', `(ctx, ...args)`. An adapter that
// runs modules written for another library (stealwork/piscina: `(task) => result`) registers
// its convention here, keyed by the `calling.kind` its main side puts in the options, and the
// worker entry (worker.ts) looks the kind up when the init message names it. So the arrow runs
// from the adapter to the runtime, never back: the runtime does not know which adapters exist.
//
// The worker thread must have loaded the adapter's code before the init message is handled: the
// adapter starts its threads on an entry of its own that imports its worker side (which calls
// registerCalling when it loads) and then the runtime's worker.ts (ResolvedOptions.worker;
// bindings/piscina/worker.ts). A registry is per thread: registering on the main thread does
// nothing for the workers. Worker thread only, at module load.

import type { TaskFn } from '../tasks/taskfn.js';
import { callingTakenError } from '../base/errors.js';

/**
 * How the worker calls the task module's functions, as the options carry it and the init message
 * takes it to the thread (structured-cloned). 'context' is stealwork's `(ctx, ...args)`; any
 * other kind names a convention an adapter registered on the worker thread, with the shared words
 * its wrapper reads (stealwork/piscina: 'piscina', its timing buffer).
 */
export type TaskCalling = { kind: 'context' } | { kind: string; shared: SharedArrayBuffer };

/** A module's tasks: names sorted (the same ids on every thread), one function per name. */
export interface TaskTable { names: string[]; fns: TaskFn[] }

/** What an adapter registers for its kind. */
export interface CallingConvention {
  /** The task table of the loaded module, each function wrapped to be called as `(ctx,
   *  ...args)`. mid: this thread's M slot. May await (an export that is a promise). */
  table(mod: Record<string, unknown>, calling: TaskCalling, mid: number): TaskTable | Promise<TaskTable>;
  /** False: an error thrown outside any task (a callback a task left behind) ends the thread
   *  and fails the task running there, as piscina does; true: it is reported to the main thread
   *  as the scheduler's unhandled error and the thread goes on (DESIGN.md "Stranded callbacks"). */
  readonly reportStrayErrors: boolean;
}

const conventions = new Map<string, CallingConvention>();

/** Registers the convention of `kind` on this thread. The adapter's worker side, when it loads;
 *  registering a kind again with another convention (or 'context') is a TypeError. */
export function registerCalling(kind: string, convention: CallingConvention): void {
  const had = conventions.get(kind);
  if (kind === 'context' || (had !== undefined && had !== convention)) throw callingTakenError(kind);
  conventions.set(kind, convention);
}

/** The convention registered for `kind` on this thread, or undefined. The worker entry. */
export function callingConvention(kind: string): CallingConvention | undefined {
  return conventions.get(kind);
}
