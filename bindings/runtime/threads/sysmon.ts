// sysmon: the monitor that keeps a long task from stranding the work queued behind it
// (docs/DESIGN.md, "sysmon and handoff"; Go's sysmon, retake and handoffp).
//
// It runs on the main thread's timers, every handoffAfterMs / 2, and only reads shared words:
// each P's status and schedtick, the G its M is running (MR_CURG) and how many tasks that M has
// finished (MR_FINISHED), the queues' sizes. A P running a G whose (schedtick, finished) pair has
// not changed for handoffAfterMs is stuck in one task. (G ids alone would not do: a P's free-G
// cache hands the same few ids out again and again, and runnext Gs keep their slice's schedtick,
// so a busy fork-join P can show the same pair of tick and G twice, 10 ms apart.) When some P
// is stuck, work is queued (on a running P's ring or runnext, or a global queue), no P is idle
// to steal it and nobody spins, the monitor lends a spare P to an idle M (core.handoff): that M
// starts spinning and steals the stuck P's queue. Forks on a fork deque are not such work: their
// forker runs them at its join, and with no P idle a spare lent for them only adds a thread
// beyond procs on the CPUs (a CPU-bound fork-join with 10 ms leaves ran on 3 threads over 2
// cores); tasks in a ring may wait for the whole long task. Once fewer Ps are stuck than spares are out,
// one P goes back to the reserve: an idle one (core.pRetire), or, when none goes idle, a busy
// one given back by its M at the monitor's request (S_RT_GIVEBACK; the M calls core.pGiveBack at
// its next look, every 64 tasks), so a loan never keeps more threads running than procs for
// longer than the stuck task lasts. At most spareThreads spares are out at once; none is lent
// while a P is idle (it can steal). A P whose thread waits for a CPU makes no progress either: while
// more Ps are held by an M than the process has CPUs, up to that excess of the Ps that look stuck
// may only be descheduled, so only the stuck Ps beyond it count (a loan there adds one more
// thread to share the same CPUs: DESIGN.md "Scaling"). The spares lent are not counted in that
// excess: a loan puts a thread beyond the CPUs on purpose.
//
// Main thread only.

import {
  MR_CURG, MR_FINISHED, P_IDLE, P_M, P_RUNNEXT, P_SCHEDTICK, P_STATUS,
  S_NMIDLE, S_NMSPINNING, S_NPIDLE, S_RT_GIVEBACK, S_RT_NPRESERVE, S_RUNQ_SIZE, S_RUNQH_SIZE, S_RUNQL_SIZE,
  GIVEBACK_ASKED, GIVEBACK_NONE, GIVEBACK_TAKEN,
} from '../../../assembly/shared/layout.js';
import type { Core } from '../../core/core.js';
import type { Views } from '../memory/values.js';
import { mAddr, pAddr } from '../memory/mblock.js';
import { unrefTimer } from '../host/platform.js';

export class Sysmon {
  private readonly tick: Uint32Array;
  private readonly done: Float64Array;
  private readonly since: Float64Array;
  /** Spare Ps lent and not yet back in the reserve (an M may give one back on its own, when
   *  asked, so this reads the reserve's count). */
  get out(): number {
    return this.spares - Atomics.load(this.views.i32, S_RT_NPRESERVE >>> 2); // pairs with the reserve's stores under sched.lock
  }
  private timer: ReturnType<typeof setInterval> | null = null;

  /** Told of every loan, return and give-back request (the event trace's monitor track), when
   *  set; p is -1 for a request (the M that answers it records its park). */
  onEvent: ((name: 'handoff' | 'retire' | 'giveback', p: number) => void) | null = null;
  /** Whether any task is in flight; when none is and no spare is out, the timer stops (the
   *  engine starts it again at the next spawn), so an idle scheduler costs no wake-ups. */
  busy: () => boolean = () => true;
  /** Starts a thread for a loan that found no idle M (the engine's growM), when set. */
  startM: (() => void) | null = null;

  constructor(private readonly views: Views, private readonly core: Core, private readonly nprocs: number,
    private readonly spares: number, private readonly afterMs: number, private readonly clock: () => number,
    private readonly ncpu = Infinity) {
    this.tick = new Uint32Array(nprocs);
    this.done = new Float64Array(nprocs);
    this.since = new Float64Array(nprocs);
  }

