// Results (docs/DESIGN.md "Root tasks", "Inboxes"): root Tasks settled from M0's inbox, one
// Atomics.waitAsync per batch of results, not a message per task; the look for detached tasks
// still running once the last root settled; spawns deferred at capacity queued again. Main
// thread only.

import { MR_FINISHED } from '../../assembly/shared/layout.js';
import { unrefTimer } from './host/platform.js';
import { TASK_PENDING } from './tasks/task.js';
import { takeInbox } from './sleep/inbox.js';
import { parkSwap, parkWaitAsync } from './sleep/park.js';
import { EngineSpawn } from './engine-spawn.js';

export abstract class EnginePump extends EngineSpawn {
  /** Settles root Tasks as their Gs arrive in M0's inbox; runs while any is pending. */
  protected pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.pumpLoop();
  }

  protected async pumpLoop(): Promise<void> {
    const i32 = this.views.i32;
    const out = { ok: true, value: undefined as unknown };
    try {
      while (this.npending !== 0 || this.deferred.length !== 0) {
        if (this.failure !== null) break;
        parkSwap(i32, this.park0); // before the take: a push after it sets the bit again
        let g = takeInbox(this.views, 0);
        if (g === 0) {
          const w = parkWaitAsync(i32, this.park0);
          if (w !== null) await w;
          continue;
        }
        while (g !== 0) {
          const a = this.gs.addr(g);
          const next = this.gs.schedlink(a);
          const t = this.pending[g];
          this.pending[g] = undefined;
          this.npending--;
          this.gs.takeResult(a, out);
          if (this.rootShares.size !== 0) this.unpinShares(g); // after the result: it may name them
          this.core.gfPut(-1, g);
          this.views.f64[(this.mAddr0 + MR_FINISHED) >>> 3] = ++this.finished;
          if (t !== undefined) { if (this.cleanups.size !== 0) this.cleanup(t); t.settle(out.ok, out.value); }
          out.value = undefined;
          g = next;
        }
        if (this.deferred.length !== 0) this.retryDeferred();
      }
    } finally {
      this.pumping = false;
    }
    this.lookIdle();
  }

  /**
   * After the last root settled: once every task spawned anywhere has finished too (a root may
   * leave detached children running), and every thread's output has arrived here, the threads
   * stop holding the process. Tasks still running are looked for again a few ms later (the per-M
   * counters are not announced to this thread, as in drainThenStop); output in flight is waited
   * for as it arrives (OutputWatch tells when the last chunk did: DESIGN.md "Task output"); a new
   * root ends the looking (it holds the process itself).
   */
  protected lookIdle(delay = 1): void {
    if (this.idleLook !== null) { clearTimeout(this.idleLook); this.idleLook = null; }
    if (this.closing !== null || this.closed || this.failure !== null) return;
    if (this.npending !== 0 || this.deferred.length !== 0) return; // the pump runs, and looks again when it ends
    if (this.allFinished()) {
      if (this.output.inFlight()) { this.waitOutput(); return; }
      this.releaseShares();
      this.alive.release();
      return;
    }
    // Unref'd: the threads hold the process meanwhile.
    this.idleLook = unrefTimer(setTimeout(() => { this.idleLook = null; this.lookIdle(Math.min(delay * 2, 16)); }, delay));
  }

  /** lookIdle again once every thread's output has arrived (one waiter at a time). */
  private waitOutput(): void {
    if (this.outputWait) return;
    this.outputWait = true;
    this.output.whenArrived(() => { this.outputWait = false; this.lookIdle(); });
  }

  private outputWait = false;

  protected retryDeferred(): void {
    const list = this.deferred;
    this.deferred = [];
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.task.state !== TASK_PENDING) { this.cleanup(d.task); continue; } // aborted while waiting
      this.submit(d.task, d.id, d.args, d.token, d.cls);
    }
  }
}
