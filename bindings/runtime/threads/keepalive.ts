// What keeps the process alive (docs/DESIGN.md "What keeps the process alive"): an open
// scheduler holds the process only while it has something pending, as a Go program ends when
// main returns whatever its idle Ms do. This object is the one owner of that rule: every reason
// to hold the process is a hold here, and the process is held exactly while one is open.
//   work    a root task queued or running (and so any task's timer or I/O in flight: its root is
//           pending), a task spawned by a finished root still running, or the start-up's
//           handshakes (threads start ref'd); the engine's spawn holds it, its idle look releases
//   start   a thread asked for and not yet up (startm, a crashed thread's successor)
//   resize  a sched.resize whose promise has not settled
//   close   a close under way, until its threads are gone (then `end`)
// A scheduler that failed (engine-threads.ts crash: every pending task failed with it) ends
// every hold too: nothing will run, and its program must still end by itself.
// While one is open, every thread is ref'd and the keeper's own handle (a ref'd timer that never
// fires) holds the event loop: so the process stays up also when no thread is alive at that
// moment (every thread idled out with a root queued, a thread's end before its successor's
// start). Otherwise both are unref'd/cleared, and the main thread keeps no other handle (the
// pump's Atomics.waitAsync, the monitor's and schedtrace's timers never hold the process).
//
// Main thread only.

/** What the keep-alive needs of a thread (platform.ts ThreadHandle). */
export interface Refable {
  ref(): void;
  unref(): void;
}

/** Why the process is held (the table above). */
export type HoldReason = 'start' | 'resize' | 'close';

/** The handle's period: longer than any program waits, below setInterval's 2^31 - 1 ms bound. */
const NEVER_MS = 2 ** 30;

export class KeepAlive {
  /** The 'work' hold: a flag, not a count (spawn opens it on every root, cheaply). Threads start
   *  ref'd (a new Worker is), so the process waits for the start-up handshake. */
  private work = true;
  /** The counted holds. */
  private readonly counts: Record<HoldReason, number> = { start: 0, resize: 0, close: 0 };
  /** Whether the threads are ref'd (and the handle set, once a thread was ever unref'd). */
  private held = true;
  private handle: ReturnType<typeof setInterval> | null = null;
  /** Set by end(): the scheduler is gone, nothing holds the process any more. */
  private ended = false;

  constructor(private readonly threads: () => ReadonlyArray<Refable | null | undefined>) {}

  /** Whether the process is held now. */
  get holding(): boolean {
    return this.held;
  }

  /** Work is pending. Cheap when it already is (every spawn). */
  hold(): void {
    if (this.work) return;
    this.work = true;
    this.sync();
  }

  /** No work is pending (the idle look found every task finished). */
  release(): void {
    if (!this.work) return;
    this.work = false;
    this.sync();
  }

  /** Opens one hold of `why`; each is closed by one `releaseFor(why)`. */
  holdFor(why: HoldReason): void {
    this.counts[why]++;
    this.sync();
  }

  releaseFor(why: HoldReason): void {
    if (this.counts[why] > 0) this.counts[why]--;
    this.sync();
  }

  /** The scheduler's threads are gone (close done, or a failed start): nothing holds any more. */
  end(): void {
    this.ended = true;
    this.sync();
  }

  /** A thread started now (a replacement, or an M started for a P without one) follows the
   *  current state: new threads are ref'd. */
  adopt(t: Refable): void {
    if (!this.held) t.unref();
  }

  private sync(): void {
    const c = this.counts;
    const want = !this.ended && (this.work || c.start !== 0 || c.resize !== 0 || c.close !== 0);
    if (want && this.handle === null) this.handle = setInterval(noop, NEVER_MS);
    if (!want && this.handle !== null) { clearInterval(this.handle); this.handle = null; }
    if (want === this.held) return;
    this.held = want;
    for (const t of this.threads()) if (want) t?.ref(); else t?.unref();
  }
}

function noop(): void {}
