// classq: the high and low class queues beside the normal path (docs/DESIGN.md "Priority
// classes"): FIFOs under sched.lock with sizes read lock-free. Each G is taken exactly once, in
// put order within its class; a size read never leaves [0, Gs put]. Test code only.

import { exactlyOnce, world } from '../common.mjs';

export const protocol = 'classq';

export const bugs = [
  {
    name: 'classq-get-unlocked', // classqGet pops without sched.lock
    edits: [{
      file: 'classq.ts',
      from: `  schedLock(m);
  const g = classqPopLocked(m, c);
  schedUnlock(m);`,
      to: '  const g = classqPopLocked(m, c);',
    }],
  },
  {
    name: 'classq-link-after-unlock', // a put clears its G's link after the lock published it
    edits: [
      { file: 'classq.ts', from: '  gSetLink(m, g, 0); // plain: g is ours until the lock publishes it\n', to: '' },
      { file: 'classq.ts', from: `  m.f64[high ? SC_HIGH_PUT_F : SC_LOW_PUT_F] += 1; // plain: under sched.lock
  schedUnlock(m);`, to: `  m.f64[high ? SC_HIGH_PUT_F : SC_LOW_PUT_F] += 1; // plain: under sched.lock
  schedUnlock(m);
  gSetLink(m, g, 0);` },
    ],
  },
];

export async function scenarios(variant, edits) {
  const w = await world(variant, edits, [2, 2, 8, 16, 0, 1, 1]);
  return [{
    // A submitter puts 2 high and 2 low Gs (Gs 1-4, whose links still chain them as the free
    // stack left them); one consumer takes high Gs as findRunnable does (classqGet), another low
    // ones as stopM does (classqPopLocked under sched.lock), and reads the sizes lock-free.
    name: 'classq: put vs get vs popLocked', world: w, opts: { bound: 2, maxDfs: 2500, random: 500 },
    setup(w) {
      const { T, L } = w;
      const got = { [L.PRIO_HIGH]: [], [L.PRIO_LOW]: [] };
      const cls = { 1: L.PRIO_HIGH, 2: L.PRIO_LOW, 3: L.PRIO_HIGH, 4: L.PRIO_LOW };
      let err = '';
      const m0 = w.mem();
      const m1 = w.mem();
      const m2 = w.mem();
      return {
        threads: [
          (function* () {
            for (let g = 1; g <= 4; g++) yield* T.classq.classqPut(m0, g, cls[g]);
          })(),
          (function* () {
            for (let k = 0; k < 2; k++) {
              const g = yield* T.classq.classqGet(m1, L.PRIO_HIGH);
              if (g !== 0) got[L.PRIO_HIGH].push(g);
            }
          })(),
          (function* () {
            for (let k = 0; k < 2; k++) {
              const n = yield* T.classq.classqSize(m2, L.PRIO_LOW);
              if (n < 0 || n > 2) err ||= `classqSize(low) read ${n}`;
              yield* T.lock.schedLock(m2);
              const g = yield* T.classq.classqPopLocked(m2, L.PRIO_LOW);
              yield* T.lock.schedUnlock(m2);
              if (g !== 0) got[L.PRIO_LOW].push(g);
            }
          })(),
        ],
        check: () => err,
        final() {
          if (err) return err;
          const m = w.mem();
          for (const c of [L.PRIO_HIGH, L.PRIO_LOW]) {
            for (let g = w.runDirect(T.classq.classqGet(m, c)); g !== 0; g = w.runDirect(T.classq.classqGet(m, c))) got[c].push(g);
            const order = got[c].join(',');
            const want = c === L.PRIO_HIGH ? '1,3' : '2,4';
            if (order !== want) return `class ${c} taken in order ${order}, put as ${want}`;
            if (w.runDirect(T.classq.classqSize(m, c)) !== 0) return `class ${c}'s size is not 0 when empty`;
          }
          return exactlyOnce([...got[L.PRIO_HIGH], ...got[L.PRIO_LOW]], [1, 2, 3, 4]);
        },
      };
    },
  }];
}
