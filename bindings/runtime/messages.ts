// The messages between the main thread (engine.ts) and a worker M (worker.ts): the one list of
// both directions, imported by both threads, so each side's sends and reads are checked by tsc
// against the same types (DESIGN.md "Threads and the handshake").
//
// Every message is namespaced ('stealwork:...') and tagged by `type`: a discriminated union per
// direction, narrowed by a switch on `type`. What travels is structured-cloned; the memory and
// the compiled module are shared, not copied. The hot path sends no message at all: results come
// back through the inboxes in shared memory.
//
//   main -> worker   init      once, first: the memory, the module, the options of the M loop
//                    share     shared buffers registered since the last delivery (and, before
//                              init, all of them for a thread that replaces a crashed one)
//                    cancel    a cancellation token fired (ctx.signal aborts at the next turn)
//                    broadcast run a task function once on this thread (sched.broadcast)
//   worker -> main   ready     after init: the task module's names (every worker must agree)
//                    error     the task module or the thread failed to start, or the M loop
//                              itself failed (code says which)
//                    share-ack every buffer up to id is registered in this thread
//                    uncaught  an error thrown outside any task (DESIGN.md "Stranded callbacks")
//                    unobserved a task nobody will await or join failed: its error block
//                              (tasks/unobserved.ts), which the main thread decodes and frees
//                    halt      the thread claimed itself for a kill and waits to be terminated
//                              (DESIGN.md "Killing a task", step 5)
//                    exit      the M loop ended: close, or the thread idled out (`idle`)
//                    broadcast-done  a broadcast's outcome on this thread
//
// The worker's port is the task module's too: what a task posts there itself (a piscina
// worker's progress messages, say) is not the engine's. `isEngineMessage` tells them apart by
// the reserved 'stealwork:' prefix of `type`; the engine hands everything else to the
// `onMessage` hook (options.ts), in the order each thread posted it.

import type { Backend } from '../core/core.js';
import type { ErrorDescription } from './base/description.js';
import type { TaskCalling } from './threads/calling.js';
import type { HookEntry } from './tasks/broadcast-worker.js';

export type { HookEntry };

/** A shared buffer as it crosses: its registry id and the buffer (shared-registry.ts). */
export interface SharedEntry { id: number; buffer: SharedArrayBuffer }

export type { ErrorDescription } from './base/description.js';

// ---- main -> worker ---------------------------------------------------------------------

export interface InitMessage {
  type: 'stealwork:init';
  memory: WebAssembly.Memory;
  module: WebAssembly.Module | null;
  backend: Backend;
  tasks: string;
  mid: number;
  spinLimit: number;
  yieldLimit: number;
  /** The CPUs this process may use (ResolvedOptions.ncpu). */
  ncpu: number;
  maxTasks: number;
  maxMemoryMB: number;
  debug: boolean;
  /** How long (ms) the M sleeps idle before it may end its thread (Infinity: never), and how
   *  many Ms stay live whatever their idleness (DESIGN.md "Threads that come and go"). */
  idleTimeout: number;
  minLive: number;
  /** Async tasks in flight before the M leaves queued work to others (Infinity: no limit), or
   *  'auto' (threads/admit.ts). */
  asyncPerThread: number | 'auto';
  /** How task functions are called ('context': stealwork's own; 'piscina': one argument). */
  calling: TaskCalling;
  /** The threads' workerData, where the platform has no Worker option for it (not Node). */
  workerData?: unknown;
  /** This thread's output counter (host/stdio.ts, DESIGN.md "Task output"). */
  output: SharedArrayBuffer;
  /** Set when this thread replaces a crashed one in slot `mid` (DESIGN.md "Crashed workers"). */
  restart?: { resumeP: number; blocked: boolean };
  /** This thread's epoch in slot `mid`: 1 for the slot's first thread, one more for each thread
   *  started there since, whatever the way (start-up, startm, replacement). And whether a thread
   *  of the slot ever died with waiters (a crash or a kill): results for them may still arrive
   *  (DESIGN.md "Late results"). */
  epoch: number;
  orphansPossible: boolean;
  /** A synchronous start's port for shared buffers (ShareMessage), read without a turn of the
   *  event loop when a value names a buffer not received yet (DESIGN.md "A synchronous start"). */
  sharePort?: unknown;
  /** The broadcasts made before this thread started: it runs each at its start (broadcast.ts). */
  hooks?: HookEntry[];
}

export interface BroadcastMessage { type: 'stealwork:broadcast'; hook: HookEntry }

/** `upTo`: to a thread started later, the ids published so far (S_RT_SHARES): the buffers
 *  released since are not sent, and the thread must not wait for them (receiveShares). */
export interface ShareMessage { type: 'stealwork:share'; shares: SharedEntry[]; upTo?: number }

export interface CancelMessage { type: 'stealwork:cancel'; token: number }

/** Shared buffers the main thread released (DESIGN.md "Shared buffers"): forget them. Sent when
 *  no task runs anywhere. */
export interface UnshareMessage { type: 'stealwork:unshare'; ids: number[] }

/** What the main thread sends a worker. */
export type ToWorker = InitMessage | ShareMessage | CancelMessage | UnshareMessage | BroadcastMessage;

// ---- worker -> main ---------------------------------------------------------------------

export interface ReadyMessage { type: 'stealwork:ready'; names: string[] }

/** ERR_TASK_MODULE and ERR_WORKER_START before ready; ERR_WORKER_CRASHED after (the M loop
 *  itself failed). */
export interface ErrorMessage {
  type: 'stealwork:error';
  code: 'ERR_TASK_MODULE' | 'ERR_WORKER_START' | 'ERR_WORKER_CRASHED';
  error: ErrorDescription;
}

/** `id`: the highest shared-buffer id this worker has registered. */
export interface ShareAckMessage { type: 'stealwork:share-ack'; id: number }

export interface UncaughtMessage { type: 'stealwork:uncaught'; error: ErrorDescription }

/** `idle`: the M left the scheduler after idleTimeout (mExit); its slot is free for a new thread.
 *  Otherwise the scheduler is closing. */
export interface ExitMessage { type: 'stealwork:exit'; idle: boolean }

/** `token`: the kill-armed tree whose kill the thread claimed itself for (kill.ts). */
export interface HaltMessage { type: 'stealwork:halt'; token: number }

/** Broadcast `id` ran on this thread: its result (`ok`) or its error, structured-cloned. */
export interface BroadcastDoneMessage { type: 'stealwork:broadcast-done'; id: number; ok: boolean; value: unknown }

/** `block`: the error's value block, the main thread's to decode and free; `task`: its name. */
export interface UnobservedMessage { type: 'stealwork:unobserved'; block: number; task: string }

/** What a worker sends the main thread. */
export type FromWorker = ReadyMessage | ErrorMessage | ShareAckMessage | UncaughtMessage | ExitMessage | HaltMessage | UnobservedMessage | BroadcastDoneMessage;

/** The prefix of every engine message's `type`: reserved, a task module's own messages must
 *  not use it. */
export const MESSAGE_PREFIX = 'stealwork:';

/** True for the engine's own messages (either direction); false for what a task module posted
 *  on the same port (any value: null, a string, an object of its own). Any thread. */
export function isEngineMessage(msg: unknown): msg is FromWorker | ToWorker {
  if (msg === null || typeof msg !== 'object') return false;
  const type = (msg as { type?: unknown }).type;
  return typeof type === 'string' && type.startsWith(MESSAGE_PREFIX);
}
