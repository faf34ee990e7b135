// The TypeScript twin of the scheduler core: the same operations as the Wasm core
// (assembly/), over the same bytes of the same shared memory, with Atomics on typed-array
// views (docs/DESIGN.md). One concept per file:
//
//   mem.ts      the views and their refresh after memory growth
//   lock.ts     sched.lock and the heap lock (futex mutexes)
//   heap.ts     brk, memory growth, value blocks
//   gtable.ts   G addresses and status transitions
//   ggrow.ts    growing the G table
//   gfstack.ts  the global free-G stack (64-bit versioned head)
//   gfree.ts    gfPut / gfGet with the per-P free lists
//   runq.ts     the local run queue and stealing
//   globrunq.ts the global run queue
//   globrunqget.ts  a batch from the global queue onto a P's ring (Go's globrunqget)
//   steal.ts    victim order, steal threshold, stealWork
//   idle.ts     the idle-P and idle-M lists
//   sched.ts    ready, newproc, findRunnable, stopM, wakep, acquireP, mTake
//   classq.ts   the high and low class queues
//   budget.ts   high work's budget on a P (chargeTime)
//   sysmon.ts   the spare-P reserve, the monitor's handoff and the give-back
//   trace.ts    task starts and spawns into the tracing M's event ring
//   forkq.ts    the fork deque of a P (Chase-Lev) and the fork steal
//   spawn.ts    spawnNew: ctx.spawn of number arguments in one call
//   join.ts     joinLink, finishLinked: a join continuation's link to a child, and its release;
//               finishSlot, joinTasks: the runtime's common finish and join in one call each
//   fork.ts     forkNew / forkPush / forkPop / forkDone / forkHelp: fork-join's core calls
//   init.ts     laying the layout down

import type { Core } from '../core.js';
import { gfGet, gfPut } from './gfree.js';
import { globrunqPut, globrunqPutBatch } from './globrunq.js';
import { globrunqGet } from './globrunqget.js';
import { gAddr, gSetStatus } from './gtable.js';
import { heapAlloc, heapFree } from './heap.js';
import { init } from './init.js';
import { Mem } from './mem.js';
import { runqEmpty, runqGet, runqLen, runqPut, runqSteal } from './runq.js';
import { acquireP, findRunnable, mPut, mTake, newproc, ready, stopM, wakep } from './sched.js';
import { chargeTime } from './budget.js';
import { stealOrderAt, stealThreshold, stealWork } from './steal.js';
import { handoff, pGiveBack, pReserve, pRetire } from './sysmon.js';
import { mExit, mStart, pDetach } from './mlife.js';
import { handoffP, mReturn } from './handoffp.js';
import { procresize, pStop } from './procresize.js';
import { forkDone, forkHelp, forkNew, forkPop, forkPush } from './fork.js';
import { spawnNew } from './spawn.js';
import { finishLinked, finishSlot, joinLink, joinTasks } from './join.js';
import { forkLen } from './forkq.js';

/** A Core over `memory` for the calling thread; `canBlock`: may this thread Atomics.wait
 *  (false on a main thread). Each thread creates its own; they share only the memory. */
