// The scheduler proper: findRunnable, spinning, stopM, wakep, ready, newproc, acquireP, mTake
// (docs/DESIGN.md, "findRunnable (Go's order)", "Spin, then park" and "Priority classes").
//
// Whoever makes work runnable publishes it (tail store, or the global or a class queue under
// sched.lock) before reading nmspinning and npidle; a spinning M that gives up decrements
// nmspinning (the StoreLoad point, an atomic RMW) before it rechecks every queue. DESIGN.md
// "Why no wake-up is lost" has the argument.

import {
  NONE, FLAG_GLOBAL_ONLY, G_PRIO, G_RUNNABLE, G_RUNNING, G_STATUS, M_NEXTP, M_PARK, PARK_P, M_SPINNING, PC_EXECUTED,
  PC_GLOBAL_HITS, PC_HIGH_HITS, PC_LOCAL_HITS, PC_LOW_HITS, PC_PARKS, PC_RUNNEXT_HITS, PC_SPAWNED, PC_SPINS,
  PC_STEAL_MISSES, PC_WAKEUPS, PC_HIGH_THROTTLES, P_COUNTERS, P_IDLE, P_M, P_RUNNEXT, P_RUNNING, P_SCHEDTICK, P_STATUS,
  S_MIDLE, S_NEEDSPINNING, S_NMSPINNING, S_NPIDLE, S_PIDLE, S_RUNQ_HEAD, S_RUNQ_SIZE, GLOBAL_CHECK_TICKS,
  LOW_CHECK_TICKS, MR_TRACE_BUF, PRIO_HIGH, PRIO_LOW, PRIO_MASK, PRIO_NORMAL, STOP_RETRY, STOP_SLEEP,
  P_OPS, OP_CALLS, OP_PROBES, OP_RETRIES, P_PARK_PROBES,
} from './shared/layout';
import { traceSpawn, traceStart, traceSteal } from './trace';
import { counterAdd, flags, mAddr, nprocs, pAddr, spinningSeen } from './mem';
import { schedLock, schedUnlock } from './lock';
import { gAddr, gSetStatus } from './gtable';
import { globrunqGetBatch, globrunqPut } from './globrunq';
import { globrunqGet, runqPutBatchTail } from './globrunqget';
import { runqEmpty, runqGetNext, runqGetRing, runqLen, runqPut } from './runq';
import { stealThreshold, stealWork } from './steal';
import { classqGet, classqPopLocked, classqPut, classqSize } from './classq';
import { mGet, mPutLocked, mRemove, npBusy, pidleGet, pidlePut } from './idle';
import { beginAbort } from './abort';
import { budgetFree, budgetOpen, budgetSpent } from './budget';
import { forkLen, forkqPop } from './forkq';

/** M mp starts spinning (Go's becomeSpinning). M mp holding P pp only. */
function becomeSpinning(pp: usize, mp: usize): void {
  atomic.store<u32>(mp, 1, M_SPINNING); // pairs with the spinning loads in stopM/findRunnable
  spinningSeen(atomic.add<i32>(S_NMSPINNING, 1) + 1); // pairs with the nmspinning load/CAS in wakep
  atomic.store<u32>(S_NEEDSPINNING, 0); // pairs with the needspinning store in wakep
  counterAdd(pp + (P_COUNTERS + PC_SPINS), 1);
}

/**
 * M mp, holding P block pp, stops spinning because it found work (Go's resetspinning): the last
 * spinner to find work starts the next one, if there is more work in sight (Go wakes one
 * regardless; a task that arrives later wakes one itself, since nmspinning is 0 from here:
 * DESIGN.md "Spin, then park"). M mp only.
 */
function resetSpinning(pp: usize, mp: usize): void {
  atomic.store<u32>(mp, 0, M_SPINNING); // pairs with the spinning loads in stopM/findRunnable
  atomic.sub<i32>(S_NMSPINNING, 1); // StoreLoad: pairs with the nmspinning load/CAS in wakep
  if (workAnywhere(pp, true)) wakep();
}

/**
 * Starts runnable g on P p (block pp) for M mp (findRunnable step 6): a new time slice bumps
 * schedtick, g becomes G_RUNNING, an M that traces records the start, and a spinning M stops
 * spinning. M mp holding P p only (findRunnable, stopM, forkHelp).
 */
