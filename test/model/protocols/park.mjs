// park: ready / wakep / findRunnable / stopM / acquireP and the park word (docs/DESIGN.md
// "Spin, then park", "The park word"). Ms run the runtime's loop (find a G, run it, else stopM,
// then sleep on the park word until PARK_P) with a wait that never times out, so a lost wake-up
// leaves a G queued with every M asleep. The sleep is the Parker's ladder written out below: a
// swap of the park word before every rung, one poll rung (standing for spinLimit + yieldLimit)
// taken only while parkSpin (bindings/runtime/sleep/parkspin.ts, compiled as it runs) finds a CPU free
// for it, then the deep wait, off the rungs first. Every G runs exactly once; nmspinning stays
// within [0, Ms + 1] and ends at 0 with no M flagged spinning; every P ends idle; the Ms on the
// rungs (S_RT_NPARKSPIN) stay within [0, Ms] and end at 0 with no M marked on them; every M ends
// on the idle-M list, once.
//
// Async tasks (DESIGN.md "Async tasks: where they start"): after running an async G an M is at
// its limit (the Gs pinned to it before, plus this one): it calls handoffP and blocks on no list;
// when the task settles (its next steps, or, in a `late` scenario, only once every other thread
// waits) it clears MR_ASYNC's extra count, swaps its park word (no P may have been handed to a
// blocked M) and calls mReturn, then takes the P (RETRY) or sleeps on the ladder (SLEEP). A late
// settle checks that no G waits for the blocked M while another M sleeps (with tasks that never
// settle it would wait for good). Whenever wakep hands a P to an M with async tasks pinned
// (MR_ASYNC not 0), no idle M without one may have been passed over (mGet's preference). Test
// code only.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exactlyOnce, world } from '../common.mjs';

/** The Parker lines (bindings/runtime/sleep/park.ts) the M loop below writes out, in order: when one
 *  changes, the model stops (update the loop with it) instead of checking what the runtime no
 *  longer does. */
const TRANSCRIBED = [
  'parkSpinLeave(this.m.views.i32, this.mw); // every way out counts this M off the rungs (idempotent)',
  'const x = parkSwap(i32, w);',
  'if (!this.deep && k < this.spinLimit + this.yieldLimit && parkSpin(i32, this.mw, this.ncpu)) return true;',
  'this.deep = true;',
  'parkSpinLeave(i32, this.mw); // off the rungs before the deep wait',
];
{
  const src = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bindings/runtime/sleep/park.ts'), 'utf8');
  for (const line of TRANSCRIBED) {
    if (!src.includes(line)) throw new Error(`park model: bindings/runtime/sleep/park.ts no longer has the line the model writes out: ${line}`);
  }
}

export const protocol = 'park';

