// Scheduling: Go's ready, newproc, findRunnable, stopm, wakep, acquirep, and mTake
// (docs/DESIGN.md, "findRunnable (Go's order)", "Spin, then park", "Priority classes").
//
// The StoreLoad points of the "delicate dance" are the atomic RMWs on S_NMSPINNING: a spinner
// leaving spinning decrements it before rechecking every queue (stopM step 3); a submitter
// makes work visible before reading it (ready). All JS atomics are sequentially consistent.

import {
  FLAG_GLOBAL_ONLY, G_PRIO, G_RUNNABLE, G_RUNNING, G_STATUS, GLOBAL_CHECK_TICKS, LOW_CHECK_TICKS,
  M_NEXTP, M_PARK, M_SPINNING, PARK_P, P_IDLE, P_M, P_RUNNING, P_SCHEDTICK, P_STATUS, PC_EXECUTED,
  PC_GLOBAL_HITS, PC_HIGH_HITS, PC_HIGH_THROTTLES, PC_LOCAL_HITS, PC_LOW_HITS, PC_PARKS, PC_RUNNEXT_HITS, PC_SPAWNED,
  PC_SPINS, PC_STEAL_MISSES, PC_WAKEUPS, P_RUNNEXT, PRIO_HIGH, PRIO_LOW, PRIO_MASK, PRIO_NORMAL,
  S_NEEDSPINNING, S_NMSPINNING, S_NPIDLE, S_PIDLE, S_RUNQ_SIZE, MR_TRACE_BUF, STOP_RETRY, STOP_SLEEP,
  OP_CALLS, OP_PROBES, OP_RETRIES, P_PARK_PROBES,
} from '../../../assembly/shared/layout.js';
import { budgetFree, budgetOpen, budgetSpent } from './budget.js';
import { classqGet, classqPopLocked, classqPut, classqSize } from './classq.js';
import { globrunqDetach, globrunqPut } from './globrunq.js';
import { globrunqGet, globrunqRequeue } from './globrunqget.js';
import { gSetStatus, gWord } from './gtable.js';
import {
  mGet, mIdleAny, mPutLocked, mRemove, npBusy, pidleAny, pidleGet, pidlePut,
} from './idle.js';
import { schedLock, schedUnlock } from './lock.js';
import { flags, mWord, nprocs, pCounters, pOps, pWord, spinningSeen, type Mem } from './mem.js';
import { runqEmpty, runqGet, runqLen, runqPut } from './runq.js';
import { stealThreshold, stealWork } from './steal.js';
import { traceSpawn, traceStart, traceSteal } from './trace.js';
import { forkLen, forkqPop } from './forkq.js';

const NMSPINNING_W = S_NMSPINNING >> 2;
const TRACE_BUF = MR_TRACE_BUF >> 2;
const NEEDSPINNING_W = S_NEEDSPINNING >> 2;
const NPIDLE_W = S_NPIDLE >> 2;
const RUNQ_SIZE_W = S_RUNQ_SIZE >> 2;
const PIDLE_W = S_PIDLE >> 2;
const P_STATUS_W = P_STATUS >> 2;
const P_M_W = P_M >> 2;
const P_RUNNEXT_W = P_RUNNEXT >> 2;
const SCHEDTICK = P_SCHEDTICK >> 2;
const PARK = M_PARK >> 2;
const NEXTP = M_NEXTP >> 2;
const SPINNING = M_SPINNING >> 2;
const G_STATUS_W = G_STATUS >> 2;
const G_PRIO_W = G_PRIO >> 2;
const SPAWNED = PC_SPAWNED >> 3;
const EXECUTED = PC_EXECUTED >> 3;
const RUNNEXT_HITS = PC_RUNNEXT_HITS >> 3;
const LOCAL_HITS = PC_LOCAL_HITS >> 3;
const GLOBAL_HITS = PC_GLOBAL_HITS >> 3;
const HIGH_HITS = PC_HIGH_HITS >> 3;
const LOW_HITS = PC_LOW_HITS >> 3;
const HIGH_THROTTLES = PC_HIGH_THROTTLES >> 3;
const SPINS = PC_SPINS >> 3;
const STEAL_MISSES = PC_STEAL_MISSES >> 3;
const PARKS = PC_PARKS >> 3;
const WAKEUPS = PC_WAKEUPS >> 3;
const CALLS = OP_CALLS >> 3;
const PROBES = OP_PROBES >> 3;
const RETRIES = OP_RETRIES >> 3;
const PARK_PROBES_W = P_PARK_PROBES >> 2;

