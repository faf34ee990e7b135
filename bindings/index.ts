// stealwork: Go's G-P-M work-stealing scheduler for JavaScript. Re-exports only.

/**
 * Go's G-P-M work-stealing scheduler for JavaScript. {@link Scheduler.start} starts the threads
 * on a task module; `sched.run` and `sched.spawn` start root tasks, and a task forks, spawns and
 * joins children through its {@link TaskContext}.
 * @module stealwork
 */
export { Scheduler } from './runtime/scheduler.js';
export type { TaskFunction, TaskName, TaskArgs, TaskResult, ScheduleWith } from './runtime/scheduler.js';
export type { SpawnOptions } from './runtime/engine.js';
export type { SchedulerOptions, VictimOrder } from './runtime/options.js';
export type { SchedulerStats, PStats, MStats } from './runtime/observe/stats.js';
export type { Dump, DumpTask, DumpState } from './runtime/observe/dump.js';
export { Task, JoinRequest } from './runtime/tasks/task.js';
export { RootTask } from './runtime/tasks/root-task.js';
export { TaskContext } from './runtime/tasks/context.js';
export { Fork } from './runtime/tasks/fork-handle.js';
export { StealworkError, WorkerCrashedError, AbortError } from './runtime/base/errors.js';
export type { ErrorCode } from './runtime/base/errors.js';
export type { Backend } from './core/core.js';
export type { Priority } from './runtime/tasks/priority.js';
export type { UnobservedInfo } from './runtime/tasks/unobserved.js';
export type { ParSource, ParTypedArray, ParOptions, ParReduceOptions } from './runtime/tasks/par-api.js';
export type { ParCallOptions } from './runtime/scheduler.js';
