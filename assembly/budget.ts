// High work's budget on a P (docs/DESIGN.md "Priority classes", "High work's budget"): while
// other work waits, high work may take HIGH_RUNTIME_MS of each HIGH_PERIOD_MS of the P's time,
// as Linux throttles real-time tasks (sched_rt_runtime_us of sched_rt_period_us).
//
// The core reads no clock. The M times the Gs it must (every high G, and every G while its P is
// throttled) and hands the times to chargeTime; findRunnable reads only P_HIGH_STATE, and only
// when high work is queued. All three words are the owner's (plain loads and stores).

import {
  HIGH_FREE, HIGH_OPEN, HIGH_PERIOD_MS, HIGH_RUNTIME_MS, HIGH_THROTTLED, P_HIGH_PERIOD,
  P_HIGH_STATE, P_HIGH_USED, PRIO_HIGH,
} from './shared/layout';
import { opCall, pAddr } from './mem';

/**
 * Moves P pp's period forward to the one holding time t, paying HIGH_RUNTIME_MS back from the
 * charged time for every period that ended (never below 0). Owner of pp only.
 */
function budgetRoll(pp: usize, t: f64): void {
  let period = load<f64>(pp, P_HIGH_PERIOD); // plain: owner only
  if (t - period < <f64>HIGH_PERIOD_MS) return;
  let k = Math.floor((t - period) / <f64>HIGH_PERIOD_MS);
  store<f64>(pp, period + k * <f64>HIGH_PERIOD_MS, P_HIGH_PERIOD); // plain: owner only
  let used = load<f64>(pp, P_HIGH_USED); // plain: owner only
  let back = k * <f64>HIGH_RUNTIME_MS;
  store<f64>(pp, used > back ? used - back : 0, P_HIGH_USED); // plain: owner only
}

/**
 * A G of class cls ran on P p from `start` to `end` (ms, one clock for every thread). Charges
 * high work's run time to p's budget (not a high G taken because nothing else was: HIGH_FREE),
 * replenishes it for the periods that ended, and sets p throttled while the charged time is at
 * least HIGH_RUNTIME_MS. Returns 1 while p is throttled (the M must time every G it runs on p,
 * so the period's end is seen), else 0 (only high Gs need timing). M holding P p only.
 */
export function chargeTime(p: i32, cls: u32, start: f64, end: f64): u32 {
  let pp = pAddr(p);
  opCall(p);
  budgetRoll(pp, start);
  if (cls == PRIO_HIGH && load<u32>(pp, P_HIGH_STATE) != HIGH_FREE) { // plain: owner only
    let d = end - start;
    if (d > 0) store<f64>(pp, load<f64>(pp, P_HIGH_USED) + d, P_HIGH_USED); // plain: owner only
  }
  budgetRoll(pp, end);
  let state: u32 = load<f64>(pp, P_HIGH_USED) >= <f64>HIGH_RUNTIME_MS ? HIGH_THROTTLED : HIGH_OPEN; // plain: owner only
  store<u32>(pp, state, P_HIGH_STATE); // plain: owner only
  return state;
}

/** Whether P pp, with high work queued, must look for other work first. Owner of pp only. */
@inline export function budgetSpent(pp: usize): bool {
  return load<u32>(pp, P_HIGH_STATE) != HIGH_OPEN; // plain: owner only
}

/** P pp took high work because it found nothing else: that G is not charged. Owner of pp only. */
@inline export function budgetFree(pp: usize): void {
  store<u32>(pp, HIGH_FREE, P_HIGH_STATE); // plain: owner only
}

/**
 * P pp changes hands (acquireP): its new M has not been timing its Gs, so the throttle starts
 * open and the charged time decides again at the next charge. Owner of pp only.
 */
@inline export function budgetOpen(pp: usize): void {
  store<u32>(pp, HIGH_OPEN, P_HIGH_STATE); // plain: the new owner, before it runs a G
}
