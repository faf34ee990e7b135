// Platform adapters: threads, messages, the number of CPUs and yielding to the event loop, for
// Node (worker_threads), Deno and browsers (module Workers). Nothing above this file knows
// which runtime it is on.

import type { ThreadOptions } from './thread-options.js';
import { platformMissingError } from '../base/errors.js';

type NodeWorkerThreads = typeof import('node:worker_threads');

interface NodeProcess {
  versions?: { node?: string };
  getBuiltinModule?: (id: string) => unknown;
  cpuUsage?: () => { user: number; system: number };
}

const g = globalThis as unknown as {
  process?: NodeProcess;
  Deno?: unknown;
  navigator?: { hardwareConcurrency?: number };
  setImmediate?: (cb: () => void) => unknown;
  Worker?: new (url: string | URL, opts?: { type?: string; name?: string }) => WebWorker;
  postMessage?: (m: unknown) => void;
  addEventListener?: (type: string, cb: (ev: { data: unknown }) => void) => void;
  crossOriginIsolated?: boolean;
  isSecureContext?: boolean;
  location?: { href: string; protocol: string };
  fetch?: (url: string, init: { method: string; cache: string }) => Promise<{ headers: { get(name: string): string | null } }>;
};

interface WebWorker {
  postMessage(m: unknown): void;
  terminate(): void;
  addEventListener(type: string, cb: (ev: { data?: unknown; message?: string; error?: unknown; preventDefault?: () => void }) => void): void;
}

/** True on Node (not on Deno's Node compatibility layer, which has real Workers). */
export const isNode = g.Deno === undefined && typeof g.process?.versions?.node === 'string';

/**
 * True where the threads are `node:worker_threads` Workers: on Node (and Bun), and on Deno,
 * whose web Workers cannot be unref'd (a Deno program with a live web Worker never exits), while
 * its `node:worker_threads` Workers can (DESIGN.md "What keeps the process alive"). Browsers use
 * module Workers.
 */
const nodeThreads = isNode || (g.Deno !== undefined && typeof g.process?.getBuiltinModule === 'function');

export function nodeModule<T>(id: string): T {
  const get = g.process?.getBuiltinModule;
  if (typeof get !== 'function') throw platformMissingError(`needs process.getBuiltinModule (Node >= 20.16, this is ${g.process?.versions?.node ?? 'unknown'}) to load ${id}`);
  return get(id) as T;
}

export function availableParallelism(): number {
  if (isNode) return nodeModule<typeof import('node:os')>('node:os').availableParallelism();
  const n = g.navigator?.hardwareConcurrency;
  return typeof n === 'number' && n > 0 ? n : 1;
}

/**
 * Where the platform cannot run the scheduler, a message saying why; otherwise null. On a page
 * (or worker) that is not cross-origin isolated, the message names the headers its response
 * lacks. Main thread.
 */
export async function platformProblem(): Promise<string | null> {
  if (typeof SharedArrayBuffer !== 'function') {
    return g.crossOriginIsolated === false
      ? `SharedArrayBuffer is unavailable: the page is not cross-origin isolated: ${await isolationAdvice()}`
      : 'SharedArrayBuffer is unavailable in this runtime';
  }
  if (typeof Atomics.waitAsync !== 'function') return 'Atomics.waitAsync is unavailable in this runtime';
  if (!isNode && typeof g.Worker !== 'function') return 'this runtime has no Worker';
  return null;
}

/**
 * platformProblem for a synchronous start (Engine.startSync): the same checks, and the platform
 * must compile the core and start threads in the caller's turn, which Node, Deno and Bun do
 * (their threads are node:worker_threads Workers); a browser's main thread refuses to compile a
 * module the core's size synchronously. Main thread.
 */
