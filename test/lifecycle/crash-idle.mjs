// A crash or a kill, then idle exits, then more work (DESIGN.md "Threads that come and go",
// "Crashed workers"): a task awaiting a child on the other thread dies with its thread; the
// child's late result arrives for a slot whose thread has come and gone since. The task rejects
// with WorkerCrashedError; nothing surfaces outside a task, later runs succeed and close settles.
//
//   node test/lifecycle/crash-idle.mjs exit|kill      (deno run -A ..., bun ...)
import process from 'node:process';
import { Scheduler } from 'stealwork';

const mode = process.argv[2] ?? 'exit';
const out = [];
process.on('unhandledRejection', (e) => { console.log(`unhandled ${e?.code ?? ''} ${e?.message ?? e}`); process.exit(1); });
process.on('uncaughtException', (e) => { console.log(`uncaught ${e?.code ?? ''} ${e?.message ?? e}`); process.exit(1); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sched = await Scheduler.start({
  tasks: new URL('./recover-tasks.mjs', import.meta.url), procs: 2, minThreads: 0, idleTimeout: 20, spareThreads: 0,
});
const flags = new SharedArrayBuffer(16);
const parent = sched.run('awaitOther', flags, mode, 400);
if (mode === 'kill') {
  const a = new Int32Array(flags);
  while (Atomics.load(a, 1) === 0) await sleep(1); // the parent awaits its child
  // The parent's thread is free (it awaits): the hog lands there, and its kill ends that thread.
  const hog = sched.with({ timeout: 50, kill: true }).run('hog', 10_000);
  try { await hog; out.push('hog resolved'); } catch (e) { out.push(`hog ${e.code}`); }
}
try {
  out.push(`parent resolved ${await parent}`);
} catch (e) {
  out.push(`parent ${e.name}`);
}
// The child ends at 400 ms; the threads idle out (20 ms) before and after.
await sleep(700);
for (let round = 0; round < 3; round++) {
  const rs = await Promise.all([sched.run('fibc', 15), sched.run('busy', 5, round)]);
  out.push(rs.join(' '));
  await sleep(60); // idle exits again
}
await sched.close();
out.push('closed');
console.log(out.join('\n'));
