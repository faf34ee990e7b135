// Root spawning (docs/DESIGN.md "Root tasks", "Cancellation", "Shared buffers"): a root task
// becomes a G on the global queue, with the Gs spawned in one turn going together (one lock, one
// wakep); its cancellation token wired to its signal and timeout; the shared buffers its values
// carry delivered to every worker before it may run. Main thread only.

import {
  MR_SPAWNED, PRIO_NORMAL, S_RT_SHARES, G_DEAD, G_RUNNABLE, G_PRIO, G_TOKEN_SHIFT, G_SPAWN_TIME,
} from '../../assembly/shared/layout.js';
import { abortedError, asMemoryError, closedError, markKilled, timeoutError, unknownTaskError, type AbortError } from './base/errors.js';
import { CancelTokens } from './tasks/cancel.js';
import { now } from './host/platform.js';
import { traceClock } from './observe/trace.js';
import { LATENCY_SAMPLE } from './observe/latency.js';
import { TASK_PENDING } from './tasks/task.js';
import { RootTask } from './tasks/root-task.js';
import { wakeForMessage } from './sleep/park.js';
import { FN_NAMED } from './memory/gslots.js';
import { priorityClass } from './tasks/priority.js';
import { rootAwaited } from './tasks/join.js';
import { longTimeout } from './host/timer.js';
import { Killer } from './tasks/kill.js';
import type { SpawnOptions } from './engine-state.js';
import { EngineThreads } from './engine-threads.js';

/** Detaches each buffer (its contents move to a clone that is dropped: no copy). */
function detach(bufs: readonly ArrayBuffer[]): void {
  for (const b of bufs) structuredClone(b, { transfer: [b] });
}

/** Root spawns queued before the batch goes to the global queue even within one turn. */
const FLUSH_AT = 256;

export abstract class EngineSpawn extends EngineThreads {
  /**
   * Spawns a root task: a G whose result comes back to this thread. Gs spawned in one turn of
   * the event loop go to the global queue together, with one lock and one wakep, at the next
   * microtask (DESIGN.md "Root tasks").
   */
  spawn(name: string, args: unknown[], opts: SpawnOptions | null = null): RootTask<unknown> {
    const t = new RootTask<unknown>(String(name));
    if (this.closed || this.closing) { t.settle(false, closedError(`spawn('${name}')`)); return t; }
    if (this.failure !== null) { t.settle(false, this.failure); return t; }
    let id = this.ids.get(name);
    if (id === undefined) {
      if (this.namesKnown) { t.settle(false, unknownTaskError(name, this.names)); return t; }
      // Started synchronously and no thread has said its task names yet (DESIGN.md "A
      // synchronous start"): a name goes in the G for the thread that runs it to resolve; a
      // name that is not a string waits here for the names, to fail as it would then.
      if (typeof name !== 'string') { this.unnamed.push({ task: t, name }); return t; }
      id = FN_NAMED;
    }
    let token = 0;
    let cls = PRIO_NORMAL;
    if (opts !== null) {
      if (opts.signal !== undefined || opts.timeout !== undefined) {
        token = this.cancellable(t, opts);
        if (t.state !== TASK_PENDING) return t; // already aborted
      }
      if (opts.priority !== undefined) cls = priorityClass(opts.priority);
      if (opts.transfer !== undefined && opts.transfer.length !== 0) {
        this.submit(t, id, args, token, cls, opts.transfer);
        return t;
      }
    }
    this.submit(t, id, args, token, cls);
    return t;
  }

  /**
   * Gives task t a cancellation token wired to opts.signal and opts.timeout: on abort the
   * token's flag is set, the workers are told (for ctx.signal), and t rejects at once.
   */
  protected cancellable(t: RootTask<unknown>, opts: SpawnOptions): number {
    const { signal, timeout } = opts;
    const kill = opts.kill === true;
    if (signal !== undefined && signal.aborted) {
      t.settle(false, abortedError(t.name, signal.reason, true));
      return 0;
    }
    if (this.tokens === null) { this.tokens = new CancelTokens(this.views, this.core); this.reservedBlocks++; }
    if (kill) this.killer ??= new Killer(this.views, this.nms);
    const token = this.tokens.take(kill);
    if (token === 0) return 0; // every token of its kind in use: the task runs uncancellable
    let stopTimer: (() => void) | undefined;
    const abort = (err: AbortError): void => {
      this.tokens!.cancel(token); // first: a thread marking itself killable after this sees it (kill.ts)
      // A kill-armed tree: end the threads running its code now (DESIGN.md "Killing a task");
      // the error says killed only when one was (a thread that stops itself later says it then).
      if (kill) {
        for (const m of this.killer!.claim(token, { task: t.name, err })) {
          markKilled(err);
          this.killThread(m, { task: t.name, err });
        }
      }
      for (const th of this.threads) th?.post({ type: 'stealwork:cancel', token });
      t.settle(false, err);
    };
    const unwatch = signal === undefined ? undefined
      : this.signals.watch(signal, () => abort(abortedError(t.name, signal.reason, false)));
    if (timeout !== undefined) {
      stopTimer = longTimeout(() => abort(timeoutError(t.name, timeout)), timeout);
    }
    this.cleanups.set(t, () => {
      unwatch?.();
      stopTimer?.();
      this.tokens!.release(token);
      if (kill) this.killer!.forget(token);
    });
    return token;
  }

