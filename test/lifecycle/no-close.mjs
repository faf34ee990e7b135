// A program written as most are: it starts a scheduler, uses it, and ends without close().
// It must exit by itself (test/lifecycle.test.ts and the engine matrix run it and fail on a
// hang): once nothing is pending, the scheduler no longer holds the process. Before it exits, a
// root waiting on a timer, an idle pause and a detached child still running each keep it alive.
//
//   node test/lifecycle/no-close.mjs     deno run --allow-read test/lifecycle/no-close.mjs     bun ...
import process from 'node:process';
import { Scheduler } from 'stealwork';

const hits = new SharedArrayBuffer(4);
process.on('exit', () => console.log(`exit detached=${Atomics.load(new Int32Array(hits), 0)}`));

const sched = await Scheduler.start({ tasks: new URL('./tasks.mjs', import.meta.url), procs: 2 });
console.log(await sched.run('fibc', 20));
console.log(await sched.run('later', 100, 'late')); // a root pending on a task's timer
await new Promise((r) => setTimeout(r, 50)); // idle, then work again
console.log(await sched.run('detach', hits, 200)); // its child runs on after it settles
