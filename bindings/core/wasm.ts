// The Wasm backend of the core: the module compiled from assembly/ (embedded as base64 by
// scripts/embed-wasm.mjs), one instance per thread over the one shared memory.
//
// Instantiating is synchronous (`new WebAssembly.Instance`), so a worker attaches in the same
// turn it receives the module and the memory. Each instance's exports are the `Core` as they
// are: one JS-to-Wasm call per operation, no wrapper on the hot path.

import type { Core } from './core.js';
import { DEBUG_WASM_BASE64, RELEASE_WASM_BASE64 } from './wasm-binary.generated.js';

/** The module's memory import: at least this many pages, at most WASM_MAX_PAGES. */
export const WASM_MIN_PAGES = 2;
/** The largest memory the module accepts (4 GiB of 64 KiB pages). */
export const WASM_MAX_PAGES = 65536;

const modules: { release?: Promise<WebAssembly.Module>; debug?: Promise<WebAssembly.Module> } = {};
/** The same modules once compiled synchronously (compileCoreModuleSync). */
const compiled: { release?: WebAssembly.Module; debug?: WebAssembly.Module } = {};

/** Decodes base64 to bytes with `atob`, which every runtime the package supports has (Node
 *  >= 16, Deno, Bun, browsers). A hand-written decoder was no faster for the one call per
 *  flavour this makes (a fresh process's first decode of the release core: median 16.1 ms by
 *  hand, 14.8 ms with atob, five processes each, on a loaded 2-core machine). */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * The compiled core, release (-O3, no assertions) or debug (assertions, names); compiled once
 * per flavour and shared by every caller. A WebAssembly.Module can be posted to workers.
 */
export function compileCoreModule(debug = false): Promise<WebAssembly.Module> {
  const key = debug ? 'debug' : 'release';
  let module = modules[key];
  if (module === undefined) {
    avoidLiftoffAtomicsBug();
    module = WebAssembly.compile(decodeBase64(debug ? DEBUG_WASM_BASE64 : RELEASE_WASM_BASE64));
    modules[key] = module;
  }
  return module;
}

/**
 * compileCoreModule, synchronously (`new WebAssembly.Module`): for a start that must finish in
 * the caller's turn (Node, Deno, Bun; a browser's main thread refuses to compile a module this
 * size synchronously). Compiled once per flavour; the asynchronous form then shares it.
 */
export function compileCoreModuleSync(debug = false): WebAssembly.Module {
  const key = debug ? 'debug' : 'release';
  let module = compiled[key];
  if (module === undefined) {
    avoidLiftoffAtomicsBug();
    module = new WebAssembly.Module(decodeBase64(debug ? DEBUG_WASM_BASE64 : RELEASE_WASM_BASE64));
    compiled[key] = module;
    modules[key] ??= Promise.resolve(module);
  }
  return module;
}

/**
 * V8 11.x (Node 20) compiles Wasm first with its baseline compiler, Liftoff, which reads a
 * function's highest-numbered local as 0 after a memory.atomic.wait32 with constant operands
 * (test/engines/defects/liftoff-wait.mjs; Node 22, 24, Deno and Bun are not affected). In the
 * core that local was mPut's M id after a contended lock wait, so M0 landed on the idle-M list
 * (test/liftoff.test.ts). On such a V8 the core is compiled by the optimizing tier only. This
 * sets a process-wide V8 flag: it affects Wasm compiled after it in this process (which then
 * starts a little slower), nothing else. DESIGN.md "Platform defects we work around".
 */
function avoidLiftoffAtomicsBug(): void {
  const proc = (globalThis as { process?: { versions?: { v8?: string; node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
  const v8 = proc?.versions?.v8;
  if (typeof v8 !== 'string' || typeof proc?.versions?.node !== 'string' || Number(v8.split('.')[0]) >= 12) return;
  const mod = proc.getBuiltinModule?.('node:v8') as { setFlagsFromString(f: string): void } | undefined;
  mod?.setFlagsFromString('--no-liftoff');
}

/**
 * A shared memory for the core: `initialPages` (at least WASM_MIN_PAGES) growing to
 * `maximumPages` (at most WASM_MAX_PAGES). Its buffer is a SharedArrayBuffer.
 */
export function createMemory(initialPages: number, maximumPages: number): WebAssembly.Memory {
  if (!Number.isInteger(initialPages) || initialPages < WASM_MIN_PAGES) {
    throw new RangeError(`initialPages must be an integer >= ${WASM_MIN_PAGES}, got ${initialPages}`);
  }
  if (!Number.isInteger(maximumPages) || maximumPages < initialPages || maximumPages > WASM_MAX_PAGES) {
    throw new RangeError(`maximumPages must be an integer in [initialPages, ${WASM_MAX_PAGES}], got ${maximumPages}`);
  }
  return new WebAssembly.Memory({ initial: initialPages, maximum: maximumPages, shared: true });
}

/**
 * Reads an AssemblyScript string (UTF-16LE, its byte length in the u32 before it) from the
 * memory; null for the null pointer. Decodes by hand: TextDecoder refuses shared buffers.
 */
function readString(memory: WebAssembly.Memory, ptr: number): string | null {
  if (ptr === 0) return null;
  const buffer = memory.buffer;
  if (ptr < 4 || ptr > buffer.byteLength) return `<string at ${ptr}>`;
  const bytes = new Uint32Array(buffer, (ptr - 4) & ~3, 1)[0];
  const units = new Uint16Array(buffer, ptr, Math.min(bytes, buffer.byteLength - ptr) >>> 1);
  let text = '';
  for (let i = 0; i < units.length; i += 4096) {
    text += String.fromCharCode(...units.subarray(i, i + 4096));
  }
  return text;
}

/**
 * Attaches one thread to the core: instantiates `module` on `memory` and sets the instance's
 * canBlock (may this thread Atomics.wait; false on a browser or Node main thread). A core abort
 * throws `Error('stealwork core abort: <message> at <file>:<line>:<column>')`.
 * Any thread, once per thread and memory.
 */
export function instantiateWasmCore(module: WebAssembly.Module, memory: WebAssembly.Memory,
  canBlock: boolean): Core {
  const abort = (message: number, file: number, line: number, column: number): never => {
    const text = readString(memory, message) ?? 'abort';
    const where = readString(memory, file);
    throw new Error(`stealwork core abort: ${text}` + (where === null ? '' : ` at ${where}:${line}:${column}`));
  };
  const instance = new WebAssembly.Instance(module, { env: { memory, abort } });
  const core = instance.exports as unknown as Core;
  core.setCanBlock(canBlock ? 1 : 0);
  return core;
}