  protected submit(t: RootTask<unknown>, id: number, args: unknown[], token: number, cls: number, transfer?: readonly ArrayBuffer[]): void {
    const core = this.core;
    const g = core.gfGet(-1);
    if (g === 0) {
      // Backpressure: the table is at maxTasks; wait until results free some Gs. Moved buffers
      // leave the caller now, into a private clone of the arguments.
      if (transfer !== undefined) {
        try {
          args = structuredClone(args, { transfer: transfer as ArrayBuffer[] });
        } catch (e) {
          this.cleanup(t);
          t.settle(false, e);
          return;
        }
      }
      this.deferred.push({ task: t, id, args, token, cls });
      this.alive.hold();
      this.pump();
      return;
    }
    const a = this.gs.addr(g);
    this.shared.usedMax = -1;
    this.shared.takeUsed(); // what this root's arguments carry, from here
    try {
      this.gs.init(g, a, id, args, t.name);
      if (id === FN_NAMED) {
        try {
          this.gs.setName(a, t.name, t.name);
        } catch (e) {
          this.gs.takeArgs(a, []);
          throw e;
        }
      }
    } catch (e) {
      core.gfPut(-1, g);
      this.cleanup(t);
      t.settle(false, asMemoryError(e, `spawn('${t.name}')`, this.opts.maxMemoryMB));
      return;
    }
    if (transfer !== undefined) detach(transfer); // the arguments hold their copy now
    const used = this.shared.takeUsed();
    if (used.length !== 0) { this.shared.pin(used); this.rootShares.set(g, used); } // held while the root is pending
    if ((token | cls) !== 0) this.views.u32[(a + G_PRIO) >>> 2] = (token << G_TOKEN_SHIFT) | cls; // the tree inherits both
    if ((++this.sampled & (LATENCY_SAMPLE - 1)) === 0) this.views.f64[(a + G_SPAWN_TIME) >>> 3] = traceClock();
    rootAwaited(this.views, a); // the main thread (M0) awaits the root
    t.g = g;
    t.gen = this.gs.gen(a);
    this.sysmon.start(); // watches while tasks are in flight (a no-op when it runs already)
    this.pending[g] = t;
    this.npending++;
    this.alive.hold(); // a root is pending: the threads hold the process until nothing is
    this.views.f64[(this.mAddr0 + MR_SPAWNED) >>> 3] = ++this.spawned;
    if (this.shared.unsent.length !== 0) this.sharesDelivered = this.deliverShares();
    if (this.shared.usedMax >= this.sharesAcked) { // never with atOnce: deliverShares counts them acknowledged
      // The arguments hold a shared buffer some worker may not have yet: every worker must hold
      // it before any may decode this G.
      this.sharesDelivered.then(() => { if (!this.closed) { core.ready(-1, g, 0); this.startm.look(); } }, (e) => this.crash(e as Error));
    } else if (cls !== PRIO_NORMAL) {
      core.ready(-1, g, 0); // straight to its class queue: the batch is for the global queue
      this.startm.look();
    } else if (this.atOnce) {
      // A synchronous start's spawn: on the global queue now, with a wakep, so a thread takes it
      // while this thread blocks (DESIGN.md "A synchronous start"); startm's look and the pump
      // once per turn.
      this.gs.setSchedlink(a, 0);
      if (this.opts.debug) core.gSetStatus(g, G_DEAD, G_RUNNABLE);
      else Atomics.store(this.views.u32, a >>> 2, G_RUNNABLE); // G_STATUS: as flush
      core.globrunqPutBatch(g, g, 1);
      core.wakep();
      if (!this.turnQueued) { this.turnQueued = true; queueMicrotask(this.afterTurn); }
      return;
    } else {
      this.batch.push(g);
      if (this.batch.length === 1) queueMicrotask(this.flush);
      else if (this.batch.length >= FLUSH_AT) this.flush(); // a long synchronous burst: let the Ms start
      return; // flush starts the pump, after the wake-up: its first Atomics.waitAsync costs ~15 us
    }
    this.pump();
  }

