// What keeps the process alive (docs/DESIGN.md "What keeps the process alive"): an open
// scheduler holds the process only while it has work pending, as a Go program ends when main
// returns whatever its idle Ms do. The threads are ref'd while a root task is queued or running
// (and so while any task's timer or I/O is in flight: its root is pending) or while a task
// spawned by a finished root still runs; otherwise they are unref'd, and the main thread keeps
// no other handle (the pump's Atomics.waitAsync, the monitor's and schedtrace's timers never
// hold the process).
//
// Main thread only.

/** What the keep-alive needs of a thread (platform.ts ThreadHandle). */
export interface Refable {
  ref(): void;
  unref(): void;
}

export class KeepAlive {
  /** Threads start ref'd (a new Worker is), so the process waits for the start-up handshake. */
  private held = true;

  constructor(private readonly threads: () => ReadonlyArray<Refable | null | undefined>) {}

  /** Whether the threads hold the process now. */
  get holding(): boolean {
    return this.held;
  }

  /** Work is pending: the threads hold the process. Cheap when they already do (every spawn). */
  hold(): void {
    if (this.held) return;
    this.held = true;
    for (const t of this.threads()) t?.ref();
  }

  /** Nothing is pending: the threads no longer hold the process. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    for (const t of this.threads()) t?.unref();
  }

  /** A thread started now (a replacement, or an M started for a P without one) follows the
   *  current state: new threads are ref'd. */
  adopt(t: Refable): void {
    if (!this.held) t.unref();
  }
}
