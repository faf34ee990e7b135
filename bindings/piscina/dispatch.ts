// piscina's dispatch, kept as bookkeeping (DESIGN.md "The piscina entry"): which runs piscina
// would have posted to a worker, and which it would hold in its queue. Nothing here moves a task:
// the scheduler's threads take the runs from shared queues, in their own order. What piscina
// reports from its dispatch is computed from this ledger as piscina computes it from its own:
// `queueSize`, `idleThreads`, `needsDrain` and 'drain', which runs a forced close lets finish
// (the dispatched ones), when a worker is added (a run that finds no worker free), and the calls
// of a `loadBalancer` option.
//
// The rules are piscina 5's: a run goes to the queue when the queue is not empty, else to the
// worker the balancer picks among the ready ones (the least busy below concurrentTasksPerWorker;
// a run with a signal only to an idle worker, and a worker running one takes nothing else), else
// to the queue's tail (a run with a signal to the skip queue, which is served first); when a
// dispatched run settles or a worker becomes ready, queued runs are dispatched again in order.
// A ledger worker is a pool thread once it loaded the file (piscina's ready worker; the
// constructor's are ready at once). A run settled before the ledger dispatched it (a thread took
// it early) leaves the queue where it is: it is skipped when its turn comes.
//
// Main thread only.

/** What a `loadBalancer` option is given for a run: piscina's task interface. */
export interface BalancerTask {
  /** piscina's number for the task, counted per pool. */
  readonly taskId: number;
  /** The worker file that runs it. */
  readonly filename: string;
  /** The export of that file that runs it. */
  readonly name: string;
  /** When `run()` made it: `performance.now()`, in ms. */
  readonly created: number;
  /** True when its run was given a signal. */
  readonly isAbortable: boolean;
}

/** A custom balancer (piscina's `loadBalancer` option): a worker of the list, or null. */
export type Balancer = (task: BalancerTask, workers: readonly unknown[]) => unknown;

/** One run, from `run()` to its settlement. */
export class LedgerRun {
  /** The ledger worker piscina would have posted it to; null while queued or settled. */
  worker: LedgerWorker | null = null;
  /** Its neighbours on its worker's list of runs (an intrusive list: no Set per run). */
  prev: LedgerRun | null = null;
  next: LedgerRun | null = null;
  /** In a queue (possibly settled since: then skipped when its turn comes). */
  queued = false;
  settled = false;
  /** The G the scheduler runs it as, once spawned (0 until then). */
  g = 0;
  /** The task interface a custom balancer is given (made on first use). */
  task: BalancerTask | null = null;
  /** A run with a signal that found no worker is held on the main thread until the ledger
   *  dispatches it (piscina runs it alone on a worker; here, it reaches the scheduler only
   *  when piscina would have posted it): how to launch it then, or fail it instead. */
  held: { launch(): void; fail(e: unknown): void } | null = null;
  /** `name`: the export it runs; `created`: performance.now() at run(), or 0 when no custom
   *  balancer will ask (a custom balancer's task interface says both). */
  constructor(readonly abortable: boolean, readonly name: string, readonly created: number) {}
}

/** A ready pool thread, as piscina's worker: the runs it would have been posted. */
export class LedgerWorker {
  /** The runs posted to it, newest first (linked through LedgerRun.prev/next). */
  head: LedgerRun | null = null;
  /** How many. */
  size = 0;
  /** Of those, the ones with a signal. */
  abortable = 0;
  /** Its thread left the pool: it takes no new run, and goes when its runs settle. */
  gone = false;
  /** `info` is what a custom balancer is given and returns (piscina's worker interface). */
  constructor(readonly info: unknown) {}

  /** piscina's currentUsage: the runs posted to it, Infinity while it runs one with a signal. */
  get usage(): number {
    return this.runningAbortable ? Infinity : this.size;
  }

  /** piscina's isRunningAbortableTask: its one run has a signal. */
  get runningAbortable(): boolean {
    return this.size === 1 && this.abortable === 1;
  }

  add(r: LedgerRun): void {
    r.worker = this;
    r.prev = null;
    r.next = this.head;
    if (this.head !== null) this.head.prev = r;
    this.head = r;
    this.size++;
    if (r.abortable) this.abortable++;
  }

  remove(r: LedgerRun): void {
    if (r.prev !== null) r.prev.next = r.next; else this.head = r.next;
    if (r.next !== null) r.next.prev = r.prev;
    r.prev = r.next = null;
    r.worker = null;
    this.size--;
    if (r.abortable) this.abortable--;
  }
}