export const bugs = [
  {
    name: 'park-spinning-after-unlock', // stopM clears its spinning flag after the unlock
    edits: [{
      file: 'sched.ts',
      from: `  const mw = mWord(m, mi);
  const spinning = Atomics.load(i32, mw + SPINNING) !== 0; // own flag: nobody else writes it while m holds p
  if (spinning) Atomics.store(i32, mw + SPINNING, 0); // still counted in nmspinning until step 3
  mPutLocked(m, mi);
  schedUnlock(m);`,
      to: `  const mw = mWord(m, mi);
  mPutLocked(m, mi);
  schedUnlock(m);
  const spinning = Atomics.load(i32, mw + SPINNING) !== 0;
  if (spinning) Atomics.store(i32, mw + SPINNING, 0);`,
    }],
  },
  {
    name: 'park-recheck-before-decrement', // stopM rechecks the queues before leaving nmspinning
    edits: [{
      file: 'sched.ts',
      from: `  Atomics.sub(i32, NMSPINNING_W, 1);
  if (!workVisible(m, p, false)) return STOP_SLEEP;`,
      to: `  if (!workVisible(m, p, false)) { Atomics.sub(i32, NMSPINNING_W, 1); return STOP_SLEEP; }
  Atomics.sub(i32, NMSPINNING_W, 1);`,
    }],
  },
  {
    name: 'parkspin-leave-unmarked', // leaving the rungs without checking that this M was on them
    edits: [{ file: 'parkspin.ts', from: '  if (i32[mw + FLAG] === 0) return; // plain: this M\'s own word\n', to: '' }],
  },
  {
    name: 'parkspin-refusal-keeps-count', // a refused M stays counted on the rungs
    edits: [{
      file: 'parkspin.ts',
      from: `  i32[mw + FLAG] = 0; // plain: this M's own word
  Atomics.sub(i32, NPARKSPIN_W, 1); // pairs with the other Ms' adds in parkSpin
  return false;`,
      to: `  return false;`,
    }],
  },
  {
    name: 'park-mreturn-look-first', // mReturn looks for work before it goes on the idle-M list
    edits: [{
      file: 'handoffp.ts',
      from: `  schedLock(m);
  mPutLocked(m, mi);
  schedUnlock(m);
  // After the put, as stopM's recheck after its decrement: a submitter either finds mi on the list
  // (its wakep) or published before this look.
  if (!workVisible(m, -1, false)) return STOP_SLEEP;
  return retakeIdle(m, mi);`,
      to: `  const work = workVisible(m, -1, false);
  schedLock(m);
  mPutLocked(m, mi);
  schedUnlock(m);
  if (!work) return STOP_SLEEP;
  return retakeIdle(m, mi);`,
    }],
  },
  {
    name: 'park-handoffp-no-wakep', // handoffP leaves the work it moved (or found) to the M's return
    edits: [{
      file: 'handoffp.ts',
      from: `  if (Atomics.load(i32, NMSPINNING_W) === 0 && workVisible(m, -1, false)) wakep(m);`,
      to: ``,
    }],
  },
  {
    name: 'park-mget-top', // mGet takes the top of the idle-M list, async tasks or not
    edits: [{
      file: 'idle.ts',
      from: `  while (e !== 0 && Atomics.load(i32, mWord(m, e - 1) + ASYNC) !== 0) {`,
      to: `  while (e !== 0 && false && Atomics.load(i32, mWord(m, e - 1) + ASYNC) !== 0) {`,
    }],
  },
];

const SLEEP = 0; // STOP_SLEEP (the layout's)
const RETRY = -1; // STOP_RETRY