/** Wakes an idle M with an idle P if nobody spins: at most one wake-up in flight, the woken M
 *  already counted spinning. Any thread; takes sched.lock. */
export function wakep(m: Mem): void {
  const i32 = m.i32;
  if (Atomics.load(i32, NMSPINNING_W) !== 0) return; // pairs with the nmspinning RMWs
  if (Atomics.compareExchange(i32, NMSPINNING_W, 0, 1) !== 0) return; // pairs with the nmspinning RMWs
  spinningSeen(m, 1);
  schedLock(m);
  // An idle P needs an idle M to run it (they go idle together in stopM; a P is idle alone
  // before the runtime's Ms have started, and after handoffP, whose M comes back through
  // mReturn and looks then): without both, nobody can be woken.
  if (!pidleAny(m) || !mIdleAny(m)) {
    Atomics.sub(i32, NMSPINNING_W, 1); // undo: pairs with the nmspinning loads
    Atomics.store(i32, NEEDSPINNING_W, 1); // pairs with the store in findRunnable's becomeSpinning
    schedUnlock(m);
    return;
  }
  const pp = pidleGet(m);
  const mm = mGet(m);
  const mw = mWord(m, mm);
  Atomics.store(i32, mw + NEXTP, pp + 1); // read by acquireP after the park handshake
  Atomics.store(i32, mw + SPINNING, 1); // counted in the CAS above
  Atomics.store(i32, pWord(pp) + P_M_W, mm + 1); // under sched.lock; read by schedtrace
  m.f64[pCounters(pp) + WAKEUPS] += 1; // plain: pp is idle, under sched.lock
  schedUnlock(m);
  // DESIGN says store(park, 1); OR-ing PARK_P (= 1) writes the same bytes and cannot erase a
  // PARK_INBOX/PARK_MSG/PARK_STOP bit the runtime set meanwhile (DESIGN.md "Inboxes").
  Atomics.or(i32, mw + PARK, PARK_P); // pairs with the park swap in the M's sleep loop
  Atomics.notify(i32, mw + PARK, 1); // wakes the M's Atomics.wait on its park word
}

/** Go's newproc for a G the runtime has prepared: G parent, running on M mi with P p, spawned
 *  g, which goes into p's runnext (ready with `next`); an M that traces records the spawn.
 *  M mi holding P p only. */
export function newproc(m: Mem, p: number, mi: number, g: number, parent: number): void {
  const mw = mWord(m, mi);
  const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
  if (ring !== 0) traceSpawn(m, mw, ring >>> 0, g, parent);
  ready(m, p, g, 1);
}

/** Makes g runnable (from G_DEAD or G_WAITING). A normal G: p >= 0 puts it on p's run queue
 *  (runnext when next != 0), p < 0 or FLAG_GLOBAL_ONLY on the global queue; a high or low G
 *  goes on its class queue whatever p and next (DESIGN.md "Priority classes"). Then wakep() if
 *  a P is idle and nobody spins. p >= 0: owner P only; p < 0: any thread. */
export function ready(m: Mem, p: number, g: number, next: number): void {
  const i32 = m.i32;
  const gw = gWord(m, g); // before reading m.i32: gWord may replace the views
  const from = Atomics.load(m.i32, gw + G_STATUS_W); // pairs with the status store in gSetStatus
  // plain: written by whoever prepared g, before the handover (gfGet, a join word RMW) that made g ours
  const cls = m.i32[gw + G_PRIO_W] & PRIO_MASK;
  gSetStatus(m, g, from, G_RUNNABLE);
  if (p >= 0) m.f64[pCounters(p) + SPAWNED] += 1; // plain: owner counter
  if (cls !== PRIO_NORMAL) classqPut(m, g, cls);
  else if (p >= 0 && (flags(m) & FLAG_GLOBAL_ONLY) === 0) runqPut(m, p, g, next);
  else globrunqPut(m, g);
  // The work is visible; now read the idle and spinning counts (the submitter's half of the
  // delicate dance: pairs with the nmspinning decrement in stopM).
  if (Atomics.load(i32, NPIDLE_W) > 0 && Atomics.load(i32, NMSPINNING_W) === 0) wakep(m);
}

/** findRunnable step 6: g (G_RUNNABLE) starts on P p run by M mi: a new slice bumps schedtick;
 *  G_RUNNING; an M that traces records the start; a spinning M stops spinning and wakes the
 *  next spinner. Returns g. M mi holding P p only (findRunnable, stopM, forkHelp). */
