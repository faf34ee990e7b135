// A fresh memory with an initialised core, for either backend, plus small protocol helpers the
// test files share. Tests reach the core only through the `Core` face (bindings/core/core.ts) and
// read the bytes through `Mem`; they never call into a backend's internals.

import { attachCore, loadCoreModule, createMemory } from '../../bindings/core/index.js';
import type { Backend, Core } from '../../bindings/core/index.js';
import * as L from '../../assembly/shared/layout.js';
import { Mem } from './mem.js';

export const BACKENDS: readonly Backend[] = ['wasm', 'js'];

export interface CoreOptions {
  nprocs: number;
  maxMs: number;
  gcapInit: number;
  gmax: number;
  flags: number;
  stealThreshold: number;
  seed: number;
  initialPages: number;
  maximumPages: number;
  canBlock: boolean;
}

export const DEFAULTS: CoreOptions = {
  nprocs: 4,
  maxMs: 8,
  gcapInit: L.G_CHUNK,
  gmax: 8 * L.G_CHUNK,
  flags: 0,
  stealThreshold: 1,
  seed: 0x5eed,
  initialPages: 8,
  maximumPages: 512,
  canBlock: false,
};

export interface Harness {
  backend: Backend;
  core: Core;
  memory: WebAssembly.Memory;
  mem: Mem;
  opts: CoreOptions;
  /** Ms put on the idle list by startMs (the runtime does this once at start-up). */
  msStarted: boolean;
}

const modules = new Map<Backend, Promise<WebAssembly.Module | null>>();

/** The compiled core for a backend, compiled once per test process. */
export function coreModule(backend: Backend): Promise<WebAssembly.Module | null> {
  let m = modules.get(backend);
  if (m === undefined) {
    m = loadCoreModule(backend);
    modules.set(backend, m);
  }
  return m;
}

/** Fresh memory, core attached (this thread may not block by default), `init` done. */
export async function freshCore(backend: Backend, options: Partial<CoreOptions> = {}): Promise<Harness> {
  return freshCoreWith(backend, await coreModule(backend), options);
}

/** freshCore with the module already compiled (synchronous, for property tests). */
export function freshCoreWith(backend: Backend, module: WebAssembly.Module | null,
  options: Partial<CoreOptions> = {}): Harness {
  const opts: CoreOptions = { ...DEFAULTS, ...options };
  const memory = createMemory(opts.initialPages, opts.maximumPages);
  const core = attachCore(backend, memory, module, opts.canBlock);
  core.init(opts.nprocs, opts.maxMs, opts.gcapInit, opts.gmax, opts.flags, opts.stealThreshold, opts.seed);
  return { backend, core, memory, mem: new Mem(memory), opts, msStarted: false };
}

/** A second core on the same memory, as another thread would attach (no init). */
export async function attachAgain(h: Harness): Promise<Core> {
  return attachCore(h.backend, h.memory, await coreModule(h.backend), h.opts.canBlock);
}

/** Takes n Gs off the free lists (global list when p < 0). */
export function takeGs(h: Harness, n: number, p = -1): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const g = h.core.gfGet(p);
    if (g === 0) throw new Error(`takeGs: gfGet(${p}) returned 0 after ${i} of ${n}`);
    out.push(g);
  }
  return out;
}

/** G_DEAD -> G_RUNNABLE for each g (what `ready` does before queueing). */
export function makeRunnable(h: Harness, gs: number[]): number[] {
  for (const g of gs) h.core.gSetStatus(g, L.G_DEAD, L.G_RUNNABLE);
  return gs;
}

/** Writes G_SCHEDLINK so gs form one chain (the caller's part of globrunqPutBatch). */
export function linkChain(h: Harness, gs: number[]): void {
  for (let i = 0; i < gs.length; i++) h.mem.setG(gs[i], L.G_SCHEDLINK, i + 1 < gs.length ? gs[i + 1] : 0);
}

/** Puts M1..maxMs-1 on the idle list, as the runtime does at start-up. */
export function startMs(h: Harness): void {
  if (h.msStarted) return;
  for (let m = 1; m < h.opts.maxMs; m++) h.core.mPut(m);
  h.msStarted = true;
}

/** Ms that wakep (or a Retry) handed a P and that have not acquired it yet. */
export function wokenMs(h: Harness): number[] {
  const out: number[] = [];
  for (let m = 0; m < h.opts.maxMs; m++) if (h.mem.m(m, L.M_NEXTP) !== 0) out.push(m);
  return out;
}

/** Plays the woken M's side: consume the park token (the sleep loop's store 0), then acquireP. */
export function wakeAndAcquire(h: Harness, m: number): number {
  if (h.mem.m(m, L.M_PARK) !== 0) h.mem.setM(m, L.M_PARK, 0);
  return h.core.acquireP(m);
}

export interface Running {
  p: number;
  m: number;
  /** The G this M is running (it came from the global queue). */
  g: number;
}

/**
 * Brings k Ps to P_RUNNING the way the runtime would: M0 readies a G on the global queue, which
 * wakes an idle M with an idle P; that M acquires the P and findRunnable hands it the G; its
 * resetSpinning wakes the next M. A leftover woken M parks again (findRunnable finds nothing,
 * stopM returns Sleep). Leaves nmspinning 0 and every running M not spinning.
 */
export function startPs(h: Harness, k: number): Running[] {
  const { core } = h;
  startMs(h);
  const out: Running[] = [];
  for (let i = 0; i < k; i++) {
    const [g] = takeGs(h, 1);
    core.ready(-1, g, 0);
    const woken = wokenMs(h);
    if (woken.length !== 1) throw new Error(`startPs: expected one woken M, found [${woken}]`);
    const m = woken[0];
    const p = wakeAndAcquire(h, m);
    const got = core.findRunnable(p, m);
    if (got !== g) throw new Error(`startPs: findRunnable(${p}, ${m}) gave ${got}, expected ${g}`);
    out.push({ p, m, g });
  }
  for (const m of wokenMs(h)) {
    const p = wakeAndAcquire(h, m);
    const got = core.findRunnable(p, m);
    if (got !== 0) throw new Error(`startPs: spare M${m} found G ${got}`);
    const r = core.stopM(p, m);
    if (r !== 0) throw new Error(`startPs: spare M${m} stopM gave ${r}`);
  }
  return out;
}
