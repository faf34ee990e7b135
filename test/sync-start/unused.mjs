// A pool or scheduler started synchronously and never used (or whose one run failed before it
// was queued) must let the program end by itself, as piscina's does: its threads hold the
// process only until their handshakes. Run as a child process by test/sync-start.test.ts; the
// test's bound is a hang detector.
import { createRequire } from 'node:module';
import { Scheduler } from '../../dist/index.js';

const require = createRequire(import.meta.url);
const Piscina = require(process.argv[2] === 'piscina' ? 'piscina' : '../../dist/piscina.cjs');
const pool = new Piscina({ filename: new URL('../fixtures/piscina-worker.mjs', import.meta.url).href });
await pool.run(null, { transferList: [new MessageChannel().port1] }).catch((e) => console.log(e.name));
if (process.argv[2] !== 'piscina') Scheduler.startSync({ tasks: new URL('./tasks.mjs', import.meta.url), procs: 2 });
console.log('end of program');
