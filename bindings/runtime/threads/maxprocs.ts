// Following the default procs (docs/DESIGN.md "Default procs", step 6): Go 1.25 rereads the CPU
// count and the cgroup CPU limit every second (sysmon's GOMAXPROCS update) and sets GOMAXPROCS
// to the default they give, as long as nobody set GOMAXPROCS (the environment variable or a
// runtime.GOMAXPROCS call). A pod resized in place, a container whose quota an operator
// changes, or an affinity mask that shrinks gets the Ps its CPUs can run.
//
// Here the same holds while procs is the default (no `procs` option) and `sched.resize` was not
// called: every UPDATE_MS the main thread reads the default again (host/cgroup.ts, a few small
// files), and when it changed, resizes to it, within 1..maxProcs (the Ps the memory was laid
// out for: a scheduler grows past its start only with a larger `maxProcs`). The timer is
// unref'd: it never keeps a process alive.
//
// Main thread only.

import type { ProcsDefault } from '../host/cgroup.js';
import { unrefTimer } from '../host/platform.js';

/** How often the default is read again (ms): Go's period. */
export const UPDATE_MS = 1000;

export class MaxProcsUpdate {
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The default procs and CPU limit last read (at start: those procs was chosen from). */
  private procs: number;
  private cpus: number | null;

  /**
   * `read()` gives the default now (host/cgroup.ts procsDefault); `apply(d)` resizes to it (the
   * engine, within maxProcs) and is called only when d.procs or the limit changed.
   */
  constructor(procs: number, cpus: number | null, private readonly read: () => ProcsDefault,
    private readonly apply: (d: ProcsDefault) => void) {
    this.procs = procs;
    this.cpus = cpus;
  }

  /** Reads the default every UPDATE_MS from now on. */
  start(): void {
    if (this.timer === null) this.timer = unrefTimer(setInterval(this.check, UPDATE_MS));
  }

  /** One reading: applies the default when it differs from the last one. */
  readonly check = (): void => {
    const d = this.read();
    const cpus = d.limit === null ? null : d.limit.cpus;
    if (d.procs === this.procs && cpus === this.cpus) return;
    this.procs = d.procs;
    this.cpus = cpus;
    this.apply(d);
  };

  /** Stops reading: close, or an explicit sched.resize (the user set GOMAXPROCS). */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** True while the default is followed. */
  get running(): boolean {
    return this.timer !== null;
  }
}