export function execute(m: Mem, p: number, mi: number, g: number, newSlice: boolean): number {
  const i32 = m.i32;
  const w = pWord(p);
  if (newSlice) i32[w + SCHEDTICK] = (i32[w + SCHEDTICK] + 1) | 0; // plain: owner only; readers tolerate staleness
  gSetStatus(m, g, G_RUNNABLE, G_RUNNING);
  m.f64[pCounters(p) + EXECUTED] += 1; // plain: owner counter
  const mw = mWord(m, mi);
  const ring = i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
  if (ring !== 0) traceStart(m, mw, ring >>> 0, p, g);
  if (Atomics.load(i32, mw + SPINNING) !== 0) { // pairs with the spinning stores in wakep/stopM
    // resetSpinning: the last spinner to find work starts the next one, if more work is in
    // sight (a task that arrives later wakes one itself: nmspinning is 0 from here).
    Atomics.store(i32, mw + SPINNING, 0); // this M's own flag
    Atomics.sub(i32, NMSPINNING_W, 1); // pairs with the nmspinning loads in wakep/ready
    if (workVisible(m, p, true)) wakep(m);
  }
  return g;
}

/** Go's findRunnable without the blocking part, with the class queues (DESIGN.md "Priority
 *  classes"): the high queue unless p's high budget is spent, the 1-in-61 global check, the
 *  1-in-LOW_CHECK_TICKS low check, the local queue (runnext first), the global queue, stealing
 *  when spinning is allowed, the low queue, and last the high queue a spent budget passed over.
 *  Returns a G already G_RUNNING, or 0 (m may now be spinning; call stopM next). M mi holding
 *  P p only. */
export function findRunnable(m: Mem, p: number, mi: number): number {
  const i32 = m.i32;
  const w = pWord(p);
  const c = pCounters(p);
  const f64 = m.f64;
  f64[pOps(p) + CALLS] += 1; // plain: owner counter
  let throttled = false;
  if (classqSize(m, PRIO_HIGH) > 0) { // the normal path's one extra load
    if (!budgetSpent(m, p)) {
      const g = classqGet(m, PRIO_HIGH); // one G: a batch would put high Gs on the ring as normal work
      if (g !== 0) {
        f64[c + HIGH_HITS] += 1; // plain: owner counter
        return execute(m, p, mi, g, true);
      }
    } else {
      throttled = true; // other work first; high work again if none is found (below)
      f64[c + HIGH_THROTTLES] += 1; // plain: owner counter
    }
  }
  const tick = i32[w + SCHEDTICK] >>> 0; // plain: owner only
  if (tick % GLOBAL_CHECK_TICKS === 0 && Atomics.load(i32, RUNQ_SIZE_W) > 0) { // pairs with the size stores under sched.lock
    const g = globrunqGet(m, p, 1);
    if (g !== 0) {
      f64[c + GLOBAL_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, true);
    }
  }
  if (tick % LOW_CHECK_TICKS === 0 && classqSize(m, PRIO_LOW) > 0) {
    const g = classqGet(m, PRIO_LOW); // the anti-starvation turn: low work progresses under normal load
    if (g !== 0) {
      f64[c + LOW_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, true);
    }
  }
  let g = runqGet(m, p);
  if (g !== 0) {
    if (m.inherit !== 0) {
      f64[c + RUNNEXT_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, false);
    }
    f64[c + LOCAL_HITS] += 1; // plain: owner counter
    return execute(m, p, mi, g, true);
  }
  // The P's own fork deque: empty between tasks, unless this M took over a crashed one's P
  // (DESIGN.md "Fork-join"); two loads when empty.
  if (forkLen(m, p) !== 0) {
    g = forkqPop(m, p);
    if (g !== 0) {
      f64[c + LOCAL_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, true);
    }
  }
  if (Atomics.load(i32, RUNQ_SIZE_W) > 0) { // pairs with the size stores under sched.lock
    g = globrunqGet(m, p, 0);
    if (g !== 0) {
      f64[c + GLOBAL_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, true);
    }
  }
  const mw = mWord(m, mi);
  let spinning = Atomics.load(i32, mw + SPINNING) !== 0; // pairs with the spinning stores in wakep/stopM
  if (!spinning) {
    const nmspinning = Atomics.load(i32, NMSPINNING_W); // pairs with the nmspinning RMWs
    // Go's spin limit: at most half as many spinners as Ps held by an M (not idle, reserved,
    // without an M or out of service: none of those has a queue to steal from).
    if (2 * nmspinning < npBusy(m)) {
      // becomeSpinning
      Atomics.store(i32, mw + SPINNING, 1); // this M's own flag
      spinningSeen(m, Atomics.add(i32, NMSPINNING_W, 1) + 1); // pairs with the nmspinning loads in wakep/ready
      Atomics.store(i32, NEEDSPINNING_W, 0); // pairs with the needspinning store in wakep
      f64[c + SPINS] += 1; // plain: owner counter
      spinning = true;
    }
  }
  if (spinning) {
    g = stealWork(m, p); // rings hold normal Gs only
    if (g !== 0) {
      const mw = mWord(m, mi);
      const ring = m.i32[mw + TRACE_BUF]; // plain: set before the M started; 0 when tracing is off
      if (ring !== 0) traceSteal(m, mw, ring >>> 0, p); // before execute writes the stolen G's start
      return execute(m, p, mi, g, true);
    }
    f64[c + STEAL_MISSES] += 1; // plain: owner counter
  }
  if (classqSize(m, PRIO_LOW) > 0) { // also when the spin limit forbade stealing
    g = classqGet(m, PRIO_LOW); // nothing else to run: low work
    if (g !== 0) {
      f64[c + LOW_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, true);
    }
  }
  if (throttled) {
    g = classqGet(m, PRIO_HIGH); // throttled, and nothing else to run: high work, not charged
    if (g !== 0) {
      budgetFree(m, p);
      f64[c + HIGH_HITS] += 1; // plain: owner counter
      return execute(m, p, mi, g, true);
    }
  }
  return 0;
}

