// ctx.parMap, ctx.parForEach and ctx.parReduce (docs/DESIGN.md "Data-parallel calls"): the call
// runs in place, on the calling task's thread, as fork-join under the calling task. A file of
// its own so the context (context.ts) imports only this entry point. The task's own M only.

import { H_NPROCS, HEADER } from '../../../assembly/shared/layout.js';
import type { TaskContext } from './context.js';
import type { GSlots } from '../memory/gslots.js';
import { parJob } from './par-api.js';
import { parOutsideError } from '../base/errors.js';
import { runPar } from './par.js';

/** What the in-place call needs of the M: the task running synchronously now. */
export interface ParCallHost { readonly running: TaskContext | null; readonly gs: GSlots; isAsyncTask(id: number): boolean }

/** Runs a data-parallel call of kind `kind` (par-job.ts) from task ctx on M host (m.ts parFrom). */
export function parCall(host: ParCallHost, ctx: TaskContext, what: string, kind: number, name: unknown, source: unknown, combine: unknown,
  options: unknown): unknown {
  if (host.running !== ctx || host.isAsyncTask(host.gs.fn(host.gs.addr(ctx.g)))) {
    throw parOutsideError(what, String(name));
  }
  // The splitter's count: the Ps the scheduler has (maxProcs; a P out of service costs a few
  // more splits, no more).
  const threads = host.gs.views.u32[(HEADER + H_NPROCS) >>> 2]; // plain: fixed at init
  return runPar(ctx, parJob(what, kind, name, source, combine, options, threads, false).job);
}
