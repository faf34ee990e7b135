// Unobserved failures (docs/DESIGN.md "Unobserved failures"): a child task that fails when
// nobody will ever await or join it is reported, never dropped in silence. Known at one moment,
// the later of two: the child failed, and its parent task ended without awaiting or joining it
// (the Task was detached: kids.ts). Whichever thread sees the second event takes the error out
// of the G's result slot (or encodes an inline child's error) into a value block, and hands the
// block's address to the main thread (`stealwork:unobserved`), which decodes it and calls
// `options.onUnobservedError`, or warns.

import { G_RESULT, G_RESULT_TAG, TAG_ERROR, TAG_UNDEFINED } from '../../../assembly/shared/layout.js';
import { decodeError, encodeError } from '../../codec/errors.js';
import { reviveError } from '../base/errors.js';
import { warn } from '../host/platform.js';
import type { GSlots } from '../memory/gslots.js';

/** What `options.onUnobservedError` is told besides the error. */
export interface UnobservedInfo {
  /** The failed task's function name. */
  task: string;
  /** The worker thread (M index, 1-based) that reported it; 0: the main thread. */
  thread: number;
}

/** `options.onUnobservedError`. */
export type UnobservedHook = (error: unknown, info: UnobservedInfo) => void;

/** Hands an error block (its address) of task `task` to the main thread, which frees it. An M's
 *  (worker.ts posts it); absent on the main thread's own finisher (crash recovery), where such
 *  errors are dropped as before. */
export type UnobservedSink = (block: number, task: string) => void;

/**
 * Takes the error block out of the result slot of the G at a, leaving the slot empty (so
 * dropResult frees nothing), and returns its address; 0 when the result is not an error. The
 * thread that owns the slot now: the finisher of a detached G, or the detacher of a done one.
 */
export function takeErrorBlock(gs: GSlots, a: number): number {
  const v = gs.views;
  if (v.u8[a + G_RESULT_TAG] !== TAG_ERROR) return 0;
  const block = v.f64[(a + G_RESULT) >>> 3]!;
  v.u8[a + G_RESULT_TAG] = TAG_UNDEFINED;
  v.f64[(a + G_RESULT) >>> 3] = 0;
  return block;
}

/** An inline child's error (a Task settled on this thread: "Spawning at capacity"), encoded into
 *  a new block for the main thread. The M that ran it. */
export function errorBlock(gs: GSlots, error: unknown, task: string): number {
  return encodeError(gs.views, gs.heap, error, `task '${task}' threw`, gs.shared);
}

/** Errors that are not news: a cancelled tree's children fail with ERR_ABORTED, and a forced
 *  close's with ERR_CLOSED_FORCE; whoever cancelled or closed knows. */
function expected(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_ABORTED' || code === 'ERR_CLOSED_FORCE';
}

/**
 * The main thread's side: decodes and frees the block, then calls the hook, or warns (a process
 * warning naming the task, code STEALWORK_UNOBSERVED). A hook that throws is reported as the
 * warning too, with its own error. Main thread.
 */
export function reportUnobserved(gs: GSlots, block: number, info: UnobservedInfo, hook: UnobservedHook | null): void {
  let error: unknown;
  try {
    error = reviveError(decodeError(gs.views, block, gs.shared));
  } finally {
    gs.heap.heapFree(block);
  }
  if (expected(error)) return;
  if (hook !== null) {
    try {
      hook(error, info);
      return;
    } catch (e) {
      warn(`options.onUnobservedError threw ${describe(e)} for task '${info.task}'`, 'STEALWORK_UNOBSERVED');
    }
  }
  warn(`task '${info.task}' failed and nobody awaited or joined it (its parent detached it; M${info.thread}): ` +
    `${describe(error)}. Await or join it, or set options.onUnobservedError`, 'STEALWORK_UNOBSERVED');
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.stack !== undefined && e.stack.startsWith(`${e.name}`) ? e.stack : `${e.name}: ${e.message}`;
  return String(e);
}
