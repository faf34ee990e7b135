// no-close.mjs as a CommonJS program: require() of the package's CommonJS entry.
const process = require('node:process');
const { pathToFileURL } = require('node:url');
const { Scheduler } = require('stealwork');

const hits = new SharedArrayBuffer(4);
process.on('exit', () => console.log(`exit detached=${Atomics.load(new Int32Array(hits), 0)}`));

(async () => {
  const sched = await Scheduler.start({ tasks: pathToFileURL(`${__dirname}/tasks.mjs`), procs: 2 });
  console.log(await sched.run('fibc', 20));
  console.log(await sched.run('later', 100, 'late'));
  await new Promise((r) => setTimeout(r, 50));
  console.log(await sched.run('detach', hits, 200));
})();
