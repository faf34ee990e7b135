// The park word (docs/DESIGN.md "The park word"): how a worker M without a P sleeps, and every
// way it is woken. One i32 per M slot (M_PARK), a set of PARK_* bits:
//
//   writers (set a bit, then notify)
//     PARK_P      the core's wakep (assembly/sched.ts, twin bindings/core/ts/sched.ts) and
//                 the monitor's handoff (assembly/sysmon.ts, twin bindings/core/ts/sysmon.ts):
//                 a P was handed over in M_NEXTP
//     PARK_INBOX  wakeInbox, after pushInbox (inbox.ts): finished Gs for this M's waiters
//     PARK_MSG    wakeForMessage, from the main thread's deliverShares (engine-spawn.ts): a shared
//                 buffer's message waits for a turn of this M's event loop
//     PARK_STOP   stopAll, from the main thread's close (engine.ts), after S_RT_STOP
//     PARK_ROOM   the M itself, from a settling async task's continuation: a blocked M
//                 (core handoffP) has room again, and its sleep puts it back on the idle list
//   reader (swap the word to 0, act on every bit seen, then wait on 0)
//     the M's own ladders here (Parker: sleepSync, sleepAsync); the main thread (M0) only
//     swaps and waits for its inbox (engine-pump.ts's pump, through parkSwap and parkWaitAsync)
//
// No wake-up is lost: every writer sets its bit before it notifies, and the reader swaps the
// word to 0 and looks at every bit before each wait on 0; a notify that comes before the wait
// finds the word non-zero, so the wait returns at once. No wait here is bounded.

import {
  M_PARK, MR_SPIN_RUNGS, MS_SLEEP, MS_SLEEP_ASYNC, MS_YIELD, PARK_INBOX, PARK_MSG, PARK_P, PARK_STOP, S_RT_STOP,
} from '../../../assembly/shared/layout.js';
import { mAddr } from '../memory/mblock.js';
import { parkSpin, parkSpinLeave } from './parkspin.js';
import { macrotask, now, pendingCallbacks } from '../host/platform.js';
import type { Views } from '../memory/values.js';

/**
 * The CPU's spin-wait hint for a poll rung (x86 PAUSE, Arm YIELD): Atomics.pause where the engine
 * has it (Node 24+, Deno, Bun, Chromium 133+, Firefox 137+, Safari 18.4+), else null (Node 20
 * and 22), where a poll runs without it. It tells the core that this thread spins, so a sibling
 * hyper-thread gets the pipeline and leaving the loop costs no memory-order mis-speculation; it
 * does not yield the CPU. Kept after measuring: bench/spin-pause.mjs, docs/performance.md "The
 * spin-wait hint". Called without its iteration argument: one hint per poll on every engine.
 * Looked up once per thread (a worker has its own Atomics).
 */
const spinPause = (Atomics as { pause?: () => void }).pause ?? null;

/** The i32 index of M m's park word. Any thread. */
export function parkWord(views: Views, m: number): number {
  return (mAddr(views, m) + M_PARK) >>> 2;
}

/** pushInbox's half: finished Gs wait in M m's inbox. Notifies only when the bit was clear: a
 *  set bit means a swap, and so a drain, is still to come. Any thread. */
export function wakeInbox(views: Views, m: number): void {
  const i32 = views.i32;
  const w = parkWord(views, m);
  const old = Atomics.or(i32, w, PARK_INBOX); // pairs with the reader's exchange in parkSwap
  if ((old & PARK_INBOX) === 0) Atomics.notify(i32, w, 1); // pairs with the reader's wait on 0
}

/** deliverShares: a message with shared buffers was posted to M m; it takes a turn of its event
 *  loop. Main thread. */
export function wakeForMessage(views: Views, m: number): void {
  const i32 = views.i32;
  const w = parkWord(views, m);
  Atomics.or(i32, w, PARK_MSG); // pairs with the reader's exchange in parkSwap
  Atomics.notify(i32, w); // pairs with the reader's wait on 0
}

/** close: every worker M (1..nms-1) stops. S_RT_STOP first, so an M woken for another reason
 *  sees it too (stopped()). Main thread. */
export function stopAll(views: Views, nms: number): void {
  const i32 = views.i32;
  Atomics.store(i32, S_RT_STOP >>> 2, 1); // pairs with the load in stopped()
  for (let m = 1; m < nms; m++) {
    const w = parkWord(views, m);
    Atomics.or(i32, w, PARK_STOP); // pairs with the reader's exchange in parkSwap
    Atomics.notify(i32, w); // pairs with the reader's wait on 0
  }
}

/** Has the scheduler stopped (stopAll)? Any thread. */
export function stopped(i32: Int32Array): boolean {
  return Atomics.load(i32, S_RT_STOP >>> 2) !== 0; // pairs with stopAll's store
}