/** Is there work an M without a P should come back for: a non-empty global or class queue, or
 *  a P not idle with work a spinner would steal (stealWork's last pass: ring and runnext, at
 *  least the steal threshold; any fork deque G)? Less is its owner's to run: coming back for it would loop
 *  findRunnable -> stopM -> Retry for as long as the owner runs its current G. The Ps it looked
 *  at are counted on P p: as its owner's OP_PROBES (`owner`), else in P_PARK_PROBES (stopM's
 *  recheck: p was just given up). Any thread. */
export function workVisible(m: Mem, p: number, owner: boolean): boolean {
  const i32 = m.i32;
  if (Atomics.load(i32, RUNQ_SIZE_W) > 0) return true; // pairs with the size stores under sched.lock
  if (classqSize(m, PRIO_HIGH) > 0 || classqSize(m, PRIO_LOW) > 0) return true;
  const np = nprocs(m);
  const thr = stealThreshold(m);
  let found = false;
  let v = 0;
  for (; v < np && !found; v++) {
    const w = pWord(v);
    if (Atomics.load(i32, w + P_STATUS_W) === P_IDLE) continue; // pairs with the status stores
    if (forkLen(m, v) !== 0) found = true; // a fork is stolen whatever the threshold
    else if (thr <= 1) found = runqEmpty(m, v) === 0;
    else found = runqLen(m, v) + (Atomics.load(i32, w + P_RUNNEXT_W) !== 0 ? 1 : 0) >= thr; // pairs with the runnext exchange/CAS
  }
  if (p < 0) return found; // an M without a P (handoffp.ts): counted nowhere
  if (owner) m.f64[pOps(p) + PROBES] += v; // plain: owner counter
  else Atomics.add(i32, pWord(p) + PARK_PROBES_W, v); // p has no owner now: pairs with the stats' load
  return found;
}

/** Go's stopm after findRunnable found nothing: under sched.lock take global work if any, else
 *  one high G, else one low G (p kept; the G is returned running, counted as a global, high or
 *  low hit), else put p and m on the idle lists together; then a spinner stops spinning and
 *  rechecks every queue. Returns a G, STOP_RETRY (m took an idle P back: acquireP) or
 *  STOP_SLEEP (sleep on M_PARK, then acquireP). M mi holding P p only. */