/** A FIFO of runs: an array and a head index, compacted as it drains (piscina's queue has a
 *  push, a shift and an unshift). */
class RunQueue {
  private items: LedgerRun[] = [];
  private head = 0;
  push(r: LedgerRun): void { this.items.push(r); }
  unshift(r: LedgerRun): void {
    if (this.head > 0) this.items[--this.head] = r;
    else this.items.unshift(r);
  }
  shift(): LedgerRun | undefined {
    if (this.head === this.items.length) return undefined;
    const r = this.items[this.head++];
    if (this.head === this.items.length) { this.items = []; this.head = 0; } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return r;
  }
  /** Every run in it, in order. */
  *[Symbol.iterator](): IterableIterator<LedgerRun> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i];
  }
  clear(): void { this.items = []; this.head = 0; }
}

/** What the ledger asks of the pool. */
export interface LedgerHost {
  /** Threads in the pool now, those still starting included (piscina's workers.size). */
  threadCount(): number;
  /** Starts one more thread now, as piscina adds a worker; false when none could start. */
  addThread(): boolean;
}

export class Ledger {
  /** Ready workers, in the order they became ready (piscina's set), gone ones until empty. */
  private readonly workers: LedgerWorker[] = [];
  private readonly taskQueue = new RunQueue();
  private readonly skipQueue = new RunQueue();
  /** Unsettled runs in taskQueue (piscina's taskQueue.size) and in skipQueue. */
  private taskQueued = 0;
  private skipQueued = 0;
  private readonly byInfo = new Map<unknown, LedgerWorker>();
  private taskIds = 0;
  /** Dispatching queued runs now (a run's settlement inside it must not start another pass). */
  private dispatching = false;

  constructor(
    private readonly host: LedgerHost,
    private readonly maxThreads: number,
    private readonly perWorker: number,
    /** A custom balancer (the loadBalancer option), or null for piscina's least busy. */
    readonly balancer: Balancer | null,
    private readonly stricterFIFO: boolean,
    private readonly taskInfo: (run: LedgerRun, id: number) => BalancerTask,
  ) {}

  /** Runs in the queues, not settled (piscina's taskQueue.size + skipQueue.length). */
  get queued(): number {
    return this.taskQueued + this.skipQueued;
  }

  /** piscina's taskQueue.size: what its maxQueue check counts. */
  get taskQueueSize(): number {
    return this.taskQueued;
  }

  /** piscina's workers.getCurrentUsage(): the runs posted to ready workers, those running one
   *  with a signal not counted. */
  get usage(): number {
    let n = 0;
    for (const w of this.workers) { const u = w.usage; if (u !== Infinity) n += u; }
    return n;
  }

  /** Ready workers with no run posted (piscina's idleThreads). */
  get idle(): number {
    let n = 0;
    for (const w of this.workers) if (!w.gone && w.size === 0) n++;
    return n;
  }

  /** Ready workers (gone ones not counted). */
  get ready(): number {
    let n = 0;
    for (const w of this.workers) if (!w.gone) n++;
    return n;
  }

  /** Every dispatched run not settled: those a forced close lets finish. */
  dispatched(): LedgerRun[] {
    const out: LedgerRun[] = [];
    for (const w of this.workers) for (let r = w.head; r !== null; r = r.next) out.push(r);
    return out;
  }

  /** A new run: dispatched or queued as piscina's runTask does; true when dispatched. A run
   *  that waits adds a thread while the pool has fewer than maxThreads. */
  submit(run: LedgerRun): boolean {
    if (this.taskQueued > 0) {
      this.enqueue(run, true);
      this.grow();
      return false;
    }
    if (this.distribute(run)) return true;
    this.grow();
    return false;
  }

  /** Run settled (a result, an error, an abort): off its worker, whose room goes to the queue. */
  settle(run: LedgerRun): void {
    if (run.settled) return;
    run.settled = true;
    if (run.queued) {
      if (run.abortable) this.skipQueued--; else this.taskQueued--;
      return;
    }
    const w = run.worker;
    if (w === null) return;
    w.remove(run);
    if (w.gone) {
      if (w.size === 0) this.drop(w);
      return;
    }
    if (w.usage < this.perWorker) this.dispatchQueued();
  }

  /** A thread became ready (loaded the file; the constructor's at once): a worker for runs.
   *  `available()` then gives it the queued ones. */
  addWorker(info: unknown): LedgerWorker {
    const w = new LedgerWorker(info);
    this.workers.push(w);
    this.byInfo.set(info, w);
    return w;
  }