export function syncStartProblem(): string | null {
  if (!nodeThreads) return 'a synchronous start needs Node, Deno or Bun (a page compiles WebAssembly asynchronously): use Scheduler.start';
  if (typeof SharedArrayBuffer !== 'function') return 'SharedArrayBuffer is unavailable in this runtime';
  if (typeof Atomics.waitAsync !== 'function') return 'Atomics.waitAsync is unavailable in this runtime';
  return null;
}

/** The two response headers that make a document (or worker) cross-origin isolated. */
const ISOLATION_HEADERS = [
  { name: 'Cross-Origin-Opener-Policy', want: 'same-origin', accepts: ['same-origin'] },
  { name: 'Cross-Origin-Embedder-Policy', want: 'require-corp', accepts: ['require-corp', 'credentialless'] },
];

/**
 * Why a page is not isolated, from its own response headers: a same-origin HEAD request for
 * the page's URL (on the failure path only, once). Names every missing or wrong header; when
 * both are right, points at the secure-context rule instead.
 */
async function isolationAdvice(): Promise<string> {
  const both = ISOLATION_HEADERS.map((h) => `"${h.name}: ${h.want}"`).join(' and ');
  const fallback = `Serve it with the headers ${both}`;
  const loc = g.location;
  if (g.fetch === undefined || loc === undefined || !/^https?:$/.test(loc.protocol)) return fallback;
  let got: Array<string | null>;
  try {
    const res = await g.fetch(loc.href, { method: 'HEAD', cache: 'no-store' });
    got = ISOLATION_HEADERS.map((h) => res.headers.get(h.name));
  } catch {
    return fallback;
  }
  const missing: string[] = [];
  const wrong: string[] = [];
  ISOLATION_HEADERS.forEach((h, i) => {
    const value = got[i];
    if (value === null) missing.push(`"${h.name}: ${h.want}"`);
    else if (!h.accepts.includes(value.split(';')[0].trim().toLowerCase())) wrong.push(`"${h.name}" is "${value}", not "${h.want}"`);
  });
  const faults: string[] = [];
  if (missing.length !== 0) faults.push(`its response lacks the header${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}`);
  faults.push(...wrong);
  if (faults.length !== 0) return `${faults.join('; ')} (isolation needs both ${both})`;
  if (g.isSecureContext === false) return 'both headers are present, but isolation also needs a secure context: serve the page over HTTPS or from localhost';
  return `both headers are present on ${loc.href}; every frame around the page must be isolated too`;
}

/** The main thread's handle on one worker thread. */
/** The main thread's handle on a worker: it posts `Out` messages and receives `In` ones (the
 *  message types are messages.ts's; the platform only carries them). */
export interface ThreadHandle<Out = unknown, In = unknown> {
  /** Posts msg; `transfer` moves its MessagePorts (node:worker_threads Workers only). */
  post(msg: Out, transfer?: readonly unknown[]): void;
  onMessage(cb: (msg: In) => void): void;
  /** A failure of the thread itself (not of a task): an uncaught error or an exit. */
  onExit(cb: (reason: string, error?: unknown) => void): void;
  terminate(): Promise<void>;
  /** Lets the process exit while this thread lives (Node's `worker.unref()`); a no-op where a
   *  thread cannot keep a process alive (browsers). */
  unref(): void;
  /** Keeps the process alive while this thread lives again (Node's `worker.ref()`). */
  ref(): void;
  /** Calls cb for each chunk of the thread's stdout and stderr that reaches this thread (Node's
   *  and Bun's streams carry them over a port, host/stdio.ts); false, never calling it, where the
   *  thread's output does not pass through here (Deno writes it itself; browsers). */
  onOutput(cb: () => void): boolean;
  /** Calls cb once the thread has ended, however (after the messages it posted were read). */
  onGone(cb: () => void): void;
  /** The platform's own Worker object (Node's worker_threads.Worker), for pools that list it. */
  readonly worker: unknown;
}

/** An absolute file path as a file: URL (Node's pathToFileURL; elsewhere a plain file: URL). */
export function filePathUrl(path: string): string {
  if (isNode) return nodeModule<typeof import('node:url')>('node:url').pathToFileURL(path).href;
  return new URL(`file://${path.startsWith('/') ? '' : '/'}${path.replace(/\\/g, '/')}`).href;
}

