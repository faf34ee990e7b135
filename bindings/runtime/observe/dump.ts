// The task dump: what every live task is doing now (Go's goroutine dump on SIGQUIT, and
// pprof's goroutine profile; tokio's task dump). Read by the main thread from the G table in
// shared memory, without stopping or signalling the threads (docs/DESIGN.md "The task dump").
//
// Consistency: each word is one aligned 32-bit load (no tearing), and each G is read as a unit
// between two loads of its generation and status (bumped by gfPut when it is freed, changed when
// it moves): a G that changed meanwhile is read again (up to 4 times, then listed as it was last
// seen, `torn: true`). Across Gs it is not a snapshot: a task spawned during the dump may be
// missing, one that finished during it may be listed. Costs a few loads per G slot of the table
// (the table's capacity, not its live tasks) and per queue slot: about a millisecond per 100k
// slots here, no lock, no message.

import {
  G_DEAD, G_FN, G_GEN, G_IDLE, G_INDEX, G_JOIN, G_PARENT, G_PENDING, G_PRIO, G_RUNNABLE, G_RUNNING, G_SCHEDLINK,
  G_SPAWN_TIME, G_STATUS, G_WAITING, GF_CONT, GF_FORK, H_GCAP, H_NPROCS, HEADER, JOIN_DETACHED, JOIN_DONE,
  JOIN_PARENT, JOIN_WAITER_MASK, MR_CURG, P_HEAD, P_RUNNEXT, P_RUNQ, P_TAIL, PARENT_SPAWNER, PRIO_HIGH, PRIO_MASK,
  PRIO_NORMAL, RUNQ_MASK, RUNQ_SIZE, SCHEDLINK_PINNED,
} from '../../../assembly/shared/layout.js';
import type { GSlots } from '../memory/gslots.js';
import { mAddr, pAddr } from '../memory/mblock.js';
import { traceClock } from './trace.js';

/**
 * What a live task is doing:
 * - `queued`: runnable, on a queue (a P's, the global one, a priority class's, a fork deque);
 * - `running`: its code is on a thread's stack now (`thread` says which);
 * - `awaiting`: an async task at an `await`, held by its thread (`thread`) until it resumes;
 * - `joining`: it returned `ctx.join(...)` and waits for `pending` children, then runs as
 *   the join's function (`name` is that function's);
 * - `waiting`: another wait (between the two steps of a join, say).
 */
export type DumpState = 'queued' | 'running' | 'awaiting' | 'joining' | 'waiting';

/** One live task of `sched.dump()`. */
export interface DumpTask {
  /** Its G's id (stable while it lives; the trace names Gs by it too). */
  g: number;
  /** The task function's name ('?' for a name not resolved yet after startSync). */
  name: string;
  /** What it is doing (DumpState). */
  state: DumpState;
  /** The worker thread (M index) running or holding it, null while queued. */
  thread: number | null;
  /** Queued on this P's ring or runnext; null elsewhere (the global or a class queue, a fork
   *  deque) or when not queued. */
  p: number | null;
  /** Its parent's G: the join continuation its result goes to once `ctx.join` linked it, else
   *  the task that spawned it (which may have finished since, its G reused, when the child is
   *  `detached`); null for a root task and a fork. */
  parent: number | null;
  /** The thread (M index) whose task spawned it and holds its Task, until a join links it;
   *  null for a root task and once linked. */
  spawnedOn: number | null;
  /** The thread awaiting its result (0: the main thread, a root task's awaiter), else null. */
  awaitedBy: number | null;
  /** Its parent ended without awaiting or joining it. */
  detached: boolean;
  /** A root task (`sched.spawn`/`run`). */
  root: boolean;
  /** A fork (`ctx.fork`). */
  fork: boolean;
  /** Children a joining task still waits for. */
  pending: number;
  /** Its priority class (inherited from its parent unless `with({ priority })` set it). */
  priority: 'high' | 'normal' | 'low';
  /** Milliseconds since it was spawned, for the spawns the latency sampler dates (one in 64);
   *  null for the others. */
  ageMs: number | null;
  /** It changed under every read (see the file's comment): the fields may mix two moments. */
  torn: boolean;
}

/** `sched.dump()`. */
export interface Dump {
  /** When it was taken, ms on the trace clock (performance.timeOrigin-based). */
  at: number;
  /** G slots read: the table's capacity when the dump began. */
  slots: number;
  /** Every live task, by G id. */
  tasks: DumpTask[];
  /** How many tasks are in each state. */
  counts: Record<DumpState, number>;
}

/** Reads the G table and the queues. `names`: the task table (by function id). Main thread. */
export function readDump(gs: GSlots, names: readonly string[], nms: number): Dump {
  const v = gs.views;
  const at = traceClock();
  const slots = Atomics.load(v.u32, (HEADER + H_GCAP) >>> 2); // pairs with the table's growth (gfGet, under sched.lock)
  // Who runs what: each M's current G (a snapshot: MR_CURG is the M's plain store).
  const running = new Map<number, number>();
  for (let m = 1; m < nms; m++) {
    const g = Atomics.load(v.u32, (mAddr(v, m) + MR_CURG) >>> 2);
    if (g !== 0) running.set(g, m);
  }
  // Which P's ring or runnext holds each queued G.
  const onP = new Map<number, number>();
  const nprocs = v.u32[(HEADER + H_NPROCS) >>> 2];
  for (let p = 0; p < nprocs; p++) {
    const b = pAddr(v, p);
    const next = Atomics.load(v.u32, (b + P_RUNNEXT) >>> 2); // pairs with runqput's store (a snapshot)
    if (next !== 0) onP.set(next, p);
    const head = Atomics.load(v.u32, (b + P_HEAD) >>> 2); // pairs with runqget's and runqgrab's CAS
    const tail = Atomics.load(v.u32, (b + P_TAIL) >>> 2); // pairs with runqput's store-release
    const n = Math.min((tail - head) >>> 0, RUNQ_SIZE);
    for (let i = 0; i < n; i++) onP.set(v.u32[(b + P_RUNQ + (((head + i) & RUNQ_MASK) << 2)) >>> 2], p);
  }
  const tasks: DumpTask[] = [];
  const counts: Record<DumpState, number> = { queued: 0, running: 0, awaiting: 0, joining: 0, waiting: 0 };
  for (let g = 1; g < slots; g++) {
    const t = readG(gs, g, names, running, onP, at);
    if (t === null) continue;
    tasks.push(t);
    counts[t.state]++;
  }
  return { at, slots, tasks, counts };
}