export function stopM(m: Mem, p: number, mi: number): number {
  const i32 = m.i32;
  m.f64[pOps(p) + CALLS] += 1; // plain: owner counter
  schedLock(m);
  if (i32[RUNQ_SIZE_W] > 0) { // plain: under sched.lock
    const g = globrunqDetach(m, 0);
    const n = m.batchN;
    schedUnlock(m);
    if (n > 1) globrunqRequeue(m, p, g, n);
    m.f64[pCounters(p) + GLOBAL_HITS] += 1; // plain: owner counter
    return execute(m, p, mi, g, true);
  }
  // A class G, one only (as in findRunnable): high before low.
  let cg = classqPopLocked(m, PRIO_HIGH);
  let hits = HIGH_HITS;
  if (cg === 0) {
    cg = classqPopLocked(m, PRIO_LOW);
    hits = LOW_HITS;
  }
  if (cg !== 0) {
    schedUnlock(m);
    if (hits === HIGH_HITS && budgetSpent(m, p)) budgetFree(m, p); // nothing else found: not charged
    m.f64[pCounters(p) + hits] += 1; // plain: owner counter
    return execute(m, p, mi, cg, true);
  }
  const w = pWord(p);
  Atomics.store(i32, w + P_STATUS_W, P_IDLE); // pairs with the status loads of thieves
  Atomics.store(i32, w + P_M_W, 0); // under sched.lock; read by schedtrace
  pidlePut(m, p);
  m.f64[pCounters(p) + PARKS] += 1; // plain: under sched.lock
  // An M on midle never has its own spinning flag set: only wakep sets it there, together with
  // M_NEXTP, when it takes the M off (DESIGN.md stopM step 2). Clearing it after the unlock let
  // a wakep pick this M while still flagged and count it twice.
  const mw = mWord(m, mi);
  const spinning = Atomics.load(i32, mw + SPINNING) !== 0; // own flag: nobody else writes it while m holds p
  if (spinning) Atomics.store(i32, mw + SPINNING, 0); // still counted in nmspinning until step 3
  mPutLocked(m, mi);
  schedUnlock(m);
  if (!spinning) return STOP_SLEEP;
  // The StoreLoad point: the decrement comes before the recheck (pairs with the nmspinning
  // load in ready after it enqueued).
  Atomics.sub(i32, NMSPINNING_W, 1);
  if (!workVisible(m, p, false)) return STOP_SLEEP;
  return retakeIdle(m, mi);
}

/** stopM's recheck found work (and mReturn's, handoffp.ts): M mi, on the idle-M list, takes an
 *  idle P back for itself, counted spinning, unless wakep (M_NEXTP set) or mTake (reserved by the
 *  runtime) took mi off the list since it went on: then mi is theirs, and only an mi still on
 *  the list retries. STOP_RETRY (acquireP, then findRunnable) or STOP_SLEEP. M mi only. */
export function retakeIdle(m: Mem, mi: number): number {
  const i32 = m.i32;
  const mw = mWord(m, mi);
  schedLock(m);
  if (i32[PIDLE_W] !== 0 && mRemove(m, mi)) { // plain: under sched.lock
    const p2 = pidleGet(m);
    Atomics.store(i32, mw + NEXTP, p2 + 1); // read by acquireP on this thread
    Atomics.store(i32, mw + SPINNING, 1); // this M's own flag
    spinningSeen(m, Atomics.add(i32, NMSPINNING_W, 1) + 1); // pairs with the nmspinning loads in wakep/ready
    m.f64[pCounters(p2) + WAKEUPS] += 1; // plain: p2 is idle, under sched.lock
    m.f64[pOps(p2) + RETRIES] += 1; // as above
    schedUnlock(m);
    return STOP_RETRY;
  }
  schedUnlock(m);
  return STOP_SLEEP;
}

/** Puts M mi (without a P) on the idle-M list, at start-up. M mi only; takes sched.lock. */
export function mPut(m: Mem, mi: number): void {
  schedLock(m);
  mPutLocked(m, mi);
  schedUnlock(m);
}

/** Takes an idle M off the idle-M list for the caller to hand work to (the runtime reserves a
 *  spare M this way); its index, or NONE when none is idle. The M stays asleep on its park word
 *  until the caller wakes it; stopM's recheck leaves an M taken this way alone. Any thread;
 *  takes sched.lock. */
export function mTake(m: Mem): number {
  schedLock(m);
  const mi = mGet(m);
  schedUnlock(m);
  return mi;
}

/** Takes the P handed over in M_NEXTP and marks it running; returns its index. Throws when
 *  none was handed over. M mi only, after waking or STOP_RETRY. */
export function acquireP(m: Mem, mi: number): number {
  const i32 = m.i32;
  const mw = mWord(m, mi);
  const next = Atomics.load(i32, mw + NEXTP); // pairs with the store in wakep/stopM
  if (next === 0) throw new Error(`acquireP: m=${mi} has no P handed over`);
  Atomics.store(i32, mw + NEXTP, 0); // this M's own word from here on
  const w = pWord(next - 1);
  Atomics.store(i32, w + P_STATUS_W, P_RUNNING); // pairs with the status loads of thieves
  Atomics.store(i32, w + P_M_W, mi + 1); // read by schedtrace
  budgetOpen(m, next - 1); // mi has not been timing the P's Gs (DESIGN.md "High work's budget")
  m.f64[pOps(next - 1) + CALLS] += 1; // plain: the P is mi's from here
  return next - 1;
}