/**
 * The Node flags a worker must not inherit: those that describe the main program's own entry
 * (`--input-type` makes a worker fail with ERR_INPUT_TYPE_NOT_ALLOWED; `-e`/`-p` carry the
 * main script), each with its value. Null when there is nothing to drop (the default execArgv).
 */
export function workerExecArgv(argv: readonly string[]): string[] | null {
  const withValue = new Set(['--input-type', '-e', '--eval', '-p', '--print']);
  const out: string[] = [];
  let dropped = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const flag = a.startsWith('--') ? a.split('=')[0] : a;
    if (withValue.has(flag)) {
      dropped = true;
      if (!a.includes('=')) i++; // its value is the next word
      continue;
    }
    out.push(a);
  }
  return dropped ? out : null;
}

/** Worker options only Node has (options.ts ThreadOptions without workerData). */
const NODE_ONLY = ['resourceLimits', 'env', 'argv', 'execArgv'] as const;

/** Where `opts` asks for what this platform's threads cannot have, a message saying so. */
export function threadOptionsProblem(opts: ThreadOptions): string | null {
  if (isNode) return null;
  const asked = NODE_ONLY.filter((k) => opts[k] !== undefined);
  return asked.length === 0 ? null : `options.${asked.join(', options.')}: Node only (worker_threads); this runtime's Workers have no such option`;
}

/**
 * Starts a module worker running `url`. On Node, `opts` become the Worker's options (so the
 * thread's worker_threads.workerData is opts.workerData); elsewhere workerData travels in the
 * init message and the Node-only options were refused by threadOptionsProblem. Main thread only.
 */
export function startThread<Out, In>(url: URL, name: string, opts: ThreadOptions = {}): ThreadHandle<Out, In> {
  if (nodeThreads) {
    const { Worker } = nodeModule<NodeWorkerThreads>('node:worker_threads');
    // Without an execArgv of the caller's, the worker inherits the main thread's, less its entry
    // flags. On Deno the options are the scheduler's own: workerData travels in the init message
    // and the Node-only ones were refused (threadOptionsProblem).
    const execArgv = isNode && opts.execArgv === undefined ? workerExecArgv((g.process as { execArgv?: string[] }).execArgv ?? []) : null;
    const wopts = isNode ? { name, ...opts, ...(execArgv === null ? {} : { execArgv }) } : { name };
    const w = new Worker(url, wopts as ConstructorParameters<NodeWorkerThreads['Worker']>[1]);
    let exited = false;
    return {
      worker: w,
      post: (m, transfer) => w.postMessage(m, transfer as never),
      onMessage: (cb) => { w.on('message', cb); },
      onExit: (cb) => {
        w.on('error', (e) => { if (!exited) cb(`uncaught ${e instanceof Error ? e.name + ': ' + e.message : String(e)}`, e); });
        w.on('exit', (code) => { if (!exited) cb(`exited with code ${code}`); });
      },
      terminate: async () => { exited = true; await w.terminate(); },
      unref: () => w.unref(),
      ref: () => w.ref(),
      onOutput: (cb) => {
        if (!isNode) return false; // Deno's worker writes its output itself
        const out = w as unknown as { stdout?: { on(e: 'data', f: () => void): void } | null; stderr?: { on(e: 'data', f: () => void): void } | null };
        if (out.stdout == null || out.stderr == null) return false;
        out.stdout.on('data', cb);
        out.stderr.on('data', cb);
        return true;
      },
      onGone: (cb) => { w.once('exit', () => cb()); },
    };
  }
  const W = g.Worker!;
  const w = new W(url, { type: 'module', name });
  let done = false;
  let exitCb: ((reason: string, error?: unknown) => void) | null = null;
  w.addEventListener('error', (ev) => {
    ev.preventDefault?.();
    if (!done && exitCb) exitCb(`uncaught ${ev.message ?? String(ev.error)}`, ev.error);
  });
  return {
    worker: w,
    post: (m) => w.postMessage(m),
    onMessage: (cb) => w.addEventListener('message', (ev) => cb(ev.data as In)), // what the worker posted: an In
    onExit: (cb) => { exitCb = cb; },
    terminate: async () => { done = true; w.terminate(); },
    unref: () => undefined, // a page's Workers end with the page
    ref: () => undefined,
    onOutput: () => false,
    onGone: () => undefined,
  };
}

