// park: ready / wakep / findRunnable / stopM / acquireP and the park word (docs/DESIGN.md
// "Spin, then park"). Ms run the runtime's loop (find a G, run it, else stopM, then sleep on
// the park word until PARK_P) with a wait that never times out, so a lost wake-up leaves a G
// queued with every M asleep. Every G runs exactly once; nmspinning stays within [0, Ms + 1] and
// ends at 0 with no M flagged spinning; every P ends idle. Test code only.

import { exactlyOnce, world } from '../common.mjs';

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
  if (!workVisible(m)) return STOP_SLEEP;`,
      to: `  if (!workVisible(m)) { Atomics.sub(i32, NMSPINNING_W, 1); return STOP_SLEEP; }
  Atomics.sub(i32, NMSPINNING_W, 1);`,
    }],
  },
];

const SLEEP = 0; // STOP_SLEEP (the layout's)
const RETRY = -1; // STOP_RETRY

export async function scenarios(variant, edits) {
  const make = (name, w, nms, plan, opts) => ({
    name, world: w, opts,
    setup(w) {
      const { T, L } = w;
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
        const park = (yield* T.mem.mWord(m, mi)) + (L.M_PARK >> 2);
        let p = heldBy.has(mi) ? heldBy.get(mi) : -1;
        for (;;) {
          while (p < 0) { // the park ladder's last rung: swap the word, act on PARK_P, else wait
            const x = yield ['exchange', m.i32, park, 0];
            if ((x & L.PARK_P) !== 0) p = yield* T.sched.acquireP(m, mi);
            else yield ['wait', m.i32, park, 0];
          }
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
      return {
        threads,
        check() {
          const n = i32()[NMSPINNING];
          return n < 0 || n > nms + 1 ? `nmspinning = ${n} with ${nms} Ms` : ''; // + 1: a wakep's CAS before it undoes
        },
        final() {
          const v = i32();
          const once = exactlyOnce(ran, [...all].filter((g) => !(plan.left ?? []).includes(g)));
          if (once) return `${once}: a lost wake-up (every M asleep)`;
          if (v[NMSPINNING] !== 0) return `nmspinning stuck at ${v[NMSPINNING]} with every M asleep`;
          for (let mi = 0; mi < nms; mi++) {
            if (mi === from) continue;
            const mw = ((v[(L.HEADER + L.H_MBASE) >> 2] + mi * L.M_SIZE) >> 2);
            if (v[mw + (L.M_SPINNING >> 2)] !== 0) return `M${mi} asleep with its spinning flag set`;
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
      { bound: 1, maxDfs: 2500, random: 600 }),
    // Three Ms for two Ps, a steal threshold of 2: Ms left without a P and spinners that may
    // not steal.
    make('park: 3 Ms, 2 Ps, threshold 2', w2t, 3, { submit: [1], spawn: { 1: [2, 3] } },
      { bound: 1, maxDfs: 1500, random: 600 }),
  ];
}