export async function scenarios(variant, edits) {
  const make = (name, w, nms, plan, opts, mustReach) => ({
    name, world: w, opts, mustReach, reached: new Set(),
    setup(w) {
      const reached = this.reached;
      const { T, L } = w;
      const P = T.parkspin;
      const ncpu = plan.ncpu ?? 2; // CPUs for parkSpin: with 2, a poll rung waits for a P or an M to free one
      const ran = [];
      const setupM = w.mem();
      const mwOf = (mi) => (w.mBase + mi * L.M_SIZE) >> 2;
      const ASYNC = L.MR_ASYNC >> 2;
      const BLOCKED = L.MR_BLOCKED >> 2;
      const NEXTP = L.M_NEXTP >> 2;
      const MLINK = L.M_LINK >> 2;
      const held = plan.held ?? []; // [p, mi]: P p starts held by M mi (-1: an M not modelled, running a long G)
      const heldBy = new Map(held.filter(([, mi]) => mi >= 0).map(([p, mi]) => [mi, p]));
      for (const [p, mi] of held) {
        w.runDirect(T.idle.pidleRemove(setupM, p));
        const b = (L.PS + p * L.P_SIZE) >> 2;
        w.view()[b + (L.P_STATUS >> 2)] = L.P_RUNNING;
        w.view()[b + (L.P_M >> 2)] = mi + 1;
      }
      // Async tasks pinned to an M that never settle (MR_ASYNC, the runtime's owner store); its
      // limit is one more, so each async G it runs fills it.
      const pinned = (mi) => plan.pinned?.[mi] ?? 0;
      for (let mi = 0; mi < nms; mi++) w.view()[mwOf(mi) + ASYNC] = pinned(mi);
      for (let mi = 0; mi < nms; mi++) if (!heldBy.has(mi)) w.runDirect(T.sched.mPut(setupM, mi));
      const all = new Set(plan.submit);
      for (const kids of Object.values(plan.spawn ?? {})) for (const g of kids) all.add(g);
      const asyncGs = new Set(plan.async ?? []);
      const from = plan.from ?? -1;
      // Ghost state: blocked at the async limit; in the deep wait; inside stopM or mReturn (whose
      // retakeIdle hands the M a P itself); the submitter done.
      const blocked = new Array(nms).fill(false);
      const asleep = new Array(nms).fill(false);
      const rechecking = new Array(nms).fill(false);
      let submitted = false;
      /** "" unless, with every other thread waiting, a G that has not run waits for a blocked M
       *  while another M sleeps: if the blocked M's tasks never settled it would wait for good. */
      const stranded = (mi) => {
        if (!submitted) return '';
        const idle = [];
        for (let k = 0; k < nms; k++) {
          if (k === from || blocked[k]) continue;
          if (!asleep[k]) return ''; // not every thread waits (a lock's bounded wait timed out)
          idle.push(k);
        }
        const left = [...all].filter((g) => !ran.includes(g) && !(plan.left ?? []).includes(g));
        if (idle.length === 0 || left.length === 0) return '';
        return `G ${left.join(',')} waits for M${mi}, blocked at its async limit, while M${idle.join(',M')} sleeps (ran: ${ran.join(',')})`;
      };
      const mLoop = (mi) => (function* () {
        const m = w.mem();
        const mw = yield* T.mem.mWord(m, mi);
        const park = mw + (L.M_PARK >> 2);
        let p = heldBy.has(mi) ? heldBy.get(mi) : -1;
        for (;;) {
          // The Parker's sleep: swap the word and act on PARK_P before every rung; one poll
          // rung while a CPU is free for it (parkSpin), then, off the rungs, the deep wait.
          let deep = false;
          let k = 0;
          while (p < 0) {
            const x = yield ['exchange', m.i32, park, 0];
            if ((x & L.PARK_P) !== 0) { p = yield* T.sched.acquireP(m, mi); break; }
            if (!deep && k < 1 && (yield* P.parkSpin(m.i32, mw, ncpu))) { k++; reached.add('an M polled'); continue; }
            if (!deep && k < 1) reached.add('an M went deep with the CPUs taken');
            deep = true;
            yield* P.parkSpinLeave(m.i32, mw);
            asleep[mi] = true;
            yield ['wait', m.i32, park, 0];
            asleep[mi] = false;
          }
          yield* P.parkSpinLeave(m.i32, mw); // sleep()'s way out
          for (;;) {
            let g = yield* T.sched.findRunnable(m, p, mi);
            if (g === 0) {
              rechecking[mi] = true;
              const s = yield* T.sched.stopM(m, p, mi);
              rechecking[mi] = false;
              if (s === SLEEP) { p = -1; break; }
              if (s === RETRY) { p = yield* T.sched.acquireP(m, mi); continue; }
              g = s;
            }
            ran.push(g);
            for (const kid of plan.spawn?.[g] ?? []) yield* T.sched.ready(m, p, kid, 1); // newproc
            if (!asyncGs.has(g)) continue;
            // g's task is in flight and fills the M's limit (m.ts schedule): P off, M on no list.
            yield ['store', m.i32, mw + ASYNC, pinned(mi) + 1]; // asyncInc
            yield* T.handoffp.handoffP(m, p, mi);
            p = -1;
            blocked[mi] = true;
            yield ['st', m.i32, mw + BLOCKED, 1]; // setBlocked(true)
            if (plan.late) {
              // The task settles only once nothing else can run (a bounded wait nobody ends).
              if ((yield ['wait', m.i32, mw + BLOCKED, 1, 1e9]) === 'timed-out') {
                const msg = stranded(mi);
                if (msg) throw new Error(msg);
                reached.add('a blocked M came back late');
              }
            }
            yield ['store', m.i32, mw + ASYNC, pinned(mi)]; // asyncDec: the task settled
            yield ['st', m.i32, mw + BLOCKED, 0]; // unblock: setBlocked(false)
            blocked[mi] = false;
            // The sleep's swap before woke() asks unblock(): nobody hands a P to an M on no list.
            const x = yield ['exchange', m.i32, park, 0];
            if ((x & L.PARK_P) !== 0) throw new Error(`M${mi} was handed a P while blocked on no list`);
            rechecking[mi] = true;
            const s = yield* T.handoffp.mReturn(m, mi);
            rechecking[mi] = false;
            if (s === RETRY) { reached.add('a returning M took a P'); p = yield* T.sched.acquireP(m, mi); continue; }
            reached.add('a returning M went to sleep');
            break; // the ladder, as an idle M
          }
        }
      })();
      // The submitter: the main thread (no P), or M plan.from's running G on its P (that M's
      // loop is then not modelled: it runs a long G).
      const threads = [(function* () {
        const m = w.mem();
        for (const g of plan.submit) yield* T.sched.ready(m, from < 0 ? -1 : heldBy.get(from), g, 0);
        submitted = true;
      })()];
      for (let mi = 0; mi < nms; mi++) if (mi !== from) threads.push(mLoop(mi));
      const i32 = () => w.view();
      const NMSPINNING = L.S_NMSPINNING >> 2;
      const NPARKSPIN = L.S_RT_NPARKSPIN >> 2;
      /** The idle-M list, top first (at most nms + 1 entries: a cycle shows as a repeat). */
      const idleMs = (v) => {
        const out = [];
        for (let e = v[L.S_MIDLE >> 2]; e !== 0 && out.length <= nms; e = v[mwOf(e - 1) + MLINK]) out.push(e - 1);
        return out;
      };
      const nextp = new Array(nms).fill(0);
      return {
        threads,
        check() {
          const v = i32();
          const n = v[NMSPINNING];
          if (n < 0 || n > nms + 1) return `nmspinning = ${n} with ${nms} Ms`; // + 1: a wakep's CAS before it undoes
          const r = v[NPARKSPIN];
          if (r < 0 || r > nms) return `S_RT_NPARKSPIN = ${r} with ${nms} Ms`;
          // mGet's preference: a P handed (M_NEXTP set) by wakep, not by the M's own retakeIdle,
          // goes to an M with async tasks only when every idle M has some. Under sched.lock, after
          // mGet (the atomic store of M_NEXTP published the list's plain stores).
          for (let mi = 0; mi < nms; mi++) {
            const np = v[mwOf(mi) + NEXTP];
            if (np !== 0 && nextp[mi] === 0 && !rechecking[mi] && v[mwOf(mi) + ASYNC] !== 0) {
              const free = idleMs(v).filter((k) => v[mwOf(k) + ASYNC] === 0);
              if (free.length !== 0) return `wakep handed P${np - 1} to M${mi} (MR_ASYNC ${v[mwOf(mi) + ASYNC]}) with M${free.join(',M')} idle and no async task`;
              reached.add('wakep handed a P to an M with async tasks');
            } else if (np !== 0 && nextp[mi] === 0 && !rechecking[mi] && pinned(mi) === 0 && idleMs(v).some((k) => pinned(k) !== 0)) {
              reached.add('wakep passed over an M with async tasks');
            }
            nextp[mi] = np;
          }
          return '';
        },
        final() {
          const v = i32();
          const once = exactlyOnce(ran, [...all].filter((g) => !(plan.left ?? []).includes(g)));
          if (once) return `${once}: a lost wake-up (every M asleep)`;
          if (v[NMSPINNING] !== 0) return `nmspinning stuck at ${v[NMSPINNING]} with every M asleep`;
          if (v[NPARKSPIN] !== 0) return `S_RT_NPARKSPIN stuck at ${v[NPARKSPIN]} with every M in its deep wait`;
          for (let mi = 0; mi < nms; mi++) {
            if (mi === from) continue;
            const mw = mwOf(mi);
            if (v[mw + (L.M_SPINNING >> 2)] !== 0) return `M${mi} asleep with its spinning flag set`;
            if (v[mw + (L.MR_PARKSPIN >> 2)] !== 0) return `M${mi} in its deep wait still marked on the rungs`;
            if (blocked[mi] || v[mw + BLOCKED] !== 0) return `M${mi} still blocked on no list`;
          }
          const idle = idleMs(v);
          const want = [...Array(nms).keys()].filter((mi) => mi !== from);
          if (idle.length !== want.length || want.some((mi) => !idle.includes(mi)) || v[L.S_NMIDLE >> 2] !== want.length) {
            return `idle-M list [${idle.join(',')}] (nmidle ${v[L.S_NMIDLE >> 2]}) at the end, not M${want.join(',M')} once each`;
          }
          if (v[L.S_NPIDLE >> 2] !== w.nprocs - (plan.busy ?? 0)) return `npidle = ${v[L.S_NPIDLE >> 2]} at the end`;
          return '';
        },
      };
    },
  });
  const w1 = await world(variant, edits, [1, 2, 8, 16, 0, 1, 1]);
  const w2 = await world(variant, edits, [2, 2, 8, 16, 0, 1, 1]);
  const w2t = await world(variant, edits, [2, 3, 8, 16, 0, 2, 1]);
  const w4t = await world(variant, edits, [4, 2, 8, 16, 0, 2, 1]);
  return [
    // One M; the main thread submits twice: a spinning M's stopM against a submission.
    make('park: one M, two submissions', w2, 1, { submit: [1, 2] }, { bound: 2, maxDfs: 6000, random: 300 }),
    // Ps 0-2 busy (P2's M not modelled), P3 idle, steal threshold 2: M0's G readies G1 on P0
    // (too little to steal) and wakes an M, while M1, out of work, spins and parks.
    make('park: wakep vs a spinner parking', w4t, 2,
      { submit: [1], from: 0, held: [[0, 0], [1, 1], [2, -1]], left: [1], busy: 2 },
      { bound: 2, maxDfs: 8000, random: 300 }),
    // The main thread submits 2 Gs to the global queue; G1 spawns G3 into its P's runnext,
    // which the other M may steal.
    make('park: submit, spawn, steal, sleep', w2, 2, { submit: [1, 2], spawn: { 1: [3] } },
      { bound: 1, maxDfs: 2500, random: 600 }, ['an M polled']),
    // Three Ms for two Ps, a steal threshold of 2: Ms left without a P and spinners that may
    // not steal; one CPU, so an M without a P polls only while no P is held.
    make('park: 3 Ms, 2 Ps, threshold 2, one CPU', w2t, 3, { submit: [1], spawn: { 1: [2, 3] }, ncpu: 1 },
      { bound: 1, maxDfs: 1500, random: 600 }, ['an M polled', 'an M went deep with the CPUs taken']),
    // One M, one P: G1 is async, so M0 blocks (handoffP) and comes back (mReturn) while the
    // main thread submits G2; a wakep meanwhile finds the P idle and no M to run it.
    make('park: async G, the M back while the main thread submits', w1, 1, { submit: [1, 2], async: [1] },
      { bound: 2, maxDfs: 4000, random: 400 }, ['a returning M took a P', 'a returning M went to sleep']),
    // One P, held by M0, M1 idle: the main thread queues G1 (async) and G2 with no P idle; M0
    // blocks after G1 and comes back only once every other thread waits: G2 must not wait for it.
    make('park: async G, the M back late', w1, 2, { submit: [1, 2], async: [1], held: [[0, 0]], late: true },
      { bound: 2, maxDfs: 3000, random: 400 }, ['a blocked M came back late']),
    // Two Ps; M1 has a task pinned (MR_ASYNC 1) and sits on top of the idle list: wakeups go to
    // M0 while it is idle. G1 blocks M0, G3 blocks M1 (at its limit of 2); each comes back.
    make('park: async Gs, an M with a task pinned', w2, 2, { submit: [1, 2, 3], async: [1, 3], pinned: { 1: 1 } },
      { bound: 1, maxDfs: 3000, random: 400 },
      ['wakep passed over an M with async tasks', 'wakep handed a P to an M with async tasks', 'a returning M took a P']),
    // Two Ps: G1, async, spawns G3 into runnext, which handoffP moves to the global queue while
    // the other M may steal it; M0 comes back only once every other thread waits.
    make('park: async G spawning, the M back late', w2, 2, { submit: [1, 2], spawn: { 1: [3] }, async: [1], late: true },
      { bound: 1, maxDfs: 2000, random: 400 }, ['a blocked M came back late']),
  ];
}
