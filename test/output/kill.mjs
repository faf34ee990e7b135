// A kill-armed task prints N lines, then spins until its thread is terminated (kill: true); the
// lines it printed before the kill must all arrive. The program ends without close().
import process from 'node:process';
import { Scheduler } from 'stealwork';

const n = Number(process.argv[2] ?? 10000);
const sched = await Scheduler.start({ tasks: new URL('./tasks.mjs', import.meta.url), procs: 2 });
const word = new SharedArrayBuffer(4);
const ac = new AbortController();
const t = sched.with({ signal: ac.signal, kill: true }).run('printThenSpin', 'line', n, word);
const w = Atomics.waitAsync(new Int32Array(word), 0, 0);
if (w.async) await w.value;
ac.abort();
await t.catch((e) => { if (!e.killed) throw e; });