  /** A root spawned at once this turn (atOnce) has its startm look and pump queued. */
  protected turnQueued = false;
  protected readonly afterTurn = (): void => {
    this.turnQueued = false;
    if (this.closed) return;
    this.startm.look();
    this.pump();
  };

  /** Puts the Gs spawned since the last flush on the global queue in one batch, then wakep. */
  protected readonly flush = (): void => {
    const batch = this.batch;
    const n = batch.length;
    if (n === 0 || this.closed) { batch.length = 0; return; }
    const gs = this.gs;
    const core = this.core;
    for (let i = 0; i < n; i++) {
      const g = batch[i];
      const a = gs.addr(g);
      gs.setSchedlink(a, i + 1 < n ? batch[i + 1] : 0);
      if (this.opts.debug) core.gSetStatus(g, G_DEAD, G_RUNNABLE);
      else Atomics.store(this.views.u32, a >>> 2, G_RUNNABLE); // G_STATUS: pairs with the M's load after globrunqGet (published by the queue lock)
    }
    core.globrunqPutBatch(batch[0], batch[n - 1], n);
    batch.length = 0;
    core.wakep();
    this.startm.look(); // a P whose thread idled out gets one again when work waits for it
    this.pump(); // the results come back to M0's inbox (a result already there is taken at once)
  };

  /** Posts the unsent shared buffers to every worker; resolves when all have acknowledged
   *  (and every earlier delivery has, too). */
  protected deliverShares(): Promise<void> {
    const batch = this.shared.unsent.splice(0);
    const last = batch[batch.length - 1].id;
    if (this.atOnce) {
      // Each thread takes them from its port when a value names one (worker.ts): the task that
      // carries them may run at once (DESIGN.md "A synchronous start").
      this.threads.forEach((t, i) => { if (t !== null) this.sharePorts[i]?.send({ shares: batch }); });
      this.sharesAcked = Math.max(this.sharesAcked, last + 1);
      return this.sharesDelivered;
    }
    Atomics.store(this.views.i32, S_RT_SHARES >>> 2, last + 1); // pairs with the Ms' loads between tasks (m.ts schedule) and in receiveShares
    const acks: Array<Promise<void>> = [];
    this.threads.forEach((t, i) => {
      if (t === null) return; // no thread: one started later gets every buffer before its init
      acks.push(new Promise<void>((resolve) => {
        this.shareWaiters.push({ m: i + 1, id: last, resolve });
        t.post({ type: 'stealwork:share', shares: batch });
        wakeForMessage(this.views, i + 1); // a sleeping M takes a turn of its event loop
      }));
    });
    const before = this.sharesDelivered;
    return Promise.all([before, ...acks]).then(() => { this.sharesAcked = Math.max(this.sharesAcked, last + 1); });
  }

  /** Root G g is back: the buffers its arguments carried are held weakly again. */
  protected unpinShares(g: number): void {
    const ids = this.rootShares.get(g);
    if (ids === undefined) return;
    this.rootShares.delete(g);
    this.shared.unpin(ids);
  }

  /**
   * The buffers the program dropped (collected on this thread, pinned by no pending root) are
   * forgotten by every thread (DESIGN.md "Shared buffers"). Only when no task runs anywhere (the
   * idle look): a task still running could name one in a value. A sleeping M takes a turn of its
   * event loop for the message, as for a delivery.
   */
  protected releaseShares(): void {
    const ids = this.shared.takeDead();
    if (ids.length === 0) return;
    this.sharesReleased += ids.length;
    this.threads.forEach((t, i) => {
      if (t === null) return; // a thread started later is sent only the live ones
      t.post({ type: 'stealwork:unshare', ids });
      wakeForMessage(this.views, i + 1);
    });
  }

  protected onShareAck(m: number, id: number): void {
    this.shareWaiters = this.shareWaiters.filter((w) => {
      if (w.m === m && w.id <= id) { w.resolve(); return false; }
      return true;
    });
  }

  /** engine-pump.ts: settles root Tasks from M0's inbox while any is pending. */
  protected abstract pump(): void;
  /** engine-pump.ts: queues deferred spawns again (the table had no room). */
  protected abstract retryDeferred(): void;
}
