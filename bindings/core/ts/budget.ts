// High work's budget on a P (docs/DESIGN.md "Priority classes", "High work's budget"): while
// other work waits, high work may take HIGH_RUNTIME_MS of each HIGH_PERIOD_MS of the P's time,
// as Linux throttles real-time tasks (sched_rt_runtime_us of sched_rt_period_us). The twin of
// assembly/budget.ts: same arithmetic in the same order, so both cores write the same bytes.
//
// The core reads no clock. The M times the Gs it must (every high G, and every G while its P is
// throttled) and hands the times to chargeTime; findRunnable reads only P_HIGH_STATE, and only
// when high work is queued. All three words are the owner's (plain reads and writes).

import {
  HIGH_FREE, HIGH_OPEN, HIGH_PERIOD_MS, HIGH_RUNTIME_MS, HIGH_THROTTLED, P_HIGH_PERIOD,
  P_HIGH_STATE, P_HIGH_USED, PRIO_HIGH,
} from '../../../assembly/shared/layout.js';
import { opCall, pF64, pWord, type Mem } from './mem.js';

const PERIOD_F = P_HIGH_PERIOD >> 3;
const USED_F = P_HIGH_USED >> 3;
const STATE_W = P_HIGH_STATE >> 2;

/** Moves P p's period forward to the one holding time t, paying HIGH_RUNTIME_MS back from the
 *  charged time for every period that ended (never below 0). Owner of p only. */
function budgetRoll(m: Mem, f: number, t: number): void {
  const f64 = m.f64;
  const period = f64[f + PERIOD_F]; // plain: owner only
  if (t - period < HIGH_PERIOD_MS) return;
  const k = Math.floor((t - period) / HIGH_PERIOD_MS);
  f64[f + PERIOD_F] = period + k * HIGH_PERIOD_MS; // plain: owner only
  const used = f64[f + USED_F]; // plain: owner only
  const back = k * HIGH_RUNTIME_MS;
  f64[f + USED_F] = used > back ? used - back : 0; // plain: owner only
}

/** A G of class cls ran on P p from `start` to `end` (ms, one clock for every thread). Charges
 *  high work's run time to p's budget (not a high G taken because nothing else was: HIGH_FREE),
 *  replenishes it for the periods that ended, and sets p throttled while the charged time is at
 *  least HIGH_RUNTIME_MS. Returns 1 while p is throttled (the M must time every G it runs on p,
 *  so the period's end is seen), else 0 (only high Gs need timing). M holding P p only. */
export function chargeTime(m: Mem, p: number, cls: number, start: number, end: number): number {
  opCall(m, p);
  const f = pF64(p);
  const w = pWord(p) + STATE_W;
  budgetRoll(m, f, start);
  if (cls === PRIO_HIGH && m.i32[w] !== HIGH_FREE) { // plain: owner only
    const d = end - start;
    if (d > 0) m.f64[f + USED_F] += d; // plain: owner only
  }
  budgetRoll(m, f, end);
  const state = m.f64[f + USED_F] >= HIGH_RUNTIME_MS ? HIGH_THROTTLED : HIGH_OPEN; // plain: owner only
  m.i32[w] = state; // plain: owner only
  return state;
}

/** Whether P p, with high work queued, must look for other work first. Owner of p only. */
export function budgetSpent(m: Mem, p: number): boolean {
  return m.i32[pWord(p) + STATE_W] !== HIGH_OPEN; // plain: owner only
}

/** P p took high work because it found nothing else: that G is not charged. Owner of p only. */
export function budgetFree(m: Mem, p: number): void {
  m.i32[pWord(p) + STATE_W] = HIGH_FREE; // plain: owner only
}

/** P p changes hands (acquireP): its new M has not been timing its Gs, so the throttle starts
 *  open and the charged time decides again at the next charge. Owner of p only. */
export function budgetOpen(m: Mem, p: number): void {
  m.i32[pWord(p) + STATE_W] = HIGH_OPEN; // plain: the new owner, before it runs a G
}
