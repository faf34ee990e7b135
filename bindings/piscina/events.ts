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
 * `workerCreate` and `workerDestroy` are never emitted (docs/piscina.md).
 */
export interface PiscinaEvents {
  drain: [];
  needsDrain: [];
  close: [];
  error: [error: any];
  message: [message: any];
  workerCreate: [worker: any];
  workerDestroy: [worker: any];
}

/** A listener of one of the pool's events. */
export type PiscinaListener<E extends keyof PiscinaEvents> = (...args: PiscinaEvents[E]) => void;

type AnyListener = (...args: any[]) => void;

/** node:events' EventEmitter methods, piscina's events typed first. */
export interface PoolEvents {
  addListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  addListener(event: string | symbol, listener: AnyListener): this;
  on<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  on(event: string | symbol, listener: AnyListener): this;
  once<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  once(event: string | symbol, listener: AnyListener): this;
  prependListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  prependListener(event: string | symbol, listener: AnyListener): this;
  prependOnceListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  prependOnceListener(event: string | symbol, listener: AnyListener): this;
  off<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  off(event: string | symbol, listener: AnyListener): this;
  removeListener<E extends keyof PiscinaEvents>(event: E, listener: PiscinaListener<E>): this;
  removeListener(event: string | symbol, listener: AnyListener): this;
  removeAllListeners(event?: string | symbol): this;
  setMaxListeners(n: number): this;
  getMaxListeners(): number;
  listeners(event: string | symbol): Function[];
  rawListeners(event: string | symbol): Function[];
  emit<E extends keyof PiscinaEvents>(event: E, ...args: PiscinaEvents[E]): boolean;
  emit(event: string | symbol, ...args: any[]): boolean;
  listenerCount(event: string | symbol, listener?: Function): number;
  eventNames(): Array<string | symbol>;
}
