// The Wasm core's exports: exactly the `Core` interface of bindings/core/core.ts, same names,
// every parameter and result an i32 or u32 (chargeTime's times: f64 ms). This file only
// re-exports.

export { init } from './init';
export { setCanBlock } from './thread';
export { gfGet, gfPut } from './gfree';
export { gSetStatus, gAddr } from './gtable';
export { runqPut, runqGet, runqSteal, runqEmpty, runqLen } from './runq';
export { globrunqPut, globrunqPutBatch } from './globrunq';
export { globrunqGet } from './globrunqget';
export { ready, newproc, findRunnable, stopM, wakep, mPut, mTake, acquireP } from './sched';
export { chargeTime } from './budget';
export { stealWork, stealThreshold, stealOrderAt } from './steal';
export { heapAlloc, heapFree } from './heap';
export { pReserve, pRetire, handoff, pGiveBack } from './sysmon';
export { pDetach, mStart, mExit } from './mlife';
export { handoffP, mReturn } from './handoffp';
export { procresize, pStop } from './procresize';
export { spawnNew } from './spawn';
export { joinLink, finishLinked, finishSlot, joinTasks } from './join';
export { forkNew, forkDone, forkPush, forkPop, forkHelp } from './fork';
export { forkLen } from './forkq';