export function execute(pp: usize, p: i32, mp: usize, g: u32, newSlice: bool): void {
  if (newSlice) {
    atomic.store<u32>(pp, load<u32>(pp, P_SCHEDTICK) + 1, P_SCHEDTICK); // plain load: owner only; store pairs with the monitor's load
  }
  gSetStatus(g, G_RUNNABLE, G_RUNNING);
  counterAdd(pp + (P_COUNTERS + PC_EXECUTED), 1);
  let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
  if (ring != 0) traceStart(mp, ring, p, g);
  if (atomic.load<u32>(mp, M_SPINNING) != 0) resetSpinning(pp, mp); // pairs with the store in wakep/stopM
}

/**
 * Go's findRunnable without the blocking part, with the class queues (DESIGN.md "Priority
 * classes"): the high queue unless p's high budget is spent, the global queue every 61st slice,
 * the low queue every LOW_CHECK_TICKS-th, runnext and the ring, the global queue, then (within
 * the spin limit) stealing, the low queue, and last the high queue a spent budget passed over.
 * Returns a G already G_RUNNING, or 0 (m may be spinning now: call stopM next). M m holding P p
 * only.
 */
export function findRunnable(p: i32, m: i32): u32 {
  let pp = pAddr(p);
  let mp = mAddr(m);
  counterAdd(pp + (P_OPS + OP_CALLS), 1);
  let g: u32 = 0;
  let newSlice = true;
  let throttled = false;
  if (classqSize(PRIO_HIGH) > 0) { // the normal path's one extra load
    if (!budgetSpent(pp)) {
      g = classqGet(PRIO_HIGH); // one G: a batch would put high Gs on the ring as normal work
      if (g != 0) counterAdd(pp + (P_COUNTERS + PC_HIGH_HITS), 1);
    } else {
      throttled = true; // other work first; high work again if none is found (below)
      counterAdd(pp + (P_COUNTERS + PC_HIGH_THROTTLES), 1);
    }
  }
  let tick = load<u32>(pp, P_SCHEDTICK); // plain: only the owner writes schedtick
  if (g == 0 && tick % GLOBAL_CHECK_TICKS == 0 && atomic.load<u32>(S_RUNQ_SIZE) > 0) { // pairs with the size stores under sched.lock
    g = globrunqGet(p, 1); // fairness: one G
    if (g != 0) counterAdd(pp + (P_COUNTERS + PC_GLOBAL_HITS), 1);
  }
  if (g == 0 && tick % LOW_CHECK_TICKS == 0 && classqSize(PRIO_LOW) > 0) {
    g = classqGet(PRIO_LOW); // the anti-starvation turn: low work progresses under normal load
    if (g != 0) counterAdd(pp + (P_COUNTERS + PC_LOW_HITS), 1);
  }
  if (g == 0) {
    g = runqGetNext(pp);
    if (g != 0) {
      newSlice = false; // runnext inherits the time slice
      counterAdd(pp + (P_COUNTERS + PC_RUNNEXT_HITS), 1);
    } else {
      g = runqGetRing(pp);
      if (g != 0) counterAdd(pp + (P_COUNTERS + PC_LOCAL_HITS), 1);
    }
  }
  // The P's own fork deque: empty between tasks, unless this M took over a crashed one's P
  // (DESIGN.md "Fork-join"); two loads when empty.
  if (g == 0 && forkLen(p) != 0) {
    g = forkqPop(pp);
    if (g != 0) counterAdd(pp + (P_COUNTERS + PC_LOCAL_HITS), 1);
  }
  if (g == 0 && atomic.load<u32>(S_RUNQ_SIZE) > 0) { // pairs with the size stores under sched.lock
    g = globrunqGet(p, 0);
    if (g != 0) counterAdd(pp + (P_COUNTERS + PC_GLOBAL_HITS), 1);
  }
  if (g == 0) {
    let spinning = atomic.load<u32>(mp, M_SPINNING) != 0; // pairs with the store in wakep/stopM
    // Go's spin limit: at most half as many spinners as Ps held by an M (not idle, reserved,
    // without an M or out of service: none of those has a queue to steal from).
    if (spinning || 2 * atomic.load<i32>(S_NMSPINNING) < npBusy()) { // pairs with the nmspinning RMWs
      if (!spinning) becomeSpinning(pp, mp);
      g = stealWork(p); // rings hold normal Gs only
      if (g == 0) counterAdd(pp + (P_COUNTERS + PC_STEAL_MISSES), 1);
      else {
        let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
        if (ring != 0) traceSteal(mp, ring, p, pp); // before execute writes the stolen G's start
      }
    }
  }
  if (g == 0 && classqSize(PRIO_LOW) > 0) { // also when the spin limit forbade stealing
    g = classqGet(PRIO_LOW); // nothing else to run: low work
    if (g != 0) counterAdd(pp + (P_COUNTERS + PC_LOW_HITS), 1);
  }
  if (g == 0 && throttled) {
    g = classqGet(PRIO_HIGH); // throttled, and nothing else to run: high work, not charged
    if (g != 0) {
      budgetFree(pp);
      counterAdd(pp + (P_COUNTERS + PC_HIGH_HITS), 1);
    }
  }
  if (g == 0) return 0;
  execute(pp, p, mp, g, newSlice);
  return g;
}

