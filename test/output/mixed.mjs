// Two tasks on two threads at once, one printing N lines on stdout (process.stdout.write), the
// other N on stderr (console.error); each thread's lines must arrive in order. argv[3] 'close'
// closes the scheduler at the end.
import process from 'node:process';
import { Scheduler } from 'stealwork';

const n = Number(process.argv[2] ?? 10000);
const sched = await Scheduler.start({ tasks: new URL('./tasks.mjs', import.meta.url), procs: 2 });
const word = new SharedArrayBuffer(4);
await Promise.all([sched.run('both', 'out', 'out', n, word), sched.run('both', 'err', 'err', n, word)]);
if (process.argv[3] === 'close') await sched.close();