  /** Starts the periodic check (an unref'd timer: it never keeps the process alive), unless it
   *  runs already. Cheap enough to call on every spawn. */
  start(): void {
    if (this.spares === 0 || this.timer !== null) return;
    this.done.fill(-1); // what the last watch saw is stale: every P starts a fresh window
    this.timer = unrefTimer(setInterval(() => this.check(), Math.max(1, this.afterMs >> 1)));
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Takes back the give-back request (ASKED to NONE). False when an M took it first (TAKEN):
   *  its P is going back to the reserve, and this tick must not move another. */
  private withdraw(): boolean {
    return Atomics.compareExchange(this.views.i32, S_RT_GIVEBACK >>> 2, GIVEBACK_ASKED, GIVEBACK_NONE) === GIVEBACK_ASKED; // pairs with the Ms' CAS in schedule
  }

  /** One look at every P; lends or retires at most one spare, or asks for one back. Returns
   *  what it did. */
  check(): 'lent' | 'retired' | 'asked' | null {
    const i32 = this.views.i32;
    // The request word first, then the reserve's count: an M's give-back ends with NONE, stored
    // after pGiveBack put its P in the reserve, so reading NONE here means `out` below sees it.
    // While an M gives its P back (TAKEN), `out` is about to drop: look again next tick.
    const request = Atomics.load(i32, S_RT_GIVEBACK >>> 2); // pairs with the M's CAS and store in schedule
    if (request === GIVEBACK_TAKEN) return null;
    const asked = request === GIVEBACK_ASKED;
    const out = this.out;
    if (out === 0 && !this.busy()) { this.stop(); return null; }
    const u32 = this.views.u32;
    const t = this.clock();
    let stuck = 0;
    let held = 0;
    let queued = Atomics.load(i32, S_RUNQ_SIZE >>> 2) > 0 || Atomics.load(i32, S_RUNQH_SIZE >>> 2) > 0 || // pairs with the size stores under sched.lock
      Atomics.load(i32, S_RUNQL_SIZE >>> 2) > 0; // the same
    for (let p = 0; p < this.nprocs; p++) {
      const pa = pAddr(this.views, p);
      if (Atomics.load(i32, (pa + P_STATUS) >>> 2) === P_IDLE) { this.done[p] = -1; continue; } // pairs with acquireP/stopM
      held++;
      const m = Atomics.load(i32, (pa + P_M) >>> 2) - 1; // pairs with acquireP's store
      const tick = Atomics.load(u32, (pa + P_SCHEDTICK) >>> 2); // pairs with execute's store
      const ma = m >= 0 ? mAddr(this.views, m) : 0;
      const g = m >= 0 ? Atomics.load(u32, (ma + MR_CURG) >>> 2) : 0; // pairs with the M's plain store in enter/leave; a stale value only delays
      const done = m >= 0 ? this.views.f64[(ma + MR_FINISHED) >>> 3] : -1; // the M's own counter: a stale value only delays
      if (g === 0 || tick !== this.tick[p] || done !== this.done[p]) {
        this.tick[p] = tick;
        this.done[p] = done;
        this.since[p] = t;
      } else if (t - this.since[p] >= this.afterMs) {
        stuck++;
      }
      if (!queued && (this.core.runqLen(p) > 0 || Atomics.load(u32, (pa + P_RUNNEXT) >>> 2) !== 0)) queued = true; // pairs with runqPut (not forkLen: see above)
    }
    // Ps that only wait for a CPU look stuck too: at most as many as the Ps held beyond the CPUs,
    // the loans aside (a loan itself puts a thread beyond them, on purpose).
    const crowd = Math.max(0, held - out - this.ncpu);
    const want = Math.min(Math.max(0, stuck - crowd), this.spares);
    const idle = Atomics.load(i32, S_NPIDLE >>> 2); // pairs with the npidle RMWs
    if (out > want) {
      if (idle > 0) {
        if (asked && !this.withdraw()) return null; // an M took the request first: its P is the one going back
        const p = this.core.pRetire();
        if (p >= 0) { this.onEvent?.('retire', p); return 'retired'; }
        return null;
      }
      if (!asked) {
        // No P goes idle: the next M to look between two tasks gives its own P back.
        Atomics.store(i32, S_RT_GIVEBACK >>> 2, GIVEBACK_ASKED); // NONE before (read above; only the monitor sets ASKED): pairs with the Ms' load and CAS
        this.onEvent?.('giveback', -1);
        return 'asked';
      }
      return null;
    }
    if (asked && !this.withdraw()) return null; // stuck again meanwhile, keep the spare; unless an M took the request first
    if (out < want && queued && idle === 0 && Atomics.load(i32, S_NMSPINNING >>> 2) === 0 && // pairs with the nmspinning RMWs
      Atomics.load(i32, S_RT_NPRESERVE >>> 2) > 0) { // pairs with the reserve's stores under sched.lock
      const p = this.core.handoff();
      if (p >= 0) { this.onEvent?.('handoff', p); return 'lent'; }
      // No idle M to lend the spare to: the spares' threads idled out (DESIGN.md "Threads that
      // come and go"). Start one; the next tick lends it the spare.
      if (Atomics.load(i32, S_NMIDLE >>> 2) === 0) this.startM?.(); // pairs with the idle-M list's stores under sched.lock
    }
    return null;
  }
}