/**
 * Whether any queue has work an M without a P should come back for: the global queue, a class
 * queue, or a non-idle P with work a spinner would steal (stealWork's last pass: ring and
 * runnext, at least the steal threshold; any fork deque G). Less is its owner's to run: coming back for it would
 * loop findRunnable -> stopM -> Retry for as long as the owner runs its current G. The Ps it
 * looked at are counted on P block pp: as its owner's OP_PROBES (`owner`), else in
 * P_PARK_PROBES (stopM's recheck: pp was just given up); nowhere when pp is 0 (an M without a
 * P: handoffp.ts). Any thread.
 */
export function workAnywhere(pp: usize, owner: bool): bool {
  if (atomic.load<u32>(S_RUNQ_SIZE) > 0) return true; // pairs with the size stores under sched.lock
  if (classqSize(PRIO_HIGH) > 0 || classqSize(PRIO_LOW) > 0) return true;
  let n = nprocs();
  let thr = stealThreshold();
  let found = false;
  let v = 0;
  for (; v < n && !found; v++) {
    let vp = pAddr(v);
    if (atomic.load<u32>(vp, P_STATUS) == P_IDLE) continue; // pairs with the status stores in acquireP/stopM
    if (forkLen(v) != 0) found = true; // a fork is stolen whatever the threshold
    else if (thr <= 1) found = !runqEmpty(v);
    else found = runqLen(v) + (atomic.load<u32>(vp, P_RUNNEXT) != 0 ? 1 : 0) >= thr; // pairs with the runnext exchange/CAS
  }
  if (pp == 0) return found;
  if (owner) counterAdd(pp + (P_OPS + OP_PROBES), <f64>v);
  else atomic.add<u32>(pp, <u32>v, P_PARK_PROBES); // pp has no owner now: pairs with the stats' load
  return found;
}

/**
 * M m gives up P p after findRunnable returned 0. Returns a G (the global queue, else the high
 * queue, else the low queue had work; p is kept and g is running), STOP_SLEEP (p and m are
 * idle: sleep on M_PARK, then acquireP), or STOP_RETRY (m was spinning, the recheck found work,
 * and m took an idle P: acquireP, then findRunnable). M m holding P p only.
 */
