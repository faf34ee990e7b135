// A pool's run, then the main thread blocks (Atomics.wait, no bound) until the task started:
// piscina dispatches it in run(), and so must stealwork/piscina (DESIGN.md "A synchronous
// start"). argv[2] names the library ('piscina' or 'stealwork/piscina'); run as a child process
// by test/sync-start.test.ts, whose bound is a hang detector.
const lib = process.argv[2];
const { Piscina } = lib === 'piscina' ? await import('piscina') : await import('../../dist/piscina.js');

const pool = new Piscina({ filename: new URL('../fixtures/piscina-worker.mjs', import.meta.url).href, minThreads: 2, maxThreads: 2 });
console.log(`threads ${pool.threads.length}`);
const first = new SharedArrayBuffer(8);
const p1 = pool.run({ flag: first, value: 'first' }, { name: 'holdUntilReleased' });
Atomics.wait(new Int32Array(first), 0, 0);
console.log('first started');
Atomics.store(new Int32Array(first), 1, 1);
console.log(await p1);
// Two at once, on the two threads: both start while this thread blocks.
const b = new SharedArrayBuffer(8);
const c = new SharedArrayBuffer(8);
const pb = pool.run({ flag: b, value: 'b' }, { name: 'holdUntilReleased' });
const pc = pool.run({ flag: c, value: 'c' }, { name: 'holdUntilReleased' });
Atomics.wait(new Int32Array(b), 0, 0);
Atomics.wait(new Int32Array(c), 0, 0);
console.log('both started');
Atomics.store(new Int32Array(b), 1, 1);
Atomics.store(new Int32Array(c), 1, 1);
console.log(await pb, await pc);
await pool.close();
console.log('exit');
