// A piscina program switched by its import, without close(): it must exit once its last result
// is in, as it does with piscina. Node only (the piscina entry is).
import process from 'node:process';
import Piscina from 'stealwork/piscina';

process.env.PZ_LIB = 'stealwork/piscina'; // the worker file imports its helpers from here
process.on('exit', () => console.log('exit'));
const pool = new Piscina({ filename: new URL('../fixtures/piscina-worker.mjs', import.meta.url).href });
console.log(await pool.run(7));
console.log((await Promise.all([1, 2, 3].map((x) => pool.run({ a: x, b: 1 }, { name: 'add' })))).join(' '));
