// piscina's own test "console.log() calls are not blocked by Atomics.wait()" (its
// test/fixtures/console-log.ts with eval.js), switched to stealwork/piscina: the result is never
// awaited, and the program must still print A on stdout and B on stderr.
const { resolve } = require('node:path');
const Piscina = require('stealwork/piscina');

const pool = new Piscina({ filename: resolve(__dirname, 'eval.cjs'), maxThreads: 1 });
pool.run('console.log("A"); console.error("B");');
