// The monitor's calls into the core: the spare-P reserve and the handoff, the twin of
// assembly/sysmon.ts (docs/DESIGN.md, "sysmon and handoff"). The reserve is a LIFO list of
// P index + 1 linked through P_LINK, changed only under sched.lock; reserved Ps are P_IDLE and
// off the idle list, so no M runs them and no thief visits them.

import {
  M_NEXTP, M_PARK, M_SPINNING, PARK_P, PC_WAKEUPS, P_LINK, P_M, S_NMSPINNING,
  S_RT_HANDOFFS, S_RT_NPRESERVE, S_RT_PRESERVE, S_RT_RETIRES,
} from '../../../assembly/shared/layout.js';
import { mGet, pidleGet, pidleRemove } from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { mWord, nprocs, pCounters, pWord, type Mem } from './mem.js';

const PRESERVE_W = S_RT_PRESERVE >> 2;
const NPRESERVE_W = S_RT_NPRESERVE >> 2;
const HANDOFFS_W = S_RT_HANDOFFS >> 2;
const RETIRES_W = S_RT_RETIRES >> 2;
const NMSPINNING_W = S_NMSPINNING >> 2;
const PLINK = P_LINK >> 2;
const P_M_W = P_M >> 2;
const NEXTP = M_NEXTP >> 2;
const SPINNING = M_SPINNING >> 2;
const PARK = M_PARK >> 2;
const WAKEUPS = PC_WAKEUPS >> 3;

/** Pushes P p on the reserve. Holds sched.lock. */
function preservePut(m: Mem, p: number): void {
  const i32 = m.i32;
  i32[pWord(p) + PLINK] = i32[PRESERVE_W]; // plain: under sched.lock
  i32[PRESERVE_W] = p + 1;
  Atomics.store(i32, NPRESERVE_W, i32[NPRESERVE_W] + 1); // pairs with the monitor's lock-free load
}

/** Moves idle P p to the reserve (start-up). Returns 1, or 0 when p is not on the idle list.
 *  Any thread; takes sched.lock. */
export function pReserve(m: Mem, p: number): number {
  if (p < 0 || p >= nprocs(m)) return 0;
  schedLock(m);
  const ok = pidleRemove(m, p);
  if (ok) preservePut(m, p);
  schedUnlock(m);
  return ok ? 1 : 0;
}

/** Moves some idle P to the reserve (its M stays idle); returns it, or -1 when none is idle.
 *  Any thread; takes sched.lock. */
export function pRetire(m: Mem): number {
  schedLock(m);
  const p = pidleGet(m);
  if (p >= 0) {
    preservePut(m, p);
    m.i32[RETIRES_W] += 1; // plain: under sched.lock
  }
  schedUnlock(m);
  return p;
}

/** Go's handoffp, the lending form: a reserved P goes to an idle M, counted spinning, which is
 *  woken. Returns the P, or -1 when the reserve or the idle-M list is empty. Any thread. */
export function handoff(m: Mem): number {
  const i32 = m.i32;
  schedLock(m);
  const top = i32[PRESERVE_W]; // plain: under sched.lock
  if (top === 0) { schedUnlock(m); return -1; }
  const mm = mGet(m);
  if (mm < 0) { schedUnlock(m); return -1; }
  const p = top - 1;
  const w = pWord(p);
  i32[PRESERVE_W] = i32[w + PLINK]; // plain: under sched.lock
  i32[w + PLINK] = 0;
  Atomics.store(i32, NPRESERVE_W, i32[NPRESERVE_W] - 1); // pairs with the monitor's lock-free load
  const mw = mWord(m, mm);
  Atomics.store(i32, mw + NEXTP, p + 1); // read by acquireP after the park handshake
  Atomics.store(i32, mw + SPINNING, 1); // counted just below
  Atomics.add(i32, NMSPINNING_W, 1); // pairs with the nmspinning loads in wakep/ready
  Atomics.store(i32, w + P_M_W, mm + 1); // read by schedtrace
  m.f64[pCounters(p) + WAKEUPS] += 1; // plain: p has no owner yet, under sched.lock
  i32[HANDOFFS_W] += 1; // plain: under sched.lock
  schedUnlock(m);
  Atomics.or(i32, mw + PARK, PARK_P); // pairs with the park swap in the M's sleep loop
  Atomics.notify(i32, mw + PARK, 1);
  return p;
}