export function createTsCore(memory: WebAssembly.Memory, canBlock: boolean): Core {
  const m = new Mem(memory, canBlock);
  return {
    init: (nprocs: number, maxMs: number, gcapInit: number, gmax: number, flags: number,
      stealThreshold: number, seed: number): void =>
      init(m, nprocs, maxMs, gcapInit, gmax, flags, stealThreshold, seed),
    setCanBlock: (canBlock: number): void => { m.canBlock = canBlock !== 0; },
    gfGet: (p: number): number => gfGet(m, p),
    gfPut: (p: number, g: number): void => gfPut(m, p, g),
    gSetStatus: (g: number, from: number, to: number): void => gSetStatus(m, g, from, to),
    gAddr: (g: number): number => gAddr(m, g),
    runqPut: (p: number, g: number, next: number): void => runqPut(m, p, g, next),
    runqGet: (p: number): number => runqGet(m, p),
    runqSteal: (p: number, victim: number, stealRunNext: number): number =>
      runqSteal(m, p, victim, stealRunNext),
    runqEmpty: (p: number): number => runqEmpty(m, p),
    runqLen: (p: number): number => runqLen(m, p),
    globrunqPut: (g: number): void => globrunqPut(m, g),
    globrunqPutBatch: (head: number, tail: number, n: number): void =>
      globrunqPutBatch(m, head, tail, n),
    globrunqGet: (p: number, max: number): number => globrunqGet(m, p, max),
    ready: (p: number, g: number, next: number): void => ready(m, p, g, next),
    newproc: (p: number, mi: number, g: number, parent: number): void => newproc(m, p, mi, g, parent),
    findRunnable: (p: number, mi: number): number => findRunnable(m, p, mi),
    stopM: (p: number, mi: number): number => stopM(m, p, mi),
    wakep: (): void => wakep(m),
    mPut: (mi: number): void => mPut(m, mi),
    mTake: (): number => mTake(m),
    acquireP: (mi: number): number => acquireP(m, mi),
    chargeTime: (p: number, cls: number, start: number, end: number): number => chargeTime(m, p, cls, start, end),
    stealWork: (p: number): number => stealWork(m, p),
    stealThreshold: (): number => stealThreshold(m),
    stealOrderAt: (p: number, r: number, i: number): number => stealOrderAt(m, p, r, i),
    heapAlloc: (size: number): number => heapAlloc(m, size),
    heapFree: (addr: number): void => heapFree(m, addr),
    pReserve: (p: number): number => pReserve(m, p),
    pRetire: (): number => pRetire(m),
    handoff: (): number => handoff(m),
    pGiveBack: (p: number, mi: number): number => pGiveBack(m, p, mi),
    pDetach: (p: number): number => pDetach(m, p),
    mStart: (mi: number): number => mStart(m, mi),
    mExit: (mi: number, min: number): number => mExit(m, mi, min),
    handoffP: (p: number, mi: number): number => handoffP(m, p, mi),
    mReturn: (mi: number): number => mReturn(m, mi),
    procresize: (target: number, total: number): number => procresize(m, target, total),
    pStop: (p: number, mi: number): number => pStop(m, p, mi),
    spawnNew: (p: number, mi: number, fn: number, argc: number, x0: number, x1: number, x2: number, x3: number,
      x4: number, x5: number, x6: number, prio: number, parent: number): number =>
      spawnNew(m, p, mi, fn, argc, x0, x1, x2, x3, x4, x5, x6, prio, parent),
    joinLink: (g: number, c: number, i: number): number => joinLink(m, g, c, i),
    finishLinked: (p: number, g: number, pg: number): number => finishLinked(m, p, g, pg),
    finishSlot: (p: number, g: number, from: number, tag: number, x: number): number => finishSlot(m, p, g, from, tag, x),
    joinTasks: (p: number, g: number, fn: number, n: number, c0: number, c1: number, c2: number, c3: number): number =>
      joinTasks(m, p, g, fn, n, c0, c1, c2, c3),
    forkNew: (p: number, mi: number, spare: number, fn: number, argc: number,
      x0: number, x1: number, x2: number, x3: number, x4: number, x5: number, x6: number): number =>
      forkNew(m, p, mi, spare, fn, argc, x0, x1, x2, x3, x4, x5, x6),
    forkDone: (p: number, g: number): void => forkDone(m, p, g),
    forkPush: (p: number, mi: number, g: number, parent: number): number => forkPush(m, p, mi, g, parent),
    forkPop: (p: number, mi: number): number => forkPop(m, p, mi),
    forkHelp: (p: number, mi: number, victim: number, anywhere: number): number => forkHelp(m, p, mi, victim, anywhere),
    forkLen: (p: number): number => forkLen(m, p),
  };
}
