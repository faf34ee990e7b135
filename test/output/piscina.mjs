// As scheduler.mjs, through the stealwork/piscina entry: a piscina program whose task prints N
// numbered lines, ending without close() (argv[3] 'close': with await pool.close()).
import process from 'node:process';
import Piscina from 'stealwork/piscina';

const n = Number(process.argv[2] ?? 10000);
const pool = new Piscina({ filename: new URL('./piscina-worker.mjs', import.meta.url).href, maxThreads: 2 });
await pool.run(n);
if (process.argv[3] === 'close') await pool.close();
