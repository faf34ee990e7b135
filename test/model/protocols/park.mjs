// park: ready / wakep / findRunnable / stopM / acquireP and the park word (docs/DESIGN.md
// "Spin, then park", "The park word"). Ms run the runtime's loop (find a G, run it, else stopM,
// then sleep on the park word until PARK_P) with a wait that never times out, so a lost wake-up
// leaves a G queued with every M asleep. The sleep is the Parker's ladder written out below: a
// swap of the park word before every rung, one poll rung (standing for spinLimit + yieldLimit)
// taken only while parkSpin (bindings/runtime/sleep/parkspin.ts, compiled as it runs) finds a CPU free
// for it, then the deep wait, off the rungs first. Every G runs exactly once; nmspinning stays
// within [0, Ms + 1] and ends at 0 with no M flagged spinning; every P ends idle; the Ms on the
// rungs (S_RT_NPARKSPIN) stay within [0, Ms] and end at 0 with no M marked on them. Test code
// only.

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
      const held = plan.held ?? []; // [p, mi]: P p starts held by M mi (-1: an M not modelled, running a long G)
      const heldBy = new Map(held.filter(([, mi]) => mi >= 0).map(([p, mi]) => [mi, p]));
      for (const [p, mi] of held) {
        w.runDirect(T.idle.pidleRemove(setupM, p));
        const b = (L.PS + p * L.P_SIZE) >> 2;
        w.view()[b + (L.P_STATUS >> 2)] = L.P_RUNNING;
        w.view()[b + (L.P_M >> 2)] = mi + 1;
      }
      for (let mi = 0; mi < nms; mi++) if (!heldBy.has(mi)) w.runDirect(T.sched.mPut(setupM, mi));
      const all = new Set(plan.submit);
      for (const kids of Object.values(plan.spawn ?? {})) for (const g of kids) all.add(g);
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
            yield ['wait', m.i32, park, 0];
          }
          yield* P.parkSpinLeave(m.i32, mw); // sleep()'s way out
          for (;;) {
            let g = yield* T.sched.findRunnable(m, p, mi);
            if (g === 0) {
              const s = yield* T.sched.stopM(m, p, mi);
              if (s === SLEEP) { p = -1; break; }
              if (s === RETRY) { p = yield* T.sched.acquireP(m, mi); continue; }
              g = s;
            }
            ran.push(g);
            for (const kid of plan.spawn?.[g] ?? []) yield* T.sched.ready(m, p, kid, 1); // newproc
          }
        }
      })();
      // The submitter: the main thread (no P), or M plan.from's running G on its P (that M's
      // loop is then not modelled: it runs a long G).
      const from = plan.from ?? -1;
      const threads = [(function* () {
        const m = w.mem();
        for (const g of plan.submit) yield* T.sched.ready(m, from < 0 ? -1 : heldBy.get(from), g, 0);
      })()];
      for (let mi = 0; mi < nms; mi++) if (mi !== from) threads.push(mLoop(mi));
      const i32 = () => w.view();
      const NMSPINNING = L.S_NMSPINNING >> 2;
      const NPARKSPIN = L.S_RT_NPARKSPIN >> 2;
      return {
        threads,
        check() {
          const n = i32()[NMSPINNING];
          if (n < 0 || n > nms + 1) return `nmspinning = ${n} with ${nms} Ms`; // + 1: a wakep's CAS before it undoes
          const r = i32()[NPARKSPIN];
          return r < 0 || r > nms ? `S_RT_NPARKSPIN = ${r} with ${nms} Ms` : '';
        },
        final() {
          const v = i32();
          const once = exactlyOnce(ran, [...all].filter((g) => !(plan.left ?? []).includes(g)));
          if (once) return `${once}: a lost wake-up (every M asleep)`;
          if (v[NMSPINNING] !== 0) return `nmspinning stuck at ${v[NMSPINNING]} with every M asleep`;
          if (v[NPARKSPIN] !== 0) return `S_RT_NPARKSPIN stuck at ${v[NPARKSPIN]} with every M in its deep wait`;
          for (let mi = 0; mi < nms; mi++) {
            if (mi === from) continue;
            const mw = ((v[(L.HEADER + L.H_MBASE) >> 2] + mi * L.M_SIZE) >> 2);
            if (v[mw + (L.M_SPINNING >> 2)] !== 0) return `M${mi} asleep with its spinning flag set`;
            if (v[mw + (L.MR_PARKSPIN >> 2)] !== 0) return `M${mi} in its deep wait still marked on the rungs`;
          }
          if (v[L.S_NPIDLE >> 2] !== w.nprocs - (plan.busy ?? 0)) return `npidle = ${v[L.S_NPIDLE >> 2]} at the end`;
          return '';
        },
      };
    },
  });
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
  ];
}
