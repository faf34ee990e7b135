// main.mjs
import { Scheduler } from 'stealwork';

const sched = await Scheduler.start({
  tasks: new URL('./tasks.mjs', import.meta.url), // loaded in every worker
  // procs: the number of Ps, by default the CPUs (or the cgroup CPU limit); more costs CPU
  backend: 'wasm',                               // 'wasm' | 'js'
});
console.log(await sched.run('fibc', 30));       // spawn a root task, await its result
const t = sched.spawn('fib', 20);               // a Task: a Promise of the result, with t.name
console.log(await t, sched.stats().totals);     // counters per P, per thread, in total
await sched.close();                            // finish what was spawned, then stop the threads
