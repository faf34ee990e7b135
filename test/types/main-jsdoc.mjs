// @ts-check
// The main thread of typed-tasks-jsdoc.mjs: the same results outside the tasks.
import { Scheduler } from '../../dist/bindings/index.js';

/** @type {Scheduler<typeof import('./typed-tasks-jsdoc.mjs')>} */
const sched = await Scheduler.start({ tasks: new URL('./typed-tasks-jsdoc.mjs', import.meta.url) });
/** @type {number} */
const a = await sched.run('fibc', 3);
// @ts-expect-error fibc takes a number
await sched.run('fibc', 'three');
void a;
await sched.close();