export function stopM(p: i32, m: i32): i32 {
  let pp = pAddr(p);
  let mp = mAddr(m);
  counterAdd(pp + (P_OPS + OP_CALLS), 1);
  schedLock();
  if (atomic.load<u32>(S_RUNQ_SIZE) > 0) { // pairs with the size stores under sched.lock
    let g = load<u32>(S_RUNQ_HEAD); // plain: sched.lock held
    let n = globrunqGetBatch(0);
    schedUnlock();
    runqPutBatchTail(p, g, n);
    counterAdd(pp + (P_COUNTERS + PC_GLOBAL_HITS), 1);
    execute(pp, p, mp, g, true);
    return <i32>g;
  }
  // A class G, one only (as in findRunnable): high before low.
  let cg = classqPopLocked(PRIO_HIGH);
  let hits: usize = PC_HIGH_HITS;
  if (cg == 0) {
    cg = classqPopLocked(PRIO_LOW);
    hits = PC_LOW_HITS;
  }
  if (cg != 0) {
    schedUnlock();
    if (hits == PC_HIGH_HITS && budgetSpent(pp)) budgetFree(pp); // nothing else found: not charged
    counterAdd(pp + P_COUNTERS + hits, 1);
    execute(pp, p, mp, cg, true);
    return <i32>cg;
  }
  // Release p and park m in one critical section: the P stopM idles has an idle M (handoffP's
  // has none until its M comes back: mReturn looks for work after its put).
  atomic.store<u32>(pp, P_IDLE, P_STATUS); // pairs with status loads in stealWork/workAnywhere
  atomic.store<u32>(pp, 0, P_M); // pairs with the runtime's loads
  pidlePut(p);
  counterAdd(pp + (P_COUNTERS + PC_PARKS), 1); // sched.lock held: p has no owner now
  // An M on midle never has its own spinning flag set: only wakep sets it there, together with
  // M_NEXTP, when it takes the M off (DESIGN.md stopM step 2). Clearing it after the unlock let
  // a wakep pick this M while still flagged and count it twice.
  let spinning = atomic.load<u32>(mp, M_SPINNING) != 0; // own flag: nobody else writes it while m holds p
  if (spinning) atomic.store<u32>(mp, 0, M_SPINNING); // still counted in nmspinning until the decrement below
  mPutLocked(m);
  schedUnlock();
  if (spinning) {
    atomic.sub<i32>(S_NMSPINNING, 1); // StoreLoad point: pairs with the nmspinning load/CAS in wakep
    if (workAnywhere(pp, false)) return retakeIdle(m, mp);
  }
  return STOP_SLEEP;
}

/**
 * stopM's recheck found work (and mReturn's, handoffp.ts): M m (block mp), on the idle-M list,
 * takes an idle P back for itself, counted spinning, if wakep (M_NEXTP set) or mTake (reserved by
 * the runtime) has not taken m off the list since it went on: then m is theirs, and only an m
 * still on the list retries. STOP_RETRY (acquireP, then findRunnable) or STOP_SLEEP. M m only.
 */
export function retakeIdle(m: i32, mp: usize): i32 {
  schedLock();
  if (load<u32>(S_PIDLE) != 0 && mRemove(m)) { // plain: sched.lock held
    let p2 = pidleGet();
    atomic.store<u32>(mp, <u32>p2 + 1, M_NEXTP); // pairs with the load in acquireP
    atomic.store<u32>(mp, 1, M_SPINNING); // pairs with the spinning loads in findRunnable
    spinningSeen(atomic.add<i32>(S_NMSPINNING, 1) + 1); // pairs with the nmspinning load/CAS in wakep
    counterAdd(pAddr(p2) + (P_COUNTERS + PC_WAKEUPS), 1); // sched.lock held: p2 has no owner yet
    counterAdd(pAddr(p2) + (P_OPS + OP_RETRIES), 1); // as above
    schedUnlock();
    return STOP_RETRY;
  }
  schedUnlock();
  return STOP_SLEEP;
}

/**
 * Wakes an idle M with an idle P, counted spinning, if nobody spins: at most one wake-up in
 * flight. An idle P without an idle M to run it is left idle. Any thread.
 */
export function wakep(): void {
  if (atomic.load<i32>(S_NMSPINNING) != 0) return; // pairs with the nmspinning RMWs
  if (atomic.cmpxchg<i32>(S_NMSPINNING, 0, 1) != 0) return; // pairs with the nmspinning RMWs
  spinningSeen(1);
  schedLock();
  let p = load<u32>(S_MIDLE) != 0 ? pidleGet() : NONE; // plain: sched.lock held
  if (p < 0) {
    atomic.sub<i32>(S_NMSPINNING, 1); // undo: pairs with the nmspinning load/CAS in wakep
    atomic.store<u32>(S_NEEDSPINNING, 1); // pairs with the store in becomeSpinning
    schedUnlock();
    return;
  }
  let m = mGet();
  let mp = mAddr(m);
  let pp = pAddr(p);
  atomic.store<u32>(mp, <u32>p + 1, M_NEXTP); // pairs with the load in acquireP and stopM's check
  atomic.store<u32>(mp, 1, M_SPINNING); // pairs with the spinning loads in stopM/findRunnable
  atomic.store<u32>(pp, <u32>m + 1, P_M); // pairs with the runtime's loads
  counterAdd(pp + (P_COUNTERS + PC_WAKEUPS), 1); // sched.lock held: pp has no owner yet
  schedUnlock();
  atomic.or<u32>(mp, PARK_P, M_PARK); // keeps the runtime's other bits: pairs with the sleeping M's exchange(park, 0)
  atomic.notify(mp + M_PARK, 1); // pairs with the park loop's wait32
}

