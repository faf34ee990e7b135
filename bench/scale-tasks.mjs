// Task module of bench/scale.mjs: the three trees it scales, and a CPU-bound task for the lone
// task's CPU. Every export is a task, loaded in every worker.

/** Coarse fork-join: a spawn and a continuation join per call above the cut, plain recursion
 *  below it (fibcut(34, 20): 2,957 tasks of about 0.03 ms). */
export { fibcut, sum, burn } from './tasks.mjs';

/** Fine fork: ctx.fork per call (ffib(27): 317,810 forks, most run inline by their forker). */
export { ffib } from './fork-tasks.mjs';

/** A spawn tree: a task per call, joined by continuation (fibc(22): 85,969 Gs). */
export { fibc } from './tasks.mjs';