/** A channel whose messages the receiving thread can take synchronously (Engine.startSync's
 *  shared buffers: DESIGN.md "A synchronous start"); node:worker_threads' MessageChannel, on
 *  Node, Deno and Bun. Main thread. */
export function syncChannel(): { send(msg: unknown): void; port: unknown; close(): void } {
  const { MessageChannel } = nodeModule<typeof import('node:worker_threads')>('node:worker_threads');
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  return { send: (m) => port1.postMessage(m), port: port2, close: () => port1.close() };
}

/** Takes every message waiting on a syncChannel's port, in order, without a turn of the event
 *  loop (node:worker_threads' receiveMessageOnPort). Worker side. */
export function receiveNow(port: unknown, each: (msg: unknown) => void): void {
  const { receiveMessageOnPort } = nodeModule<typeof import('node:worker_threads')>('node:worker_threads');
  for (;;) {
    const r = receiveMessageOnPort(port as import('node:worker_threads').MessagePort);
    if (r === undefined) return;
    each(r.message);
  }
}

/** What the main thread passed as the Worker's workerData (Node); undefined elsewhere. */
export function nodeWorkerData(): unknown {
  return isNode ? nodeModule<NodeWorkerThreads>('node:worker_threads').workerData : undefined;
}

/** The worker side of the channel to the main thread: it posts `Out` messages and receives `In`
 *  ones (messages.ts). Worker threads only. */
export function parentChannel<Out, In>(): { post(msg: Out): void; onMessage(cb: (msg: In) => void): void } {
  if (nodeThreads) {
    const { parentPort } = nodeModule<NodeWorkerThreads>('node:worker_threads');
    if (!parentPort) throw platformMissingError('the worker entry must run in a worker thread (worker_threads.parentPort is null)');
    return { post: (m) => parentPort.postMessage(m), onMessage: (cb) => { parentPort.on('message', cb); } };
  }
  return {
    post: (m) => g.postMessage!(m),
    onMessage: (cb) => g.addEventListener!('message', (ev) => cb(ev.data as In)), // what the main thread posted: an In
  };
}

let channel: MessageChannel | null = null;
const macroQueue: Array<() => void> = [];

/** Resolves after one turn of the event loop, so timers, I/O callbacks and messages run. */
export function macrotask(): Promise<void> {
  return new Promise<void>((resolve) => {
    if (g.setImmediate) { g.setImmediate(resolve); return; }
    if (channel === null) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => { const f = macroQueue.shift(); if (f) f(); };
    }
    macroQueue.push(resolve);
    channel.port2.postMessage(0);
  });
}

/** Lets the process exit while timer t is pending (Node's and Bun's `timer.unref()`, Deno's
 *  `Deno.unrefTimer(id)`); a no-op in browsers. Returns t. Any thread. */
export function unrefTimer<T>(t: T): T {
  const deno = g.Deno as { unrefTimer?: (id: number) => void } | undefined;
  if (typeof t === 'number') deno?.unrefTimer?.(t);
  else (t as { unref?: () => void }).unref?.();
  return t;
}

/**
 * Tells the user of a fault that is nobody's error to catch (the scheduler goes on, with less):
 * Node's and Bun's process warning (on stderr unless a 'warning' listener takes it), else
 * console.warn. Main thread.
 */
