// How many async tasks an M keeps in flight before it leaves queued work to other Ms (docs/
// DESIGN.md "Async tasks: where they start"). A task's continuation runs on the thread whose heap
// holds it, so a thread that starts many async tasks later runs all their continuations itself:
// async work is spread over the threads only at its start. The limit is the option's number, or,
// with 'auto', it follows how busy the thread's event loop is while the M is blocked at its limit
// (it then runs nothing but its tasks' continuations and their I/O callbacks):
//   - A sample runs from the block to the first settle, or, when nothing settles (tasks that
//     wait long), for a few times as long as a settle usually takes here: a sample cut before
//     the tasks' continuations ran would see only their wait. Its utilisation is the time the loop was held over the sample's
//     length; the time held is measured by a timer re-armed every SAMPLE_MS: a timer due at d
//     that fires at d + late found the loop held for `late` ms (every engine has this; Node's
//     event-loop utilisation has no counterpart on Deno or Bun).
//   - At most GROW_AT busy: the tasks wait on I/O, timers or other threads; the limit grows by
//     one, up to AUTO_MAX, so I/O-bound tasks stay concurrent. With the limit in flight, each
//     settle ends a sample: it doubles about every round trip of the tasks, as TCP's window
//     does, and a burst of cheap tasks settling does not raise it far ahead of what the
//     continuations of the costly ones will show.
//     It grows only while the process left at least one CPU idle over the sample (its CPU time,
//     all threads, against ncpu x the sample): a task started here can only add throughput if
//     a CPU is free to run its continuation. When the other threads keep every CPU busy, another
//     task in flight here only waits, holding what it read (a file's bytes: 100 tasks that read
//     16 MB and hash it held two or three files per thread where piscina holds one); the limit
//     then stays where it is. Where no process CPU time is to be had (browsers), it grows on
//     the loop's measure alone.
//   - At least SHRINK_AT: the continuations compute; the limit halves, down to 1, so CPU work
//     after an await goes to the other threads, and what a task holds across its await (a
//     file's bytes, a response body) is held by as few tasks as there are threads.
// The timer is a sampling period of the policy, never a bound that correctness waits on: a
// blocked M comes back when one of its tasks settles, whatever the timer does.
//
// Who may call: the owning M's thread only.

import { now, processCPU, unrefTimer } from '../host/platform.js';
import type { Views } from '../memory/values.js';

/** The most async tasks in flight per thread that 'auto' reaches. */
export const AUTO_MAX = 256;
/** The sampling timer's period while blocked (ms). */
const SAMPLE_MS = 5;
/** A sample with nothing settled ends after PATIENCE x the usual wait for a settle (an average
 *  over the samples a settle ended), within these bounds (ms); PATIENCE_FIRST_MS before any. */
const PATIENCE = 4;
const PATIENCE_MIN_MS = 50;
const PATIENCE_MAX_MS = 1000;
const PATIENCE_FIRST_MS = 200;
/** A sample shorter than this says nothing (ms): a task that settled at once. */
const MIN_SAMPLE_MS = 1;
/** At or below this share of a sample busy, 'auto' raises the limit by one. */
const GROW_AT = 0.25;
/** At or above it, 'auto' halves the limit. */
const SHRINK_AT = 0.75;

export class Admission {
  /** Async tasks (not waiting for a child) this M keeps in flight now (set through setLimit). */
  limit = 1;
  private readonly auto: boolean;
  /** Tells the M that the limit grew while it is blocked (mstate.ts roomCheck). */
  private readonly grew: () => void;
  /** Where stats read the limit: MR_ASYNC_LIMIT's u32 index in the M's block. */
  private readonly views: Views;
  private readonly word: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the armed timer is due (now()). */
  private due = 0;
  /** The sample's start and the time the loop was found held since (ms). */
  private t0 = 0;
  private held = 0;
  /** The average wait from a block to the settle that ended it (ms), 0 before the first. */
  private settleWait = 0;
  /** The process's CPU time (ms, every thread) at the sample's start; NaN where there is none. */
  private cpu0 = NaN;
  /** The CPUs this process may use. */
  private readonly ncpu: number;

  /** `option`: the asyncPerThread option, a number (fixed) or 'auto' (starting at 1); `ncpu`:
   *  the CPUs the process may use (MConfig.ncpu). */
  constructor(option: number | 'auto', grew: () => void, views: Views, word: number, ncpu: number) {
    this.auto = option === 'auto';
    this.ncpu = ncpu;
    this.grew = grew;
    this.views = views;
    this.word = word;
    this.setLimit(option === 'auto' ? 1 : option);
  }

  private setLimit(n: number): void {
    this.limit = n;
    this.views.u32[this.word] = n === Infinity ? 0xffffffff : n; // owner only; stats read it (a snapshot)
  }

  /** The M reached its limit and handed its P off: a sample begins ('auto'). */
  blocked(): void {
    if (!this.auto) return;
    this.begin(now());
  }

  /** One of its tasks settled while blocked: the continuation that settled it just ran, and
   *  the sample ends. */
  settled(): void {
    if (this.timer === null) return;
    const t = now();
    if (t > this.due) this.held += t - this.due;
    const wait = t - this.t0;
    this.settleWait = this.settleWait === 0 ? wait : 0.75 * this.settleWait + 0.25 * wait;
    this.decide(t);
  }

  /** The M is back (room again) or stopping: sampling ends. */
  unblocked(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  private begin(t: number): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.t0 = t;
    this.cpu0 = processCPU();
    this.held = 0;
    this.due = t + SAMPLE_MS;
    // unref'd: a blocked M's own tasks keep its thread alive, not this sample
    this.timer = unrefTimer(setTimeout(this.tick, SAMPLE_MS));
  }

  private readonly tick = (): void => {
    const t = now();
    if (t > this.due) this.held += t - this.due;
    const patience = this.settleWait === 0 ? PATIENCE_FIRST_MS
      : Math.min(Math.max(PATIENCE * this.settleWait, PATIENCE_MIN_MS), PATIENCE_MAX_MS);
    if (t - this.t0 >= patience) { this.decide(t); return; }
    this.due = t + SAMPLE_MS;
    this.timer = unrefTimer(setTimeout(this.tick, SAMPLE_MS));
  };

  /** Did the process leave at least one CPU idle over the last `span` ms? True where its CPU
   *  time cannot be read. */
  private cpuIdle(span: number): boolean {
    const used = processCPU() - this.cpu0;
    if (!(used >= 0)) return true; // NaN: no process CPU time here
    return this.ncpu * span - used >= span;
  }

  /** Ends the sample at t: the limit follows its utilisation; the next sample begins. */
  private decide(t: number): void {
    const span = t - this.t0;
    if (span >= MIN_SAMPLE_MS) {
      const busy = this.held / span;
      if (busy <= GROW_AT && this.limit < AUTO_MAX && this.cpuIdle(span)) {
        this.setLimit(this.limit + 1);
        this.begin(t);
        this.grew();
        return;
      }
      if (busy >= SHRINK_AT) this.setLimit(Math.max(this.limit >> 1, 1));
    }
    this.begin(t);
  }
}