/** The reader's swap: takes every bit set since the last swap. The word's owner only. */
export function parkSwap(i32: Int32Array, w: number): number {
  return Atomics.exchange(i32, w, 0); // pairs with wakep's or and the writers above
}

/** Waits, without blocking the event loop, until a writer notifies (resolves at once when the
 *  word is not 0 any more). Unbounded. The word's owner only. */
export function parkWaitAsync(i32: Int32Array, w: number): Promise<unknown> | null {
  const r = Atomics.waitAsync(i32, w, 0); // pairs with the notify of every writer above and wakep's
  return r.async ? r.value : null;
}

/** What the ladders need of the sleeping M (bindings/runtime/threads/m.ts). */
export interface Sleeper {
  readonly views: Views;
  /** Async tasks or awaited results pending on this M: the sleep needs the event loop. */
  pendingWork(): boolean;
  /** Tasks ran since this M's event loop last turned (DESIGN.md "Stranded callbacks"). */
  dirty: boolean;
  /** Writes MR_STATE (MS_*). */
  state(s: number): void;
  /** The scheduler stopped: the loop ends. */
  stop(): void;
  /** Slept idle for idleTimeout: true when this M leaves the scheduler (mExit; the loop ends
   *  and the thread with it), false when it stays (the minimum, or a P is on its way). */
  idleOut(): boolean;
  /** Settles the waiters whose results are in the inbox, if any. */
  drainInbox(): void;
  /** PARK_P: takes the P wakep handed over (acquireP). */
  acquire(): void;
  /** PARK_ROOM: a blocked M with room again goes back on the idle list; true when it took an
   *  idle P there (acquire it as after PARK_P). Cheap when not blocked: asked at every look. */
  unblock(): boolean;
  /** Turns the event loop until every announced shared buffer is received. */
  receiveShares(): Promise<void>;
}

/**
 * The sleep of a worker M without a P: until a P is handed over (PARK_P), or the scheduler
 * stops. The ladder: spinLimit polls, then yieldLimit waits of 1 us (a way of yielding the CPU,
 * not a deadline), then an unbounded Atomics.wait; with async work pending on the M,
 * Atomics.waitAsync, so its I/O still completes. The polls and short waits are taken only while
 * a CPU is free for them (parkspin.ts); otherwise the M goes to its deep wait at once. Results
 * for the M's waiters (PARK_INBOX) are delivered on the way, without ending the sleep. The
 * owning M only.
 */
export class Parker {
  private readonly m: Sleeper;
  private readonly word: number;
  private readonly spinLimit: number;
  private readonly yieldLimit: number;
  /** The CPUs this process may use: the polls and short waits only while one is free. */
  private readonly ncpu: number;
  /** The i32 index of this M's block (parkspin.ts's MR_PARKSPIN). */
  private readonly mw: number;
  /** This sleep has left the poll and short-wait rungs for good (the CPUs were taken). */
  private deep = false;
  /** The deep wait's bound in a sleep that may still end the thread (Infinity: never). */
  private readonly idleTimeout: number;
  /** This sleep has tried mExit already (it tries once: then the M stays for good, or until a
   *  P wakes it). */
  private triedExit = false;

  constructor(m: Sleeper, mid: number, spinLimit: number, yieldLimit: number, idleTimeout = Infinity, ncpu = Infinity) {
    this.m = m;
    this.word = parkWord(m.views, mid);
    this.mw = mAddr(m.views, mid) >>> 2;
    this.ncpu = ncpu;
    // A thread that replaced one killed from outside on the rungs takes its count off them.
    parkSpinLeave(m.views.i32, this.mw);
    this.spinLimit = spinLimit;
    this.yieldLimit = yieldLimit;
    this.idleTimeout = idleTimeout;
  }

  /** Sleeps; null when it slept and woke synchronously, the common case (nothing async on
   *  this M), so a woken M goes straight back to its loop without a turn through promises.
   *  Otherwise a promise of the rest of the sleep. `idle` gets the time slept (ms). */
  sleep(idle: (ms: number) => void): Promise<void> | null {
    const t0 = now();
    this.triedExit = false;
    this.deep = false;
    const woken = this.sleepSync();
    parkSpinLeave(this.m.views.i32, this.mw); // every way out counts this M off the rungs (idempotent)
    if (woken) {
      idle(now() - t0);
      return null;
    }
    this.deep = false;
    return this.sleepAsync().finally(() => {
      parkSpinLeave(this.m.views.i32, this.mw);
      idle(now() - t0);
    });
  }

