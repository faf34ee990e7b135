// The worker entry: an M's thread. It attaches the core to the shared memory it is given,
// loads the task module, reports the module's task names, then runs the M loop until close.
//
// Handshake (namespaced messages, all listed in messages.ts): main -> 'stealwork:init' {memory,
// module, ...}; worker -> 'stealwork:ready' {names} | 'stealwork:error' {error}; at close the
// loop ends and the worker sends 'stealwork:exit'.

import { attachCore } from '../core/index.js';
import { GSlots } from './memory/gslots.js';
import { M } from './threads/m.js';
import { catchStrayErrors, nodeWorkerData, parentChannel, receiveNow, trackTimers } from './host/platform.js';
import { isEngineMessage, type ErrorDescription, type FromWorker, type InitMessage } from './messages.js';
import { WORKER_MARK, type WorkerMark } from './threads/mark.js';
import { callingConvention, type CallingConvention, type TaskTable } from './threads/calling.js';
import { broadcastCloneError, unknownCallingError } from './base/errors.js';
import { Views } from './memory/values.js';
import { loadTaskModule } from './host/load.js';
import { SharedRegistry } from './memory/shared-registry.js';
import { postOutputAtOnce } from './host/stdio.js';
import type { TaskFn } from './tasks/taskfn.js';
import { withBuiltins } from './tasks/builtins.js';
import { setParHost } from './tasks/par.js';
import { BroadcastRunner } from './tasks/broadcast-worker.js';
import type { HookEntry } from './tasks/broadcast-worker.js';

/** A class (which cannot be called without `new`), told from a function by its source text. */
function isClass(f: unknown): boolean {
  try {
    return /^class[\s{]/.test(Function.prototype.toString.call(f));
  } catch {
    return false;
  }
}

/** The task functions of a module, by sorted export name (the same ids on every thread). An
 *  exported class is not a task (it cannot be called as one): it is left out. */
export function taskTable(mod: Record<string, unknown>): TaskTable {
  const names = Object.keys(mod).filter((k) => typeof mod[k] === 'function' && !isClass(mod[k])).sort();
  return { names, fns: names.map((n) => mod[n] as TaskFn) };
}

/** The runtime's own convention, 'context': each function as exported, called `(ctx, ...args)`;
 *  an error outside any task is reported and the thread goes on. */
const CONTEXT: CallingConvention = { table: taskTable, reportStrayErrors: true };

function describe(e: unknown): ErrorDescription {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack };
  // An error of another realm (a loader hook's thread) or an object with no prototype: String()
  // of it may itself throw; its own name and message say more.
  const o = e as { name?: unknown; message?: unknown; stack?: unknown } | null;
  if (o !== null && typeof o === 'object' && typeof o.message === 'string') {
    return { name: typeof o.name === 'string' ? o.name : 'Error', message: o.message, stack: typeof o.stack === 'string' ? o.stack : undefined };
  }
  try {
    return { name: 'Error', message: String(e) };
  } catch {
    return { name: 'Error', message: Object.prototype.toString.call(e) };
  }
}

const channel = parentChannel<FromWorker, unknown>();
// Timers are counted where the platform cannot list them (DESIGN.md "Stranded callbacks").
trackTimers();
let started = false;
const shared = new SharedRegistry(false);
let current: M | null = null;
let seen = 0;
// Broadcasts (tasks/broadcast-worker.ts): those sent before the M exists wait for it.
const broadcasts = new BroadcastRunner();
const earlyBroadcasts: HookEntry[] = [];
channel.onMessage((msg) => {
  if (!isEngineMessage(msg)) return; // the task module's own (it may listen on the same port)
  switch (msg.type) {
    case 'stealwork:cancel':
      current?.cancelToken(msg.token);
      return;
    case 'stealwork:share': {
      channel.post({ type: 'stealwork:share-ack', id: addShares(msg.shares, msg.upTo ?? 0) });
      return;
    }
    case 'stealwork:broadcast':
      if (current === null) earlyBroadcasts.push(msg.hook);
      else void broadcast(current, msg.hook);
      return;
    case 'stealwork:unshare':
      shared.remove(msg.ids);
      return;
    case 'stealwork:init':
      if (started) return;
      started = true;
      void run(msg);
  }
});

/** Records the shared buffers of a ShareMessage; the highest id + 1. */
function addShares(shares: ReadonlyArray<{ id: number; buffer: SharedArrayBuffer }>, upTo = 0): number {
  let last = -1;
  for (const s of shares) { shared.add(s.id, s.buffer); last = s.id; }
  const n = Math.max(last + 1, upTo); // released buffers are not sent: count them seen
  if (current !== null && current.sharesSeen < n) current.sharesSeen = n;
  seen = Math.max(seen, n);
  return last;
}

/** Runs a broadcast sent to this thread and posts its outcome (structured-cloned). */
function broadcast(m: M, hook: HookEntry): Promise<void> {
  return broadcasts.run(m, hook, (ok, value) => {
    try {
      channel.post({ type: 'stealwork:broadcast-done', id: hook.id, ok, value });
    } catch (e) {
      const d = describe(e);
      channel.post({ type: 'stealwork:broadcast-done', id: hook.id, ok: false, value: broadcastCloneError(hook.name, m.mid, ok, d.message) });
    }
  });
}

