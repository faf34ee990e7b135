// The task module adapter, worker side: each exported function of a piscina worker file,
// `(task) => result` (sync or async), becomes a stealwork task `(ctx, task, submitted) =>
// result`. The wrapper refuses to start once the pool was force-closed, unless its run is one
// piscina had dispatched then (piscina fails the tasks still queued and lets those finish), records wait and run times (timing.ts) when `submitted` (the main
// thread's clock at run()) is given, and unwraps a moved result (move.ts).
//
// Registered as the 'piscina' calling convention by this entry's worker (worker.ts), which the
// runtime's worker entry looks up when started with calling 'piscina' (runtime/threads/calling.ts).

import { TimingRecorder, RUN, WAIT } from './timing.js';
import { unmove } from './move.js';
import { poolClosedError } from './errors.js';

export { POOL_CLOSED } from './errors.js';

type Handler = (task: unknown) => unknown;
type Wrapped = (ctx: unknown, ...args: unknown[]) => unknown;

/** A clock comparable across threads (each thread has its own performance.timeOrigin). */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}


function isThenable(r: unknown): r is PromiseLike<unknown> {
  return r !== null && (typeof r === 'object' || typeof r === 'function') && typeof (r as PromiseLike<unknown>).then === 'function';
}

function wrap(fn: Handler, rec: TimingRecorder): Wrapped {
  return (ctx, task, at) => {
    const submitted = at as number | undefined;
    if (rec.refuses((ctx as { g: number }).g)) throw poolClosedError();
    if (submitted === undefined) { // recordTiming: false
      const r = fn(task);
      return isThenable(r) ? Promise.resolve(r).then(unmove) : unmove(r);
    }
    const start = wallClock();
    rec.record(WAIT, start - submitted);
    let r: unknown;
    try {
      r = fn(task);
    } catch (e) {
      rec.record(RUN, wallClock() - start);
      throw e;
    }
    if (!isThenable(r)) {
      rec.record(RUN, wallClock() - start);
      return unmove(r);
    }
    return Promise.resolve(r).then(
      (v) => { rec.record(RUN, wallClock() - start); return unmove(v); },
      (e) => { rec.record(RUN, wallClock() - start); throw e; });
  };
}

function isHandlerSource(v: unknown): v is Record<string, unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function');
}

/**
 * The task table of a piscina worker file, by sorted name, each function wrapped. Its handlers
 * are found where piscina looks for them: every exported function (`default` included), after
 * awaiting an export that is a promise (piscina's "Delaying Availability of Workers": `module.
 * exports = init()`); and the functions hung on the default export (`module.exports = add;
 * add.multiply = multiply`), which piscina reaches through `require` but `import()` of CommonJS
 * does not list. A named export wins over a default's property of the same name.
 */
export async function piscinaTable(mod: Record<string, unknown>, shared: SharedArrayBuffer, mid: number): Promise<{ names: string[]; fns: Wrapped[] }> {
  const rec = new TimingRecorder(shared, mid);
  const handlers = new Map<string, Handler>();
  const exported: Array<[string, unknown]> = [];
  for (const k of Object.keys(mod)) exported.push([k, isThenable(mod[k]) ? await mod[k] : mod[k]]);
  for (const [k, v] of exported) if (typeof v === 'function') handlers.set(k, v as Handler);
  const def = exported.find(([k]) => k === 'default')?.[1];
  if (isHandlerSource(def)) {
    for (const k of Object.keys(def)) {
      if (k !== 'default' && !handlers.has(k) && typeof def[k] === 'function') handlers.set(k, def[k] as Handler);
    }
  }
  const names = [...handlers.keys()].sort();
  return { names, fns: names.map((n) => wrap(handlers.get(n)!, rec)) };
}
