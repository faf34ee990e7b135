// A program must not end while work is pending (DESIGN.md "What keeps the process alive"):
//   roots  every thread idles out at once (idleTimeout 0, minThreads 0) while the main thread
//          spawns roots one after another, busy 5 ms between them: a root queued when no thread
//          is alive must still hold the process until a thread is started and runs it;
//   resize `await sched.resize(1)` while both Ps run tasks: the pending resize holds it.
// Never closes: the program ends once nothing is pending, after printing its results.
//
//   node test/lifecycle/pending-exit.mjs roots|resize      (deno run -A ..., bun ...)
import process from 'node:process';
import { Scheduler } from 'stealwork';

const mode = process.argv[2] ?? 'roots';
process.on('exit', (code) => { if (code !== 0) console.log(`exit ${code}`); });

const sched = await Scheduler.start({
  tasks: new URL('./recover-tasks.mjs', import.meta.url), procs: 2, minThreads: 0, idleTimeout: 0, spareThreads: 0,
});
const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) { /* the main thread is busy */ } };

if (mode === 'roots') {
  const got = [];
  for (let i = 0; i < 20; i++) {
    got.push(await sched.run('busy', 1, i));
    spin(5);
  }
  console.log(`roots ${got.length} ${got.reduce((a, b) => a + b, 0)}`);
} else {
  const both = [sched.run('busy', 30, 'a'), sched.run('busy', 30, 'b')];
  await new Promise((r) => setTimeout(r, 5));
  await sched.resize(1);
  console.log('resized');
  console.log((await Promise.all(both)).join(' '));
}
