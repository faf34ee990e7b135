// Piscina.move and the transferable protocol: piscina's global symbols (Symbol.for, so a value
// marked by piscina's own `move` is recognised too), and the unwrapping both sides do.

/** `Symbol.for('Piscina.transferable')`: the key of what a {@link Transferable} moves (an
 *  ArrayBuffer). piscina's `transferableSymbol`. */
export const kTransferable: unique symbol = Symbol.for('Piscina.transferable') as never;
/** `Symbol.for('Piscina.valueOf')`: the key of the value a {@link Transferable} stands for,
 *  which is what the task receives. piscina's `valueSymbol`. */
export const kValue: unique symbol = Symbol.for('Piscina.valueOf') as never;
/** `Symbol.for('Piscina.queueOptions')`: piscina's `queueOptionsSymbol`, the key of a task's
 *  options for a custom task queue. Exported for code that names it; nothing reads it here. */
export const kQueueOptions: unique symbol = Symbol.for('Piscina.queueOptions') as never;
/** piscina marks moved values with a local symbol of this description; ours has the same, so
 *  either mark is recognised by its description. */
const MOVABLE = 'Piscina.kMovable';
const kMovable = Symbol(MOVABLE);

/** A value that names what to transfer ([kTransferable]) and what to send ([kValue]). */
export interface Transferable {
  /** What is moved: an ArrayBuffer, copied into shared memory and then detached here. */
  readonly [kTransferable]: object;
  /** What the task receives in place of this wrapper: the value itself, or the view over the
   *  moved buffer. */
  readonly [kValue]: object;
}

class DirectlyTransferable implements Transferable {
  readonly #value: object;
  constructor(value: object) { this.#value = value; }
  get [kTransferable](): object { return this.#value; }
  get [kValue](): object { return this.#value; }
}

class ArrayBufferViewTransferable implements Transferable {
  readonly #view: ArrayBufferView;
  constructor(view: ArrayBufferView) { this.#view = view; }
  get [kTransferable](): object { return this.#view.buffer; }
  get [kValue](): object { return this.#view; }
}

export function isTransferable(v: unknown): v is Transferable {
  return v != null && typeof v === 'object' && kTransferable in v && kValue in v;
}

/** True for what a `move` (ours or piscina's) returned. */
export function isMovable(v: unknown): v is Transferable {
  if (!isTransferable(v)) return false;
  if ((v as unknown as Record<symbol, unknown>)[kMovable] === true) return true;
  for (const s of Object.getOwnPropertySymbols(v)) {
    if (s.description === MOVABLE && (v as unknown as Record<symbol, unknown>)[s] === true) return true;
  }
  return false;
}

/**
 * Piscina.move: marks a value to be moved rather than copied. An ArrayBuffer, or a view's
 * buffer, is detached on the sending side after its bytes were copied into shared memory.
 */
export function move<T>(val: T): T {
  let v: unknown = val;
  if (v != null && typeof v === 'object') {
    if (!isTransferable(v)) v = ArrayBuffer.isView(v) ? new ArrayBufferViewTransferable(v) : new DirectlyTransferable(v);
    Object.defineProperty(v, kMovable, { enumerable: false, configurable: true, writable: true, value: true });
  }
  return v as T;
}

/** The value a moved result stands for; any other value as it is. Worker side. */
export function unmove(r: unknown): unknown {
  return r !== null && typeof r === 'object' && isMovable(r) ? r[kValue] : r;
}
