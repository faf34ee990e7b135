// The engine's threads (docs/DESIGN.md "Threads and the handshake", "Threads that come and go",
// "Resizing: procs at run time", "Crashed workers", "Killing a task"): starting an M's thread and
// reading its messages, starting more for Ps without one (startm), resizing (GOMAXPROCS), a
// thread that idled out, a crashed or killed thread's recovery, and the scheduler's own failure.
// Main thread only.

import { reportUnobserved } from './tasks/unobserved.js';
import {
  AbortError, closedError, describeRefusal, markKilled, startTimeoutError, unknownTaskError, killReason, threadsRefusedError, replacementFailedError, taskModuleMismatchError, threadStartError, uncaughtError, workerCrashedError,
  workerExitError, workerLoopError, workerStartError,
} from './base/errors.js';
import { S_RT_SHARES } from '../../assembly/shared/layout.js';
import { isNode, now, startThread, syncChannel, unrefTimer, warn, type ThreadHandle } from './host/platform.js';
import { OUTPUT_BYTES } from './host/stdio.js';
import { isEngineMessage, type ToWorker } from './messages.js';
import { traceClock } from './observe/trace.js';
import { RootTask } from './tasks/root-task.js';
import { casualties, detachOrphans, dropLateResults, failCasualties } from './threads/recover.js';
import type { KillCause } from './tasks/kill.js';
import { EngineState } from './engine-state.js';

/** The runtime's worker entry, beside this file (unbundled) or dist/worker.js (rollup.config.mjs). */
const WORKER_URL = new URL('./worker.js', import.meta.url);

export abstract class EngineThreads extends EngineState {
  /** Starts the threads for startThreads Ps and the spares' (the other slots wait for work): their
   *  handshakes, each the task names its thread found. A thread the platform refuses (Node:
   *  ERR_WORKER_INIT_FAILED, EAGAIN at a thread limit) throws ERR_WORKER_START; the ones started
   *  are ended by the caller's failure, and their handshakes dropped. `least`: the fewest to
   *  start (Scheduler.start needs one for the task names; a synchronous start does not). */
  private launchThreads(module: WebAssembly.Module | null, least = 1): Array<Promise<string[]>> {
    this.module = module;
    const ready: Array<Promise<string[]>> = [];
    const n = Math.max(least, this.opts.startThreads) + this.opts.spareThreads;
    for (let i = 1; i <= n; i++) {
      try {
        ready.push(this.startM(i, undefined));
      } catch (e) {
        for (const r of ready) r.catch(() => undefined);
        throw threadsRefusedError(i, n, e);
      }
    }
    for (let i = n + 1; i < this.nms; i++) this.threads[i - 1] = null;
    return ready;
  }

  protected async startThreads(module: WebAssembly.Module | null): Promise<void> {
    const ready = this.launchThreads(module);
    const lists = await this.withinStartTimeout(ready);
    const names = lists[0];
    for (let m = 1; m < lists.length; m++) {
      if (lists[m].join('\0') !== names.join('\0')) throw taskModuleMismatchError(1, names, m + 1, lists[m]);
    }
    this.learnNames(names, 1);
  }

