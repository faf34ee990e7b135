// Per-thread counters in shared memory, kept by the tasks themselves: which threads ran a task,
// how many tasks each had in flight at once (an async task counts from its first line to its
// settlement), and the bytes each hashed. Any thread may call these; the SharedArrayBuffer
// travels as a task argument (piscina and stealwork both share it rather than copy it).
//
// A thread claims a slot on its first task by its worker_threads threadId (the main thread's is
// 0), so a thread started later, or one replacing another, gets a slot of its own.

import { threadId } from 'node:worker_threads';

export const MAX_SLOTS = 64;

// Int32 words: [0] slots claimed; then per slot i at 4 + 4i: threadId + 1, in flight, the most
// in flight at once, tasks started. BigInt64 words after them: bytes hashed per slot. Int32 words
// after those: the most ArrayBuffer memory (KiB) the slot's thread held when a task noted it.
const INT_WORDS = 4 + 4 * MAX_SLOTS;
const BYTES_OFFSET = INT_WORDS * 4; // a multiple of 8
const BUFFERS_OFFSET = BYTES_OFFSET + 8 * MAX_SLOTS;

export function newSlots() {
  return new SharedArrayBuffer(BUFFERS_OFFSET + 4 * MAX_SLOTS);
}

const views = new WeakMap();
function view(sab) {
  let v = views.get(sab);
  if (!v) {
    v = {
      i32: new Int32Array(sab, 0, INT_WORDS),
      bytes: new BigInt64Array(sab, BYTES_OFFSET, MAX_SLOTS),
      buffers: new Int32Array(sab, BUFFERS_OFFSET, MAX_SLOTS),
    };
    views.set(sab, v);
  }
  return v;
}

/** This thread's slot in `sab`, claimed on first use. */
function slotOf(sab) {
  const { i32 } = view(sab);
  const me = threadId + 1;
  for (let i = 0; i < MAX_SLOTS; i++) {
    const w = 4 + 4 * i;
    const v = Atomics.load(i32, w);
    if (v === me) return i;
    if (v === 0) {
      const was = Atomics.compareExchange(i32, w, 0, me);
      if (was === 0 || was === me) {
        if (was === 0) Atomics.add(i32, 0, 1);
        return i;
      }
    }
  }
  throw new Error(`thread-slots: more than ${MAX_SLOTS} threads`);
}

/** A task starts on this thread: counts it in flight; returns the slot for taskEnd. */
export function taskStart(sab) {
  const { i32 } = view(sab);
  const s = slotOf(sab);
  const w = 4 + 4 * s;
  const n = Atomics.add(i32, w + 1, 1) + 1;
  // Only this thread writes its own slot's words (the main thread resets them between runs).
  if (n > Atomics.load(i32, w + 2)) Atomics.store(i32, w + 2, n);
  Atomics.add(i32, w + 3, 1);
  return s;
}

/** The task that taskStart counted has settled. */
export function taskEnd(sab, slot) {
  Atomics.sub(view(sab).i32, 4 + 4 * slot + 1, 1);
}

/** Adds `n` bytes hashed to this thread's slot. */
export function addBytes(sab, n) {
  Atomics.add(view(sab).bytes, slotOf(sab), BigInt(n));
}

/** Notes the ArrayBuffer memory this thread's JS heap holds now (Node's per-isolate
 *  process.memoryUsage().arrayBuffers: every Buffer and ArrayBuffer not yet collected), keeping
 *  the most. Node only; elsewhere nothing is noted. */
export function noteBuffers(sab) {
  const usage = globalThis.process?.memoryUsage?.();
  if (usage?.arrayBuffers === undefined) return;
  const kib = Math.round(usage.arrayBuffers / 1024);
  const { buffers } = view(sab);
  const s = slotOf(sab);
  if (kib > Atomics.load(buffers, s)) Atomics.store(buffers, s, kib); // only this thread writes its slot
}

/**
 * What the threads did since the last reset: one row per thread that started a task
 * ({ threadId, tasks, maxInFlight, inFlight, bytes, maxBuffers }), main thread side.
 */
export function readSlots(sab) {
  const { i32, bytes, buffers } = view(sab);
  const rows = [];
  const n = Math.min(Atomics.load(i32, 0), MAX_SLOTS);
  for (let i = 0; i < n; i++) {
    const w = 4 + 4 * i;
    const tasks = Atomics.load(i32, w + 3);
    if (tasks === 0) continue;
    rows.push({
      threadId: Atomics.load(i32, w) - 1,
      tasks,
      maxInFlight: Atomics.load(i32, w + 2),
      inFlight: Atomics.load(i32, w + 1),
      bytes: Number(Atomics.load(bytes, i)),
      maxBuffers: Atomics.load(buffers, i) * 1024,
    });
  }
  return rows;
}

/** Zeroes the counts (the claims stay), between runs while no task is in flight. */
export function resetSlots(sab) {
  const { i32, bytes, buffers } = view(sab);
  for (let i = 0; i < MAX_SLOTS; i++) {
    const w = 4 + 4 * i;
    Atomics.store(i32, w + 1, 0);
    Atomics.store(i32, w + 2, 0);
    Atomics.store(i32, w + 3, 0);
    Atomics.store(bytes, i, 0n);
    Atomics.store(buffers, i, 0);
  }
}
