// The pool's EventEmitter face to TypeScript. At run time the pool is node:events'
// EventEmitterAsyncResource (index.ts); its declarations must not need Node's types, since a
// consumer without @types/node compiles them too. So the emitter's methods are written out here,
// each with piscina's events typed and a catch-all after them, which is exactly the shape of
// @types/node's `NodeJS.EventEmitter` (the type `once()`, `on()` and `EventEmitter` variables
// take): with @types/node, `once(pool, 'drain')` and `const e: EventEmitter = pool` compile;
// without it, nothing refers to Node. test/package compiles consumers both ways.

/**
 * The pool's events and their listeners' arguments. `error` and `message` carry `any`, as
 * piscina's own types give them, so a listener written against piscina compiles here.
 */
export interface PiscinaEvents {
  /** The runs in flight fell below the capacity (maxThreads x concurrentTasksPerWorker) after
   *  reaching it: the pool takes runs without queueing again. */
  drain: [];
  /** The runs in flight reached the capacity: more runs queue, up to maxQueue. At most once
   *  per turn of the event loop. */
  needsDrain: [];
  /** `close()` is done: the tasks finished (or were failed) and the threads are stopped. */
  close: [];
  /** An error no run rejects with: the worker file failed to load (a StealworkError
   *  ERR_TASK_MODULE, when no run is waiting for the start), a thread threw outside any task,
   *  or `close()` waited longer than closeTimeout. */
  error: [error: any];
  /** A value a task posted with `parentPort.postMessage`, in each thread's order. */
  message: [message: any];
  /** A thread joined the pool: the start-up ones in a microtask after the constructor (so a
   *  listener added right after it hears them), a later one once it loaded the file; as piscina
   *  emits it. The worker is piscina's worker interface (`id` is the thread's threadId). */
  workerCreate: [worker: any];
  /** A thread left the pool (idle, crashed, terminated for an abort, or stopped by close or
   *  destroy), with the object its 'workerCreate' gave, `destroyed` now true. */
  workerDestroy: [worker: any];
}

/** A listener of one of the pool's events. */
export type PiscinaListener<E extends keyof PiscinaEvents> = (...args: PiscinaEvents[E]) => void;

/** A listener of any event, its arguments untyped (node:events' own type).
 *  @inline */
type AnyListener = (...args: any[]) => void;

/** node:events' EventEmitter methods, piscina's events typed first. */
export interface PoolEvents {
  /** The same as `on`. */
  addListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** The same as `on`, for any event name. */
  addListener(event: string | symbol, listener: AnyListener): this;
  /** Calls `listener` at each `event` from now on, after the listeners added before it; a
   *  listener added twice is called twice. */
  on<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** `on` for any event name, the listener's arguments untyped. */
  on(event: string | symbol, listener: AnyListener): this;
  /** Calls `listener` at the next `event` only. */
  once<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** `once` for any event name. */
  once(event: string | symbol, listener: AnyListener): this;
  /** `on`, with `listener` called before the listeners added earlier. */
  prependListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** `prependListener` for any event name. */
  prependListener(event: string | symbol, listener: AnyListener): this;
  /** `once`, with `listener` called before the listeners added earlier. */
  prependOnceListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** `prependOnceListener` for any event name. */
  prependOnceListener(event: string | symbol, listener: AnyListener): this;
  /** Removes `listener` from `event`: one entry, the one added last when it was added more
   *  than once. */
  off<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** `off` for any event name. */
  off(event: string | symbol, listener: AnyListener): this;
  /** The same as `off`. */
  removeListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  /** The same as `off`, for any event name. */
  removeListener(event: string | symbol, listener: AnyListener): this;
  /** Removes every listener of `event`, or of every event when it is left out. */
  removeAllListeners(event?: string | symbol): this;
  /** How many listeners one event may have before Node warns of a likely leak (default 10;
   *  0 or Infinity: no limit). */
  setMaxListeners(n: number): this;
  /** The limit `setMaxListeners` set. */
  getMaxListeners(): number;
  /** A copy of `event`'s listeners, `once` ones as they were given. */
  listeners(event: string | symbol): Function[];
  /** A copy of `event`'s listeners as stored: `once` ones wrapped (the wrapper's `listener` is
   *  the one given). */
  rawListeners(event: string | symbol): Function[];
  /** Calls `event`'s listeners now, in order, with `args`; true when it had any. The pool emits
   *  its own events: code outside it has no need to. */
  emit<E extends keyof PiscinaEvents>(event: E, ...args: PiscinaEvents[E]): boolean;
  /** `emit` for any event name. */
  emit(event: string | symbol, ...args: any[]): boolean;
  /** The number of `event`'s listeners (only those that are `listener`, when it is given). */
  listenerCount(event: string | symbol, listener?: Function): number;
  /** The names of the events that have listeners. */
  eventNames(): Array<string | symbol>;
}
