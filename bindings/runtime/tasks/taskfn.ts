// A task function as the M calls it: the context first, then the arguments. A file of its own
// because both spawning at capacity (inline.ts) and the kill guard around a task's code
// (kill.ts) call one, and inline.ts arms the guard.

import type { TaskContext } from './context.js';

export type TaskFn = (ctx: TaskContext, ...args: unknown[]) => unknown;