  /** A worker is ready or has room: the queued runs are dispatched again (piscina's
   *  _onWorkerAvailable). */
  available(): void {
    this.dispatchQueued();
  }

  /** A thread left the pool: its worker takes nothing more, and goes once its runs settle
   *  (the scheduler runs them elsewhere or fails them). */
  removeWorker(info: unknown): void {
    const w = this.byInfo.get(info);
    if (w === undefined) return;
    this.byInfo.delete(info);
    w.gone = true;
    if (w.size === 0) this.drop(w);
  }

  /** The queues' unsettled runs, taken out (a forced close fails them; a held one is failed
   *  here with `heldError`). */
  takeQueued(heldError: () => unknown): LedgerRun[] {
    const out: LedgerRun[] = [];
    for (const q of [this.skipQueue, this.taskQueue]) {
      for (const r of q) if (!r.settled) { r.queued = false; out.push(r); }
      q.clear();
    }
    this.taskQueued = 0;
    this.skipQueued = 0;
    for (const r of out) {
      const held = r.held;
      if (held !== null) { r.held = null; held.fail(heldError()); }
    }
    return out;
  }

  /** Forgets every worker and run (destroy); a held run fails with `heldError`. */
  clear(heldError: () => unknown): void {
    this.takeQueued(heldError);
    for (const w of this.workers) while (w.head !== null) w.remove(w.head);
    this.workers.length = 0;
    this.byInfo.clear();
  }

  private drop(w: LedgerWorker): void {
    const i = this.workers.indexOf(w);
    if (i !== -1) this.workers.splice(i, 1);
  }

  private grow(): void {
    if (this.host.threadCount() < this.maxThreads) this.host.addThread();
  }

  /** piscina's _onWorkerAvailable: queued runs, the skip queue first, to the workers while the
   *  balancer finds one; a run it finds none for adds a thread while there is room for one. */
  private dispatchQueued(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.queued > 0) {
        const run = this.shiftQueued();
        if (run === undefined) break;
        if (this.distribute(run)) continue;
        if (this.host.threadCount() < this.maxThreads && this.host.addThread()) continue;
        break;
      }
    } finally {
      this.dispatching = false;
    }
  }

  private shiftQueued(): LedgerRun | undefined {
    for (;;) {
      const r = this.skipQueue.shift() ?? this.taskQueue.shift();
      if (r === undefined) return undefined;
      r.queued = false;
      if (r.settled) continue;
      if (r.abortable) this.skipQueued--; else this.taskQueued--;
      return r;
    }
  }

  /** piscina's _distributeTask: to the balancer's pick among the ready workers, or back to a
   *  queue's tail (its head with stricterFIFO). */
  private distribute(run: LedgerRun): boolean {
    const w = this.balancer === null ? this.leastBusy(run) : this.custom(run);
    if (w !== null) {
      w.add(run);
      const held = run.held;
      if (held !== null) { run.held = null; held.launch(); }
      return true;
    }
    this.enqueue(run, !this.stricterFIFO);
    return false;
  }

  private enqueue(run: LedgerRun, toTail: boolean): void {
    run.queued = true;
    const q = run.abortable ? this.skipQueue : this.taskQueue;
    if (toTail) q.push(run); else q.unshift(run);
    if (run.abortable) this.skipQueued++; else this.taskQueued++;
  }

  /** piscina's LeastBusyBalancer: an idle worker at once; else, for a run without a signal, the
   *  least busy one below perWorker that is not running a run with a signal. */
  private leastBusy(run: LedgerRun): LedgerWorker | null {
    let candidate: LedgerWorker | null = null;
    let checkpoint = this.perWorker;
    for (const w of this.workers) {
      if (w.gone) continue;
      const u = w.usage;
      if (u === 0) return w;
      if (w.runningAbortable) continue;
      if (!run.abortable && u < checkpoint) { candidate = w; checkpoint = u; }
    }
    return candidate;
  }

  private custom(run: LedgerRun): LedgerWorker | null {
    run.task ??= this.taskInfo(run, ++this.taskIds);
    const infos: unknown[] = [];
    for (const w of this.workers) if (!w.gone) infos.push(w.info);
    const picked = this.balancer!(run.task, infos);
    if (picked === null || picked === undefined) return null;
    return this.byInfo.get(picked) ?? null; // piscina ignores a pick that is none of its workers
  }
}