  /** All the handshakes, or ERR_WORKER_START naming options.startTimeout once it passed with
   *  some not in (the caller ends the threads). Meanwhile stats' `threadsLoading` counts them. */
  private withinStartTimeout(ready: Array<Promise<string[]>>): Promise<string[][]> {
    this.loading = ready.length;
    for (const r of ready) r.then(() => { this.loading--; }, () => { this.loading--; });
    const all = Promise.all(ready);
    const ms = this.opts.startTimeout;
    if (ms === Infinity) return all;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(startTimeoutError(this.opts.tasks, ms, this.loading, ready.length)), ms);
    });
    return Promise.race([all, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Starts the threads as startThreads does, without waiting for their handshakes (Engine.startSync):
   * the first thread to answer gives the task names, the others are checked against them, and a
   * thread that fails its start fails the scheduler (startFailed), as it fails Scheduler.start.
   * Each counts as a thread starting (startm.ts), as it will take a P as it comes up. Settles
   * once every handshake has.
   */
  protected startThreadsSync(module: WebAssembly.Module | null): Promise<unknown> {
    // None at all when startThreads is 0 (piscina's minThreads: 0): the first spawns name their
    // task, and the first thread started for them says the names (growM).
    const ready = this.launchThreads(module, 0);
    const n = ready.length;
    this.startm.starting += n;
    ready.forEach((r, k) => r.then((names) => {
      this.startm.starting--;
      this.learnNames(names, k + 1);
    }, (e: unknown) => {
      this.startm.starting--;
      this.startFailed(e as Error);
    }));
    return Promise.allSettled(ready);
  }

  /**
   * Thread m said the task names `names`: the first to say them gives the ids (a root spawned by
   * name before then carries its name: DESIGN.md "A synchronous start"); any other must agree.
   */
  protected learnNames(names: string[], m: number): void {
    if (!this.namesKnown) {
      this.names = names;
      names.forEach((n, i) => this.ids.set(n, i));
      this.namesKnown = true;
      const waiting = this.unnamed.splice(0);
      for (const u of waiting) u.task.settle(false, unknownTaskError(u.name, names));
      return;
    }
    if (names.join('\0') !== this.names.join('\0')) this.startFailed(taskModuleMismatchError(1, this.names, m, names));
  }

  /**
   * A thread of a synchronous start did not come up (or loaded another module): the scheduler
   * fails with the error Scheduler.start rejects with, every task spawned so far rejects with it,
   * and its threads end. A close under way has ended them itself.
   */
  protected startFailed(err: Error): void {
    if (this.closed || this.closing !== null || this.failure !== null) return;
    const failed = this.npending + this.deferred.length + this.unnamed.length;
    this.crash(err);
    for (const u of this.unnamed.splice(0)) u.task.settle(false, err);
    for (const t of this.threads) void t?.terminate().catch(() => undefined);
    this.alive.end();
    this.onStartFailed?.(err, failed);
  }

  /**
   * Starts the thread of M slot i (at start-up, or to replace a crashed one: `restart`) and
   * resolves with the task names it loaded.
   */
  protected startM(i: number, restart: { resumeP: number; blocked: boolean } | undefined): Promise<string[]> {
    const o = this.opts;
    const t = startThread<ToWorker, unknown>(o.worker ?? WORKER_URL, `stealwork M${i}`, o.thread);
    this.threads[i - 1] = t;
    const epoch = (this.epochs[i] ?? 0) + 1; // one rule for late results, however the thread came to be (waiters.ts)
    this.epochs[i] = epoch;
    this.alive.adopt(t);
    // Its output is counted from the start, and waited for until the thread is gone (its exit
    // reads every message it posted): DESIGN.md "Task output".
    const output = new SharedArrayBuffer(OUTPUT_BYTES);
    if (this.output.track(t, output)) t.onGone(() => this.output.forget(t));
    let exitResolve!: () => void;
    this.exits[i - 1] = new Promise<void>((r) => { exitResolve = r; });
    let gone = false; // this thread's end is handled once (Node reports 'error', then 'exit')
    const ready = new Promise<string[]>((resolve, reject) => {
      let isReady = false;
      t.onMessage((msg) => {
        // Not the engine's: the thread's own code posted it (messages.ts).
        if (!isEngineMessage(msg)) { o.onMessage?.(msg); return; }
        switch (msg.type) {
          case 'stealwork:ready': isReady = true; o.onThreadUp?.(t.worker); resolve(msg.names); break;
          case 'stealwork:error':
            // After the handshake the M loop itself failed (not a task): the scheduler's state is
            // suspect; fail fast.
            if (isReady) this.crash(workerLoopError(i, msg.error));
            else reject(workerStartError(msg.code === 'ERR_TASK_MODULE' ? 'ERR_TASK_MODULE' : 'ERR_WORKER_START', msg.error));
            break;
          case 'stealwork:exit':
            exitResolve();
            if (msg.idle) this.idledOut(i, t);
            break;
          case 'stealwork:share-ack': this.onShareAck(i, msg.id); break;
          case 'stealwork:uncaught': this.uncaught(uncaughtError(i, msg.error)); break;
          case 'stealwork:unobserved': reportUnobserved(this.gs, msg.block, { task: msg.task, thread: i }, o.onUnobservedError); break;
          case 'stealwork:halt': if (this.killer?.halted(i, msg.token)) this.killThread(i, this.killer.cause(msg.token)); break;
          case 'stealwork:broadcast-done': this.broadcasts.done(i, msg); break;
        }
      });
      t.onExit((reason, error) => {
        exitResolve();
        if (gone) return;
        gone = true;
        if (!isReady) reject(workerExitError(i, reason, error));
        else if (!this.closed) void this.recover(i, t, reason, error);
      });
    });
    // Every live buffer, and how many were published (the released ones are not sent).
    if (restart !== undefined || this.running) t.post({ type: 'stealwork:share', shares: this.shared.all(), upTo: Atomics.load(this.views.i32, S_RT_SHARES >>> 2) }); // pairs with deliverShares' store
    // A synchronous start sends later buffers on a port the thread reads at once (deliverShares).
    const sc = this.atOnce ? syncChannel() : null;
    this.sharePorts[i - 1] = sc;
    if (sc !== null) t.onGone(() => sc.close());
    if (o.onThreadGone !== null) t.onGone(() => this.reportGone(t.worker));
    t.post({
      type: 'stealwork:init', memory: this.memory, module: this.module, backend: o.backend, tasks: o.tasks, mid: i,
      spinLimit: o.spinLimit, yieldLimit: o.yieldLimit, ncpu: o.ncpu, maxTasks: o.maxTasks, maxMemoryMB: o.maxMemoryMB, debug: o.debug, restart, epoch, orphansPossible: this.diedIn.has(i), calling: o.calling,
      idleTimeout: o.idleTimeout, minLive: o.minThreads + o.spareThreads, asyncPerThread: o.asyncPerThread, output,
      ...(isNode ? {} : { workerData: o.thread.workerData }), // Node passes it as the Worker's option
      ...(sc === null ? {} : { sharePort: sc.port }),
      ...(this.broadcasts.hooks.length === 0 ? {} : { hooks: this.broadcasts.hooks }),
    }, sc === null ? undefined : [sc.port]);
    return ready;
  }

  /**
   * Starts up to n threads in free slots, for Ps without one (startm.ts): each takes a P off the
   * no-M list as it starts (mStart) and wakes an M for the work waiting.
   */
  protected growM(n: number): void {
    if (this.closed || this.closing !== null || this.failure !== null) return;
    if (this.startm.holding()) return; // a thread was refused a moment ago (growFailed)
    for (let i = 1; i < this.nms && n > 0; i++) {
      if (this.threads[i - 1] !== null) continue;
      n--;
      this.startm.starting++;
      this.alive.holdFor('start'); // until it is up or known not to come (DESIGN.md "What keeps the process alive")
      this.threadStarts++;
      if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'startm', args: { M: i } });
      let ready: Promise<string[]>;
      try {
        ready = this.startM(i, undefined);
      } catch (e) {
        // The platform refused the thread at once (Node: ERR_WORKER_INIT_FAILED, EAGAIN at a
        // thread limit): nothing ran, and the slot stays empty. More now would be refused too.
        this.startm.starting--;
        this.alive.releaseFor('start');
        this.growFailed(i, e);
        return;
      }
      ready.then((names) => {
        this.startm.starting--;
        this.alive.releaseFor('start');
        this.startm.cameUp();
        if (!this.namesKnown) this.learnNames(names, i);
        else if (names.join('\0') !== this.names.join('\0')) this.crash(taskModuleMismatchError(1, this.names, i, names));
      }, (e: unknown) => {
        // It failed before its handshake, so before mStart (worker.ts posts ready right after
        // it): it holds no P and is on no list.
        this.startm.starting--;
        this.alive.releaseFor('start');
        const t = this.threads[i - 1];
        this.threads[i - 1] = null;
        void t?.terminate().catch(() => undefined);
        this.growFailed(i, e);
      });
    }
  }

  /**
   * A thread started for a P without one (growM) did not come up (DESIGN.md "Threads that come
   * and go"): while some P in service has an M, the work waiting runs on the threads there are,
   * a warning says so once a streak, and no thread starts for a while (startm.ts refused);
   * with none, and no other thread starting (which would serve one), nothing would run it, and
   * the scheduler fails as a crash does.
   */
  protected growFailed(i: number, e: unknown): void {
    this.threadStartFailures++;
    if (this.closed || this.closing !== null || this.failure !== null) return;
    // Another thread still starting may serve a P yet: only when none is does nothing remain.
    if (this.startm.served() === 0 && this.startm.starting === 0) { this.crash(threadStartError(i, e)); return; }
    if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'startm', args: { M: i, refused: 1 } });
    if (this.startm.refused()) {
      const live = this.threads.filter((t) => t !== null).length;
      warn(`stealwork: a thread for a P without one did not start (${describeRefusal(e)}); ` +
        `the tasks run on the ${live} thread${live === 1 ? '' : 's'} there are, and starts are tried again later ` +
        '(stats().sched.threadStartFailures counts them)', 'STEALWORK_THREAD_START');
    }
  }

  /**
   * runtime.GOMAXPROCS(n) (DESIGN.md "Resizing: procs at run time"): n Ps in service from now on.
   * Resolves once no more than n Ps run tasks and n can: at once when no M holds a P it must give
   * back, else after the Ms give theirs back between two tasks (a P running one long task gives
   * it back when that task ends).
   */
  resize(n: number): Promise<void> {
    if (this.closed || this.closing !== null) return Promise.reject(closedError('resize'));
    if (this.failure !== null) return Promise.reject(this.failure);
    this.procs = n;
    const left = this.core.procresize(n, this.opts.maxProcs);
    this.core.wakep(); // a P back in service with an idle M: work waiting finds it
    this.startm.look(); // or a P without an M: a thread starts when work waits for it
    if (left === 0 && this.resizing === null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (this.resizing === null) {
        // The pending resize holds the process (the look's own timer does not): its Ps come
        // back or go out as tasks end, after which nothing else may be pending.
        this.alive.holdFor('resize');
        const r = { timer: unrefTimer(setInterval(() => this.resizeLook(), 4)), done: [] as Array<() => void> };
        this.stopTimers.push(() => { if (this.resizing === r) this.resizeDone(r); });
        this.resizing = r;
      }
      this.resizing.done.push(resolve);
    });
  }

  /** Every 4 ms while a resize is under way: moves what can move now (an idle P out of service,
   *  a given-back P back in), and settles the resizes once nothing is left. */
  protected resizeLook(): void {
    const r = this.resizing;
    if (r === null) return;
    if (this.core.procresize(this.procs, this.opts.maxProcs) !== 0) return;
    this.core.wakep();
    this.startm.look();
    this.resizeDone(r);
  }

  /** Settles the resizes under way (done, or the scheduler stops) and drops their hold. */
  private resizeDone(r: { timer: ReturnType<typeof setInterval>; done: Array<() => void> }): void {
    clearInterval(r.timer);
    this.resizing = null;
    for (const f of r.done) f();
    this.alive.releaseFor('resize');
  }

  /** M slot i's thread left the scheduler after idleTimeout (mExit): it ends, and the slot is
   *  free for a thread started later. A share delivery waiting for its acknowledgement does not
   *  wait any longer: a thread started in the slot gets every buffer before its init. */
  /** Tells onThreadGone once per thread: when its slot is freed (an idle exit) or its Worker
   *  exited, whichever comes first (the Worker's 'exit' follows its terminate by a while). */
  private readonly goneReported = new WeakSet<object>();
  protected reportGone(worker: unknown): void {
    const onGone = this.opts.onThreadGone;
    if (onGone === null || typeof worker !== 'object' || worker === null || this.goneReported.has(worker)) return;
    this.goneReported.add(worker);
    onGone(worker);
  }

  protected idledOut(i: number, t: ThreadHandle<ToWorker, unknown>): void {
    if (this.threads[i - 1] !== t || this.closed) return;
    this.threads[i - 1] = null;
    this.reportGone(t.worker);
    this.threadExits++;
    this.lateResults += dropLateResults(this.gs, this.core, i); // the slot has no thread: its inbox is this thread's now
    this.onShareAck(i, Number.MAX_SAFE_INTEGER);
    if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'idle exit', args: { M: i } });
    void t.terminate().catch(() => undefined);
  }

  /**
   * M slot i's thread died outside close (DESIGN.md "Crashed workers"): fail the task it was
   * running and the async tasks pinned to it with WorkerCrashedError, then start a new thread
   * in the same slot, which takes over its P (and so its queue) or its place on the idle list.
   */
  protected async recover(i: number, dead: ThreadHandle, reason: string, cause: unknown, killed = false): Promise<void> {
    if (this.failure !== null || this.recovered.has(dead)) return;
    this.recovered.add(dead);
    this.alive.holdFor('start'); // from the dead thread's end to its successor's handshake
    try {
      await this.replace(i, dead, reason, cause, killed);
    } catch (e) {
      // A fault of the recovery itself (a bug: the shared state is suspect): the scheduler
      // fails, and its tasks say why, rather than an unhandled rejection outside any task.
      this.crash(e as Error);
    } finally {
      this.alive.releaseFor('start');
    }
  }

  private async replace(i: number, dead: ThreadHandle, reason: string, cause: unknown, killed: boolean): Promise<void> {
    await dead.terminate().catch(() => undefined); // make sure it is gone before its slot is reused
    if (this.closed) return;
    const err = workerCrashedError(i, reason, cause);
    const c = casualties(this.gs, i);
    const failed = failCasualties(this.gs, this.core, i, c, err, this.names);
    detachOrphans(this.gs, this.core, i);
    this.diedIn.add(i); // results for its waiters may still come, to this slot's later threads
    this.lateResults += dropLateResults(this.gs, this.core, i); // those in already: nobody owns the inbox until the successor starts
    this.killer?.reset(i);
    this.restarts++;
    if (!killed) this.onThreadError?.(err, failed); // a kill was asked for: its task's rejection reports it
    if (this.opts.trace) this.monitorLog.push({ t: traceClock(), name: 'restart', args: killed ? { M: i, P: c.p, failed, killed: 1 } : { M: i, P: c.p, failed } });
    try {
      await this.startM(i, { resumeP: c.p, blocked: c.blocked });
    } catch (e) {
      this.crash(replacementFailedError(i, reason, e));
    }
  }

  /** Ends M slot i's thread, claimed for a kill (kill.ts), and recovers its slot as for a
   *  crash; `why` undefined: a leftover of a tree whose root is back. */
  protected killThread(i: number, why: KillCause | undefined): void {
    const t = this.threads[i - 1];
    if (t === null) return; // a claimed thread runs a task: it has not idled out
    if (why?.err instanceof AbortError) markKilled(why.err); // a thread ended for it: its root's error says so (again, or now: step 5)
    void this.recover(i, t, killReason(why?.task), why?.err, true);
  }

  /** An error thrown outside any task in a worker (DESIGN.md "Stranded callbacks"): to the
   *  onError hook, else an unhandledRejection here, as a rejected Promise nobody awaits. */
  protected uncaught(err: Error): void {
    const hook = this.opts.onError;
    if (hook !== null) hook(err);
    else void Promise.reject(err);
  }

  /** Releases a root task's cancellation token and listeners, once its G is back. */
  protected cleanup(t: RootTask<unknown>): void {
    const f = this.cleanups.get(t);
    if (f !== undefined) { this.cleanups.delete(t); f(); }
  }

  /** Rejects every root Task still pending or deferred. */
  protected failAll(err: Error, quiet = false): void {
    for (const t of this.pending) if (t !== undefined) t.settle(false, err, quiet);
    this.pending = [];
    this.npending = 0;
  }

  /** The scheduler itself failed (an M loop error that is not a task's, or a replacement thread
   *  that would not start): fail everything pending. A crashed thread alone is recovered. */
  protected crash(err: Error): void {
    if (this.failure !== null) return;
    this.failure = err;
    this.output.wake(); // a close waiting for output goes on to its end
    this.failAll(err);
    for (const d of this.deferred) d.task.settle(false, err);
    this.deferred = [];
    // Nothing pending is left and nothing will run: the scheduler holds the process no more
    // (threads/keepalive.ts), or a program whose scheduler failed would never end (its threads
    // stay until close(); a thread asked for may never come).
    this.alive.end();
  }

  /** engine-spawn.ts: worker m acknowledged the shared buffers below id + 1. */
  protected abstract onShareAck(m: number, id: number): void;
}