/**
 * Takes the P handed over in M_NEXTP (by wakep or stopM) and marks it running; returns its
 * index. M m after waking, without a P only.
 */
export function acquireP(m: i32): i32 {
  let mp = mAddr(m);
  let next = atomic.load<u32>(mp, M_NEXTP); // pairs with the store in wakep/stopM
  if (next == 0) {
    beginAbort();
    throw new Error('acquireP: m=' + m.toString() + ' has no P handed over');
  }
  atomic.store<u32>(mp, 0, M_NEXTP); // pairs with stopM's check under sched.lock
  let p = <i32>next - 1;
  let pp = pAddr(p);
  atomic.store<u32>(pp, P_RUNNING, P_STATUS); // pairs with status loads in stealWork/workAnywhere
  atomic.store<u32>(pp, <u32>m + 1, P_M); // pairs with the runtime's loads
  budgetOpen(pp); // m has not been timing p's Gs (DESIGN.md "High work's budget")
  counterAdd(pp + (P_OPS + OP_CALLS), 1); // p is m's from here
  return p;
}

/** Puts M m on the idle-M list (start-up). M m without a P only. */
export function mPut(m: i32): void {
  schedLock();
  mPutLocked(m);
  schedUnlock();
}

/**
 * Takes an idle M off the idle-M list for the caller to hand work to (the runtime reserves a
 * spare M this way); returns its index, or NONE when none is idle. The M stays asleep on its park
 * word until the caller wakes it; stopM's recheck leaves an M taken this way alone. Any thread.
 */
export function mTake(): i32 {
  schedLock();
  let m = mGet();
  schedUnlock();
  return m;
}

/**
 * Go's newproc for a G the runtime has prepared: G parent, running on M m with P p, spawned g,
 * which goes into p's runnext (ready with `next`); an M that traces records the spawn.
 * M m holding P p only.
 */
export function newproc(p: i32, m: i32, g: u32, parent: u32): void {
  let mp = mAddr(m);
  let ring = load<u32>(mp, MR_TRACE_BUF); // plain: set before the M started; 0 when tracing is off
  if (ring != 0) traceSpawn(mp, ring, g, parent);
  ready(p, g, 1);
}

/**
 * Makes g (G_DEAD or G_WAITING) runnable. A normal G goes on P p's run queue (runnext when
 * `next` != 0), or on the global queue when p < 0 or FLAG_GLOBAL_ONLY; a high or low G on its
 * class queue, whatever p and `next` (DESIGN.md "Priority classes"). Then wakes an idle P if
 * nobody spins. p >= 0: owner P only; p < 0: any thread.
 */
export function ready(p: i32, g: u32, next: i32): void {
  let gp = gAddr(g);
  let status = atomic.load<u32>(gp, G_STATUS); // pairs with the status store of g's last transition
  // plain: written by whoever prepared g, before the handover (gfGet, a join word RMW) that made g ours
  let cls = load<u32>(gp, G_PRIO) & PRIO_MASK;
  gSetStatus(g, status, G_RUNNABLE);
  if (p >= 0) counterAdd(pAddr(p) + (P_COUNTERS + PC_SPAWNED), 1);
  if (cls != PRIO_NORMAL) {
    classqPut(g, cls);
  } else if (p >= 0 && (flags() & FLAG_GLOBAL_ONLY) == 0) {
    runqPut(p, g, next);
  } else {
    globrunqPut(g);
  }
  // The work is published above, before these loads: DESIGN.md "Why no wake-up is lost".
  if (atomic.load<i32>(S_NPIDLE) > 0 && atomic.load<i32>(S_NMSPINNING) == 0) wakep(); // pairs with the npidle/nmspinning RMWs
}
