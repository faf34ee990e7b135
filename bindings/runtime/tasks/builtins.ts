// The runtime's own task functions, in every thread's task table after the module's (worker.ts):
// the data-parallel calls' root and forked part (par.ts). Their names carry the reserved
// 'stealwork:' prefix; the same list on every thread, so their ids agree everywhere. Worker
// thread, once, at start; the main thread's Scheduler.taskNames leaves them out (isBuiltin).

import type { TaskFn } from './taskfn.js';
import { PAR_PART, PAR_ROOT, parPart, parRootTask } from './par.js';

const BUILTIN_PREFIX = 'stealwork:';

/** A task table (threads/calling.ts TaskTable, structurally: tasks/ does not import threads/). */
interface TaskTable { names: string[]; fns: TaskFn[] }

/** The module's table with the built-in tasks appended. */
export function withBuiltins(t: TaskTable): TaskTable {
  return {
    names: [...t.names, PAR_ROOT, PAR_PART],
    fns: [...t.fns, parRootTask as TaskFn, parPart as unknown as TaskFn],
  };
}

/** Is `name` one of the runtime's own tasks? Any thread. */
export function isBuiltin(name: string): boolean {
  return name.startsWith(BUILTIN_PREFIX);
}
