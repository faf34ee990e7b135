// The backend switch: one face (`Core`) over either the Wasm core or its TypeScript twin.
// Re-exports only, plus the one function that picks a backend.

import type { Backend, Core } from './core.js';
import { instantiateWasmCore, compileCoreModule, compileCoreModuleSync, createMemory } from './wasm.js';
import { createTsCore } from './ts/index.js';

export type { Backend, Core } from './core.js';
export { Stop } from './core.js';
export { compileCoreModule, compileCoreModuleSync, createMemory } from './wasm.js';
export { createTsCore } from './ts/index.js';
/** Where the slots of an M's trace ring begin: part of the ring's layout (TR_*), which the
 *  runtime's writer and export share with both cores (the Wasm core inlines the same rule). */
export { traceSlot0 } from './ts/trace.js';

/**
 * Attaches this thread to the core over `memory`. `module` is the compiled Wasm core (needed
 * for the 'wasm' backend only; pass the same module to every thread). `canBlock` is false on a
 * thread that must never `Atomics.wait` (a main thread). Any thread, once per thread.
 */
export function attachCore(backend: Backend, memory: WebAssembly.Memory,
  module: WebAssembly.Module | null, canBlock: boolean): Core {
  if (backend === 'wasm') {
    if (module === null) throw new TypeError("attachCore: the 'wasm' backend needs the compiled core module");
    return instantiateWasmCore(module, memory, canBlock);
  }
  return createTsCore(memory, canBlock);
}

/** loadCoreModule, synchronously (Engine.startSync). Any thread where the platform compiles
 *  synchronously. */
export function loadCoreModuleSync(backend: Backend, debug = false): WebAssembly.Module | null {
  return backend === 'wasm' ? compileCoreModuleSync(debug) : null;
}

/** Compiles the core module when the backend needs one. Any thread. */
export async function loadCoreModule(backend: Backend, debug = false): Promise<WebAssembly.Module | null> {
  return backend === 'wasm' ? compileCoreModule(debug) : null;
}

