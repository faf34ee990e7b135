// Why a value cannot cross threads: the TypeError the caller sees, and how the encoder builds it.
//
// Inside the encoder a bad value throws a CodecFailure; each container it passes on the way out
// adds its path segment; the entry point turns it into the one TypeError the caller sees:
//
//   <label> <path inside the value> <reason>
//   spawn('fib'): argument 2 .opts.cb is a function; only numbers, ... can cross threads
//
// Nothing here runs on the success path.

/** What a TypeError for an unsupported value lists. */
export const SUPPORTED = 'numbers, booleans, null, undefined, strings, bigints, arrays, ' +
  'plain objects, Dates, RegExps, Maps, Sets, Errors, boxed primitives, typed arrays, DataViews, ' +
  'ArrayBuffers and SharedArrayBuffers';

/** A value the encoder refuses, on its way out to the entry point (never seen outside the
 *  codec). Encoder only. */
export class CodecFailure {
  /** Path segments, innermost first. */
  readonly segments: string[] = [];
  constructor(
    /** The sentence after the path: "is a function; only ...". */
    readonly reason: string,
    readonly cause: unknown,
  ) {}
}

/** The failure for a value of a kind that cannot cross; `what` is "is a function" etc. */
export function unsupported(what: string): CodecFailure {
  return new CodecFailure(`${what}; only ${SUPPORTED} can cross threads`, undefined);
}

/** "Name: message" of a foreign exception, for a reason; never throws. */
export function describeError(e: unknown): string {
  try {
    if (e instanceof Error) return `${e.name}: ${e.message}`;
    return String(e);
  } catch {
    return 'an unprintable value';
  }
}

/** The failure a foreign exception (a throwing getter or proxy trap) becomes. */
export function readFailure(e: unknown): CodecFailure {
  return new CodecFailure(`could not be read (${describeError(e)})`, e);
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** The path segment of an object key: `.name`, or `["a b"]` when not an identifier. */
export function propSegment(key: string): string {
  return IDENT.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function article(name: string): string {
  return /^[AEIOU]/i.test(name) ? `an ${name}` : `a ${name}`;
}

/** "is a WeakMap", "is an instance of class Point", for an object the codec refuses. */
export function describeObject(o: object, proto: object | null): string {
  let name = '';
  try {
    const ctor = (proto as { constructor?: unknown } | null)?.constructor;
    if (typeof ctor === 'function' && typeof ctor.name === 'string') {
      name = ctor.name;
      if ((globalThis as Record<string, unknown>)[name] !== ctor) return `is an instance of class ${name || '(anonymous)'}`;
    }
  } catch {
    // a throwing `constructor` getter: fall through to the generic wording
  }
  if (name !== '') return `is ${article(name)}`;
  return ArrayBuffer.isView(o) ? 'is an ArrayBuffer view of an unknown type' : 'is an object with a non-plain prototype';
}

/** The longest path a message shows in full (characters). */
const PATH_SHOWN = 160;

/** Builds the caller's TypeError: label, path inside the value, reason (a path longer than
 *  PATH_SHOWN after the reason, shortened). */
export function toTypeError(e: unknown, label: string): TypeError {
  const failure = e instanceof CodecFailure ? e : readFailure(e);
  const segs = failure.segments;
  let path = '';
  for (let i = segs.length - 1; i >= 0; i--) path += segs[i];
  const reason = failure.reason;
  // A long path (a deeply nested value) goes after the reason, shortened to its two ends.
  const message = path.length <= PATH_SHOWN
    ? `${label === '' ? 'value' : label}${path === '' ? '' : ' ' + path} ${reason}`
    : `${label === '' ? 'value' : label} ${reason}; at ${path.slice(0, PATH_SHOWN / 2)} ... ${path.slice(-PATH_SHOWN / 2)} (${segs.length} levels)`;
  return failure.cause === undefined ? new TypeError(message) : new TypeError(message, { cause: failure.cause });
}
