// The worker file of bench/async.mjs for piscina and stealwork/piscina: the bodies of
// async-tasks.mjs behind the one-argument signature those pools call (`pool.run(arg, { name })`).
// Pool tasks cannot spawn tasks, so hashDir has no counterpart: the main thread submits a task
// per file instead.

import * as T from './async-tasks.mjs';

export const readHash = ({ sab, file }) => T.readHash(null, sab, file);
export const ioTick = ({ sab, i, ms, bytes }) => T.ioTick(null, sab, i, ms, bytes);
export const hashFile = ({ sab, dir, name }) => T.hashFile(null, sab, dir, name);
export const stall = ({ sab, flag, awaitMs, spinMs }) => T.stall(null, sab, flag, awaitMs, spinMs);
export const tiny = ({ sab, i }) => T.tiny(null, sab, i);

export default readHash;
