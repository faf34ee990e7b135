// The matrix's heavier fork-join: fibc(30) (1,664,079 task calls and 832,039 joins) on 4 Ps, on
// the Wasm core and then on its TypeScript twin, each in a scheduler of its own. It prints one
// line per backend, `fibc(30) <backend> <result>`, which test/engines/run.mjs checks; a task
// module of the README's (examples/readme/tasks.mjs) supplies fibc and sum.
//
//   node test/engines/forkjoin.js        deno run --allow-read test/engines/forkjoin.js
//   bun test/engines/forkjoin.js         in a page: import it (test/engines/page.html)

import { Scheduler } from 'stealwork';

const tasks = new URL('../../examples/readme/tasks.mjs', import.meta.url);

for (const backend of ['wasm', 'js']) {
  const sched = await Scheduler.start({ tasks, procs: 4, backend });
  try {
    console.log(`fibc(30) ${backend} ${await sched.run('fibc', 30)}`);
  } finally {
    await sched.close();
  }
}