export function warn(message: string, code: string): void {
  const p = g.process as { emitWarning?: (m: string, o: { code: string }) => void } | undefined;
  if (typeof p?.emitWarning === 'function') p.emitWarning(message, { code });
  else console.warn(`${code}: ${message}`);
}

/** A monotonic clock in milliseconds. */
export const now: () => number = () => performance.now();

/**
 * The CPU time the whole process has used (ms, user + system, every thread), or NaN where no
 * such count exists (browsers). `process.cpuUsage()` counts the process on Node, Deno and Bun,
 * from any thread (test/platform-cpu.test.ts checks that a worker's reading includes another
 * thread's work). Any thread.
 */
export function processCPU(): number {
  const u = g.process?.cpuUsage?.();
  return u === undefined ? NaN : (u.user + u.system) / 1000;
}

/** Resource kinds a worker always holds (its port to the main thread), not callbacks to run. */
const IDLE_RESOURCES = new Set(['MessagePort', 'CloseReq']);
let liveTimers = 0;

/**
 * True when this thread has timers, I/O or other callbacks pending that only a turn of its event
 * loop can run (Node: `process.getActiveResourcesInfo()`; elsewhere: the timers counted by
 * `trackTimers`). An M with such callbacks must not block its event loop in Atomics.wait
 * (DESIGN.md "Stranded callbacks"). Worker threads.
 */
export function pendingCallbacks(): boolean {
  const info = (g.process as { getActiveResourcesInfo?: () => string[] } | undefined)?.getActiveResourcesInfo;
  if (isNode && typeof info === 'function') {
    for (const r of info.call(g.process)) if (!IDLE_RESOURCES.has(r)) return true;
    return false;
  }
  return liveTimers !== 0;
}

/**
 * Where the platform cannot list its pending callbacks (Deno, browsers), counts the timers this
 * thread's code sets: wraps setTimeout and setInterval (and their clears). Call once, before the
 * task module loads. A no-op on Node. Worker threads.
 */
export function trackTimers(): void {
  if (isNode) return;
  const t = globalThis as unknown as Record<string, (...a: unknown[]) => unknown>;
  const setT = t.setTimeout, clearT = t.clearTimeout, setI = t.setInterval, clearI = t.clearInterval;
  const live = new Set<unknown>();
  t.setTimeout = (fn: unknown, ms?: unknown, ...rest: unknown[]) => {
    const id = setT((...a: unknown[]) => {
      if (live.delete(id)) liveTimers--;
      if (typeof fn === 'function') (fn as (...x: unknown[]) => void)(...a);
    }, ms, ...rest);
    live.add(id);
    liveTimers++;
    return id;
  };
  t.clearTimeout = (id: unknown) => { if (live.delete(id)) liveTimers--; clearT(id); };
  t.setInterval = (fn: unknown, ms?: unknown, ...rest: unknown[]) => {
    const id = setI(fn, ms, ...rest);
    live.add(id);
    liveTimers++;
    return id;
  };
  t.clearInterval = (id: unknown) => { if (live.delete(id)) liveTimers--; clearI(id); };
}

/**
 * Routes errors thrown outside any task (an uncaught exception or an unhandled rejection from a
 * callback a task left behind) to `report`, instead of ending the thread. Worker threads.
 */
export function catchStrayErrors(report: (e: unknown) => void): void {
  if (isNode) {
    const p = g.process as unknown as { on(ev: string, f: (e: unknown) => void): void };
    p.on('uncaughtException', report);
    p.on('unhandledRejection', report);
    return;
  }
  const add = (globalThis as unknown as { addEventListener?: (t: string, f: (ev: { error?: unknown; message?: string; reason?: unknown; preventDefault(): void }) => void) => void }).addEventListener;
  if (typeof add !== 'function') return;
  add.call(globalThis, 'error', (ev) => { ev.preventDefault(); report(ev.error ?? ev.message); });
  add.call(globalThis, 'unhandledrejection', (ev) => { ev.preventDefault(); report(ev.reason); });
}