/** G g as a DumpTask, or null when it is not live (idle or dead). Main thread. */
function readG(gs: GSlots, g: number, names: readonly string[], running: Map<number, number>,
  onP: Map<number, number>, at: number): DumpTask | null {
  let torn = true;
  let t: DumpTask | null = null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const a = gs.addr(g); // may refresh the views: read them after
    const u32 = gs.views.u32;
    const gen = Atomics.load(u32, (a + G_GEN) >>> 2); // pairs with gfPut's bump: a G freed and reused meanwhile
    const status = Atomics.load(u32, (a + G_STATUS) >>> 2);
    if (status === G_IDLE || status === G_DEAD) return null;
    const fn = u32[(a + G_FN) >>> 2];
    const parentWord = u32[(a + G_PARENT) >>> 2];
    const join = Atomics.load(u32, (a + G_JOIN) >>> 2);
    const prio = u32[(a + G_PRIO) >>> 2];
    const link = u32[(a + G_SCHEDLINK) >>> 2];
    const pending = u32[(a + G_PENDING) >>> 2];
    const index = u32[(a + G_INDEX) >>> 2];
    const spawned = gs.views.f64[(a + G_SPAWN_TIME) >>> 3];
    const cont = (prio & GF_CONT) !== 0;
    let state: DumpState;
    let thread: number | null = null;
    if (status === G_RUNNABLE) state = 'queued';
    else if (status === G_RUNNING) { state = 'running'; thread = running.get(g) ?? null; }
    else if (status === G_WAITING && (link & SCHEDLINK_PINNED) !== 0) { state = 'awaiting'; thread = link & ~SCHEDLINK_PINNED; }
    else if (status === G_WAITING && cont && pending > 0) state = 'joining';
    else state = 'waiting';
    const linked = (join & JOIN_PARENT) !== 0;
    const spawner = (parentWord & PARENT_SPAWNER) !== 0;
    const waiter = join & JOIN_WAITER_MASK;
    const cls = prio & PRIO_MASK;
    t = {
      g,
      name: fn < names.length ? names[fn] : '?',
      state,
      thread,
      p: state === 'queued' ? onP.get(g) ?? null : null,
      parent: linked && !spawner && parentWord !== 0 ? parentWord : !linked && spawner && index !== 0 && (prio & GF_FORK) === 0 ? index : null,
      spawnedOn: !linked && spawner ? (parentWord & ~PARENT_SPAWNER) >>> 0 : null,
      awaitedBy: waiter !== 0 ? waiter - 1 : null,
      detached: (join & JOIN_DETACHED) !== 0 && (join & JOIN_DONE) === 0,
      root: parentWord === 0 && waiter === 1,
      fork: (prio & GF_FORK) !== 0,
      pending: state === 'joining' ? pending : 0,
      priority: cls === PRIO_HIGH ? 'high' : cls === PRIO_NORMAL ? 'normal' : 'low',
      ageMs: spawned > 0 ? Math.max(0, at - spawned) : null,
      torn: false,
    };
    if (Atomics.load(u32, (a + G_GEN) >>> 2) === gen && Atomics.load(u32, (a + G_STATUS) >>> 2) === status) { torn = false; break; }
  }
  if (t !== null) t.torn = torn;
  return t;
}

/** The dump as text, one line per task after a summary, Go's goroutine dump in spirit:
 *
 *    stealwork dump: 3 live tasks in 4096 G slots (queued 1, running 1, awaiting 0, joining 1, waiting 0)
 *    G1 [joining 2] sum root awaited-by=M0
 *    G2 [running M1] fibc parent=G1
 *    G3 [queued P0] fibc parent=G1
 */
export function formatDump(d: Dump): string {
  const c = d.counts;
  const lines = [`stealwork dump: ${d.tasks.length} live tasks in ${d.slots} G slots ` +
    `(queued ${c.queued}, running ${c.running}, awaiting ${c.awaiting}, joining ${c.joining}, waiting ${c.waiting})`];
  for (const t of d.tasks) {
    const where = t.state === 'queued' ? (t.p !== null ? ` P${t.p}` : '') : t.state === 'joining' ? ` ${t.pending}`
      : t.thread !== null ? ` M${t.thread}` : '';
    let line = `G${t.g} [${t.state}${where}] ${t.name}`;
    if (t.root) line += ' root';
    if (t.fork) line += ' fork';
    if (t.parent !== null) line += ` parent=G${t.parent}`;
    if (t.spawnedOn !== null) line += ` spawned-on=M${t.spawnedOn}`;
    if (t.awaitedBy !== null) line += ` awaited-by=M${t.awaitedBy}`;
    if (t.detached) line += ' detached';
    if (t.priority !== 'normal') line += ` priority=${t.priority}`;
    if (t.ageMs !== null) line += ` age=${t.ageMs.toFixed(1)}ms`;
    if (t.torn) line += ' (changed while read)';
    lines.push(line);
  }
  return lines.join('\n') + '\n';
}
