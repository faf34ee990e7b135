// schedtrace: Go's GODEBUG=schedtrace=X / scheddetail=1 lines, printed by the main thread from
// the counters in shared memory (reading never stalls the workers).
//
//   SCHED 1004ms: gomaxprocs=4 idleprocs=1 threads=5 spinningthreads=1 needspinning=0 idlethreads=0 runqueue=12 [3 0 5 7]
//
// `threads` counts the Ms with a thread now: the worker threads running (spares included; a slot
// whose thread idled out is not one) plus the main thread (M0). scheddetail lists every M slot.
// `gomaxprocs` is the procs option; the bracket lists the Ps in play: those, and any spare the
// monitor has lent out (DESIGN.md "sysmon and handoff").
// `runqueue` is the global queue; each bracketed number is a P's ring length, runnext not
// counted, as in Go.
//
// The first line (SCHED 0ms) ends with what the default procs is chosen from (DESIGN.md
// "Default procs"): `ncpu`, the CPU count, and `cpulimit`, the cgroup CPU limit in CPUs or
// `none`. gomaxprocs is min(ncpu, max(2, ceil(cpulimit))) when procs was left to its default:
//
//   SCHED 0ms: gomaxprocs=2 idleprocs=2 threads=4 ... runqueue=0 [0 0] ncpu=64 cpulimit=1.5

import { M_SPINNING, M_NEXTP } from '../../../assembly/shared/layout.js';
import { procsDefault } from '../host/cgroup.js';
import type { SchedulerStats } from './stats.js';
import type { Views } from '../memory/values.js';
import { mAddr } from '../memory/mblock.js';

/** The SCHED line (and with `detail`, Go's per-P and per-M lines) for one snapshot; the first
 *  (sinceMs 0, as the engine's first call passes) with the `ncpu` and `cpulimit` suffix. */
export function schedtraceLines(st: SchedulerStats, views: Views, sinceMs: number, detail: boolean): string[] {
  const suffix = sinceMs === 0 ? procsSuffix() : '';
  const s = st.sched;
  // Spare Ps in the reserve are not in play (DESIGN.md "sysmon and handoff"); a lent one is, and
  // is listed, but gomaxprocs stays the procs option, as in Go.
  const procs = st.procs.filter((p) => p.status !== 'reserved');
  let head = `SCHED ${Math.round(sinceMs)}ms: gomaxprocs=${s.gomaxprocs} idleprocs=${s.idleprocs} threads=${s.liveThreads + 1} ` +
    `spinningthreads=${s.spinningthreads} needspinning=${s.needspinning} idlethreads=${s.idlethreads} runqueue=${s.runqueue}`;
  if (!detail) return [head + ` [${procs.map((p) => p.runqsize).join(' ')}]` + suffix];
  head += ' gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=false' + suffix;
  const lines = [head];
  for (const p of procs) {
    lines.push(`  P${p.id}: status=${p.status === 'idle' ? 0 : 1} schedtick=${p.schedtick} syscalltick=0 ` +
      `m=${p.m === null ? 'nil' : p.m} runqsize=${p.runqsize} gfreecnt=${p.gfreecnt} timerslen=0`);
  }
  const pOf = new Map<number, number>();
  for (const p of st.procs) if (p.m !== null) pOf.set(p.m, p.id);
  for (const m of st.threads) {
    const b = mAddr(views, m.id);
    const spinning = Atomics.load(views.i32, (b + M_SPINNING) >>> 2) !== 0; // pairs with wakep's and stopM's stores (a snapshot)
    const p = pOf.get(m.id);
    // blocked: a worker M holding no P and not about to take one is parked on its futex word.
    const blocked = m.id !== 0 && p === undefined && Atomics.load(views.i32, (b + M_NEXTP) >>> 2) === 0; // pairs with wakep's store and acquireP's
    lines.push(`  M${m.id}: p=${p === undefined ? 'nil' : p} curg=${m.curg === 0 ? 'nil' : m.curg} mallocing=0 throwing=0 ` +
      `preemptoff= locks=0 dying=0 spinning=${spinning} blocked=${blocked} lockedg=nil`);
  }
  return lines;
}

/** ` ncpu=N cpulimit=X`: what the default procs is chosen from, read now (a few small files,
 *  once per scheduler; the engine's stats do not carry the options). */
function procsSuffix(): string {
  const d = procsDefault();
  return ` ncpu=${d.ncpu} cpulimit=${d.limit === null ? 'none' : +d.limit.cpus.toFixed(3)}`;
}

/** Parses STEALWORK_DEBUG (e.g. "schedtrace=1000,scheddetail=1"), Go's GODEBUG syntax.
 *  `dumpsignal=SIGUSR2` (or `=1`, SIGUSR2) prints the task dump on that signal (observe/dump.ts). */
export function parseDebugEnv(value: string | undefined): { schedtrace: number; scheddetail: boolean; trace: boolean; dumpsignal: string | null } {
  const out = { schedtrace: 0, scheddetail: false, trace: false, dumpsignal: null as string | null };
  if (!value) return out;
  for (const part of value.split(',')) {
    const [k, v] = part.split('=').map((x) => x.trim());
    if (k === 'schedtrace') {
      const n = Number(v);
      if (Number.isInteger(n) && n > 0) out.schedtrace = n;
    } else if (k === 'scheddetail') out.scheddetail = v === '1';
    else if (k === 'trace') out.trace = v === '1';
    else if (k === 'dumpsignal' && v !== undefined && v !== '0') out.dumpsignal = v === '1' ? 'SIGUSR2' : /^SIG[A-Z0-9]+$/.test(v) ? v : null;
  }
  return out;
}

/** Reads STEALWORK_DEBUG where the platform has an environment. */
export function debugEnv(): string | undefined {
  const g = globalThis as { process?: { env?: Record<string, string | undefined> }; Deno?: { env?: { get(k: string): string | undefined } } };
  try {
    if (g.Deno?.env) return g.Deno.env.get('STEALWORK_DEBUG');
    return g.process?.env?.STEALWORK_DEBUG;
  } catch {
    return undefined; // Deno without --allow-env
  }
}
