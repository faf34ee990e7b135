// A task prints N numbered lines (argv[2], default 10000) through a Scheduler; the program ends
// without close() (argv[3] 'close': with await sched.close()). Every line must reach stdout, in
// order (test/output.test.ts).
//   node test/output/scheduler.mjs 10000 [close]     deno run -A ...     bun ...
import process from 'node:process';
import { Scheduler } from 'stealwork';

const n = Number(process.argv[2] ?? 10000);
const sched = await Scheduler.start({ tasks: new URL('./tasks.mjs', import.meta.url), procs: 2 });
await sched.run('print', 'line', n);
if (process.argv[3] === 'close') await sched.close();