  /**
   * The ladder without the event loop: true when woken (holding a P, or stopping); false as soon
   * as the sleep needs the event loop (async tasks or waiters pending on this M, or a shared
   * buffer to receive), with the park word's bits left for sleepAsync.
   */
  private sleepSync(): boolean {
    const m = this.m;
    const i32 = m.views.i32;
    const w = this.word;
    let rung = 0;
    for (;;) {
      if (m.pendingWork()) return false;
      const x = parkSwap(i32, w);
      if ((x & PARK_MSG) !== 0) {
        Atomics.or(i32, w, x); // back for sleepAsync, which swaps first (no notify needed): pairs with its parkSwap
        return false;
      }
      if (this.woke(x)) return true;
      // Before a deep sleep, callbacks the tasks left (a timer, a promise reaction) get the event
      // loop: sleepAsync takes a turn first and does not block while they are pending.
      const spin = this.spinRung(i32, rung);
      if (!spin && (m.dirty || pendingCallbacks())) {
        return false; // woke(x) acted on the bits seen already
      }
      if (this.rung(i32, rung++, spin)) return true; // idled out: the loop ends
    }
  }

  /** sleepSync's ladder for when the event loop must turn: shared buffers to receive, or async
   *  tasks and waiters pending (Atomics.waitAsync). */
  private async sleepAsync(): Promise<void> {
    const m = this.m;
    const i32 = m.views.i32;
    const w = this.word;
    let rung = 0;
    for (;;) {
      const x = parkSwap(i32, w);
      if ((x & PARK_MSG) !== 0) {
        // Stop first, as in woke(); then the buffers, before woke() drains the inbox (a result
        // may hold one of them) and takes the P.
        if (stopped(i32)) { m.stop(); return; }
        await m.receiveShares();
        // A turn of the event loop for the message itself: a broadcast (tasks/broadcast.ts)
        // posts no shared buffer, so receiveShares may return without one.
        await macrotask();
      }
      if (this.woke(x)) return;
      if (m.dirty) {
        // A turn of the event loop for what the tasks left behind: microtasks, immediates and
        // due timers run now, not inside a later unrelated task.
        m.dirty = false;
        m.state(MS_YIELD);
        await macrotask();
        continue;
      }
      if (m.pendingWork() || pendingCallbacks()) {
        m.state(MS_SLEEP_ASYNC);
        const p = parkWaitAsync(i32, w); // settles run meanwhile
        if (p !== null) await p;
        continue;
      }
      const spin = this.spinRung(i32, rung);
      if (this.rung(i32, rung++, spin)) return; // idled out: the loop ends
    }
  }

  /**
   * Is rung k a poll or a short wait? The first spinLimit rungs are polls and the next yieldLimit
   * short waits, each taken only while a CPU is free for it (parkSpin, which counts this M on the
   * rungs); from the first refusal on, the sleep goes to its deep wait.
   */
  private spinRung(i32: Int32Array, k: number): boolean {
    if (!this.deep && k < this.spinLimit + this.yieldLimit && parkSpin(i32, this.mw, this.ncpu)) return true;
    this.deep = true;
    return false;
  }

  /**
   * Rung k of the ladder: a poll (with the spin-wait hint, spinPause) or a wait of 1 us when
   * `spin` (spinRung), else an unbounded Atomics.wait (see the head of this file: no wake-up is
   * lost). The first deep wait of a sleep is bounded by idleTimeout when the M may end its
   * thread: if nothing woke it by then, it asks the core to leave (mExit). The bound is the idle
   * policy, not a guard against a lost wake-up: a writer's bit still ends the wait at once. True
   * when the M leaves the scheduler.
   */
  private rung(i32: Int32Array, k: number, spin: boolean): boolean {
    this.m.state(MS_SLEEP);
    if (spin) {
      this.m.views.f64[(this.mw * 4 + MR_SPIN_RUNGS) >>> 3]++; // owner only: stats' spinRungs
      if (k < this.spinLimit) {
        spinPause?.(); // a poll: the hint, then the next look at the word
        return false;
      }
      Atomics.wait(i32, this.word, 0, 0.001); // pairs with the notify of every writer and wakep's
      return false;
    }
    parkSpinLeave(i32, this.mw); // off the rungs before the deep wait
    if (!this.triedExit && this.idleTimeout !== Infinity) {
      this.triedExit = true;
      // pairs with the notify of every writer and wakep's; 'timed-out' only when no bit was set
      if (Atomics.wait(i32, this.word, 0, this.idleTimeout) === 'timed-out' && this.m.idleOut()) return true;
      return false; // woken, or staying: the swap at the top of the ladder looks at the bits
    }
    Atomics.wait(i32, this.word, 0, Infinity); // pairs with the notify of every writer and wakep's
    return false;
  }

  /** The park word's bits x (PARK_MSG aside) after a swap: true when the sleep is over. */
  private woke(x: number): boolean {
    const m = this.m;
    if (stopped(m.views.i32)) { m.stop(); return true; }
    m.drainInbox(); // PARK_INBOX or not: the inbox itself says (a push sets the bit after)
    // PARK_ROOM or not: the M's own count says (it sets the bit after the count changed).
    if ((x & PARK_P) === 0 && !m.unblock()) return false;
    m.acquire();
    return true;
  }
}
