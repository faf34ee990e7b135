// runq: runqPut / runqGet / runqGrab / runqSteal, runnext, the overflow to the global queue
// (docs/DESIGN.md "Local run queue"). Every G runs exactly once; 0 <= tail - head <= the ring's
// size at every step; runqEmpty never says empty while a G stays queued. Test code only.

import { exactlyOnce, world } from '../common.mjs';

export const protocol = 'runq';

export const bugs = [
  {
    name: 'runq-plain-tail', // the ring's tail published by a plain store
    edits: [{
      file: 'runq.ts',
      from: 'Atomics.store(i32, w + TAIL, (t + 1) | 0); // publish: pairs with the tail load in runqGrab',
      to: 'i32[w + TAIL] = (t + 1) | 0;',
    }],
  },
  {
    name: 'runq-get-no-cas', // the owner takes the head without a CAS against thieves
    edits: [{
      file: 'runq.ts',
      from: 'const was = Atomics.compareExchange(i32, w + HEAD, h, (h + 1) | 0);',
      to: 'Atomics.store(i32, w + HEAD, (h + 1) | 0); const was = h;',
    }],
  },
  {
    name: 'runq-empty-no-recheck', // runqEmpty trusts one read of tail
    edits: [{
      file: 'runq.ts',
      from: 'if (t === t2) return h === t && n === 0 ? 1 : 0;',
      to: 'return h === t && n === 0 ? 1 : 0;',
    }],
  },
];

/** Drains P p as its owner: the ring (runnext first), then the global queue. */
function* drain(T, m, p, ran) {
  for (;;) {
    let g = yield* T.runq.runqGet(m, p);
    if (g === 0) g = yield* T.globrunqget.globrunqGet(m, p, 0);
    if (g === 0) return;
    ran.push(g);
  }
}

/** tail - head of every P's ring stays in [0, size] (read from memory as it is now). */
function ringCheck(w, nprocs) {
  const { L } = w;
  const i32 = w.view();
  for (let p = 0; p < nprocs; p++) {
    const b = (L.PS + p * L.P_SIZE) >> 2;
    const d = (i32[b + (L.P_TAIL >> 2)] - i32[b + (L.P_HEAD >> 2)]) >>> 0;
    if (d > L.RUNQ_SIZE) return `P${p}: tail - head = ${d}`;
  }
  return '';
}

export async function scenarios(variant, edits) {
  const w2 = await world(variant, edits, [2, 2, 16, 16, 0, 1, 1]);
  const w3 = await world(variant, edits, [3, 3, 16, 16, 0, 1, 1]);
  return [
    {
      // The owner puts 6 Gs (two into runnext, kicking the one before; the sixth overflows half
      // the ring and itself to the global queue) and drains; a thief steals (runnext too) and
      // drains its own ring.
      name: 'runq: put, overflow, get vs steal', world: w2, opts: { bound: 2, maxDfs: 1500, random: 400 },
      setup(w) {
        const { T } = w;
        const ran = [];
        const m0 = w.mem();
        const m1 = w.mem();
        return {
          threads: [
            (function* () {
              const next = [0, 1, 0, 1, 0, 0];
              for (let g = 1; g <= 6; g++) yield* T.runq.runqPut(m0, 0, g, next[g - 1]);
              yield* drain(T, m0, 0, ran);
            })(),
            (function* () {
              const g = yield* T.runq.runqSteal(m1, 1, 0, 1);
              if (g !== 0) ran.push(g);
              yield* drain(T, m1, 1, ran);
            })(),
          ],
          check: () => ringCheck(w, 2),
          final: () => exactlyOnce(ran, [1, 2, 3, 4, 5, 6]),
        };
      },
    },
    {
      // Two thieves on a 3-P world race each other and the owner for 3 Gs.
      name: 'runq: two thieves', world: w3, opts: { bound: 2, maxDfs: 1500, random: 400 },
      setup(w) {
        const { T } = w;
        const ran = [];
        const ms = [w.mem(), w.mem(), w.mem()];
        const thief = (p) => (function* () {
          const g = yield* T.runq.runqSteal(ms[p], p, 0, 1);
          if (g !== 0) ran.push(g);
          yield* drain(T, ms[p], p, ran);
        })();
        return {
          threads: [
            (function* () {
              for (let g = 1; g <= 3; g++) yield* T.runq.runqPut(ms[0], 0, g, g === 3 ? 1 : 0);
              const g = yield* T.runq.runqGet(ms[0], 0);
              if (g !== 0) ran.push(g);
            })(),
            thief(1),
            thief(2),
          ],
          check: () => ringCheck(w, 3),
          final() {
            // The owner took one G; anything it left stays queued for it: count it as run.
            const m = w.mem();
            const rest = [];
            const { runDirect } = w;
            for (let g = runDirect(T.runq.runqGet(m, 0)); g !== 0; g = runDirect(T.runq.runqGet(m, 0))) rest.push(g);
            return exactlyOnce([...ran, ...rest], [1, 2, 3]);
          },
        };
      },
    },
    {
      // runnext holds G1; the owner kicks it into the ring and takes the new runnext. G1 stays
      // queued throughout, so runqEmpty must never say empty.
      name: 'runq: runqEmpty vs a kick', world: w2, opts: { bound: 2, maxDfs: 1500, random: 200 },
      setup(w) {
        const { T } = w;
        const m0 = w.mem();
        const m1 = w.mem();
        w.runDirect(T.runq.runqPut(m0, 0, 1, 1));
        const said = [];
        let took = -1;
        return {
          threads: [
            (function* () {
              yield* T.runq.runqPut(m0, 0, 2, 1);
              took = yield* T.runq.runqGet(m0, 0);
            })(),
            (function* () {
              for (let k = 0; k < 2; k++) said.push(yield* T.runq.runqEmpty(m1, 0));
            })(),
          ],
          final: () => (took !== 2 ? `the owner took ${took}, not runnext's 2`
            : said.includes(1) ? 'runqEmpty said empty while G1 was queued' : ''),
        };
      },
    },
  ];
}
