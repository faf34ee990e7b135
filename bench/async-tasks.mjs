// The task module of bench/async.mjs: async tasks (I/O, timers) that a thread starts and leaves
// awaiting. Every export is a task (context first); the ones that spawn nothing also run with
// ctx = null, behind piscina's one-argument signature (bench/async-pool-worker.mjs), so every
// implementation runs the same bodies. Each task counts itself in flight on its thread, in the
// shared slots `sab` (lib/thread-slots.mjs), from its first line to its settlement.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { sha256, tickDigest } from './lib/hashing.mjs';
import { addBytes, noteBuffers, taskEnd, taskStart } from './lib/thread-slots.mjs';

const wallNow = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Reads `file` (awaiting the read), then hashes it: SHA-256 hex. */
export async function readHash(ctx, sab, file) {
  const slot = taskStart(sab);
  try {
    const buf = await readFile(file);
    noteBuffers(sab); // with this file's bytes just read: the most this thread's heap holds
    addBytes(sab, buf.length);
    return sha256(buf);
  } finally {
    taskEnd(sab, slot);
  }
}

/** Waits `ms` on a timer, then a little CPU: hashes `bytes` bytes (the caller calibrates it). */
export async function ioTick(ctx, sab, i, ms, bytes) {
  const slot = taskStart(sab);
  try {
    await sleep(ms);
    addBytes(sab, bytes);
    return tickDigest(i, bytes);
  } finally {
    taskEnd(sab, slot);
  }
}

/** One file of a tree: read, hash; [name, digest]. */
export async function hashFile(ctx, sab, dir, name) {
  const slot = taskStart(sab);
  try {
    const buf = await readFile(join(dir, name));
    addBytes(sab, buf.length);
    return [name, sha256(buf)];
  } finally {
    taskEnd(sab, slot);
  }
}

/** A directory: a child task per file (ctx.spawn), awaited; [[name, digest], ...] by name. */
export async function hashDir(ctx, sab, dir) {
  const slot = taskStart(sab);
  try {
    const names = (await readdir(dir)).sort();
    return await Promise.all(names.map((n) => ctx.spawn('hashFile', sab, dir, n)));
  } finally {
    taskEnd(sab, slot);
  }
}

/**
 * The long task of the stall workload: says it started (word 0 of `flag` = 1, notified), awaits
 * `awaitMs`, then holds its thread computing for `spinMs` (on the clock: the point is the time it
 * occupies the thread). Its start and end, wall clock.
 */
export async function stall(ctx, sab, flag, awaitMs, spinMs) {
  const slot = taskStart(sab);
  try {
    const start = wallNow();
    const f = new Int32Array(flag);
    Atomics.store(f, 0, 1);
    Atomics.notify(f, 0);
    await sleep(awaitMs);
    const until = performance.now() + spinMs;
    let x = 1;
    while (performance.now() < until) for (let k = 0; k < 1000; k++) x = (x * 1103515245 + 12345) | 0;
    return { start, end: wallNow(), threadId, x };
  } finally {
    taskEnd(sab, slot);
  }
}

/** A tiny root: its end, wall clock, and its thread. */
export function tiny(ctx, sab, i) {
  const slot = taskStart(sab);
  try {
    return { i, end: wallNow(), threadId };
  } finally {
    taskEnd(sab, slot);
  }
}