/** Runs the broadcasts made before this thread started, then those sent while it loaded; a
 *  start hook's error is reported as an error outside any task (nobody awaits it). */
async function startHooks(m: M, hooks: readonly HookEntry[]): Promise<void> {
  for (const hook of hooks) {
    void broadcasts.run(m, hook, (ok, value) => {
      if (!ok) {
        const d = describe(value);
        channel.post({ type: 'stealwork:uncaught', error: { ...d, message: `broadcast('${hook.name}') at the start of thread M${m.mid}: ${d.message}` } });
      }
    });
  }
  for (const hook of earlyBroadcasts.splice(0)) void broadcast(m, hook);
  await broadcasts.idle();
}

async function run(msg: InitMessage): Promise<void> {
  let m: M;
  // A synchronous start's buffers come on a port of their own, taken when a value names one
  // this thread lacks: the task that carries it was queued without waiting for this thread.
  const port = msg.sharePort;
  if (port !== undefined) (port as { unref?(): void }).unref?.(); // read on demand only: it never holds the thread
  if (port !== undefined) shared.receive = () => receiveNow(port, (x) => addShares((x as { shares: Array<{ id: number; buffer: SharedArrayBuffer }> }).shares));
  try {
    const core = attachCore(msg.backend, msg.memory, msg.module, true);
    const views = new Views(msg.memory);
    // What the thread writes on stdout and stderr leaves it at once, so the M may block and the
    // main thread knows what is on its way (DESIGN.md "Task output"). Before the task module
    // loads: what it prints at load counts too.
    postOutputAtOnce(msg.output);
    // What the task module sees as isWorkerThread / workerData (stealwork/piscina reads it
    // when the module imports it, so it is set before the import).
    const mark: WorkerMark = { workerData: 'workerData' in msg ? msg.workerData : nodeWorkerData() };
    (globalThis as Record<symbol, unknown>)[WORKER_MARK] = mark;
    let mod: Record<string, unknown>;
    try {
      mod = await loadTaskModule(msg.tasks);
    } catch (e) {
      const d = describe(e);
      channel.post({ type: 'stealwork:error', code: 'ERR_TASK_MODULE', error: { ...d, message: `cannot load the task module ${msg.tasks}: ${d.message}` } });
      return;
    }
    // An adapter's convention was registered when its worker entry loaded (threads/calling.ts).
    const calling = msg.calling.kind === 'context' ? CONTEXT : callingConvention(msg.calling.kind);
    if (calling === undefined) throw unknownCallingError(msg.calling.kind);
    const { names, fns } = withBuiltins(await calling.table(mod, msg.calling, msg.mid));
    // Errors thrown outside any task (by a callback a task left behind) are reported to the main
    // thread as the scheduler's unhandled error; the thread and its tasks go on (DESIGN.md
    // "Stranded callbacks"). The piscina entry keeps piscina's rule instead: such an error ends
    // the thread and fails the task running there.
    if (calling.reportStrayErrors) catchStrayErrors((e) => channel.post({ type: 'stealwork:uncaught', error: describe(e) }));
    m = new M(core, new GSlots(core, views, shared), {
      mid: msg.mid, names, fns, spinLimit: msg.spinLimit, yieldLimit: msg.yieldLimit, ncpu: msg.ncpu, maxTasks: msg.maxTasks, maxMemoryMB: msg.maxMemoryMB, debug: msg.debug,
      restart: msg.restart, epoch: msg.epoch, orphansPossible: msg.orphansPossible, idleTimeout: msg.idleTimeout, minLive: msg.minLive, asyncPerThread: msg.asyncPerThread,
      killClaimed: (token) => channel.post({ type: 'stealwork:halt', token }),
      unobserved: (block, task) => channel.post({ type: 'stealwork:unobserved', block, task }),
    });
    m.sharesSeen = seen;
    current = m;
    setParHost(m);
    // Before the thread takes any task (DESIGN.md "Broadcast").
    if ((msg.hooks !== undefined && msg.hooks.length !== 0) || earlyBroadcasts.length !== 0) await startHooks(m, msg.hooks ?? []);
    // A successor keeps the slot's place: on the idle list already, handed a P (PARK_P), or
    // holding one (restart.resumeP). A new thread takes a P that had none, if any, spinning
    // (DESIGN.md "Threads that come and go"), and looks for the work it was started for; else it
    // joins the idle list.
    if (msg.restart === undefined && core.mStart(msg.mid) >= 0) m.acquire();
    channel.post({ type: 'stealwork:ready', names });
  } catch (e) {
    channel.post({ type: 'stealwork:error', code: 'ERR_WORKER_START', error: describe(e) });
    return;
  }
  try {
    await m.loop();
  } catch (e) {
    // A failure of the M itself (not of a task): report it so the main thread fails fast.
    channel.post({ type: 'stealwork:error', code: 'ERR_WORKER_CRASHED', error: describe(e) });
    throw e;
  }
  channel.post({ type: 'stealwork:exit', idle: m.idledOut });
}
