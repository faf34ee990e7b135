// gfree: the global free-G stack (a Treiber stack with a versioned 64-bit head) and the per-P
// free lists in front of it, with table growth when both run dry (docs/DESIGN.md "Free Gs").
// No G is handed out twice (no ABA), none is lost: at the end the stack and the per-P lists
// hold every G not in use exactly once, and their counts agree. Test code only.

import { world } from '../common.mjs';

export const protocol = 'gfree';

export const bugs = [
  {
    name: 'gfree-no-version', // the head's version is never bumped: ABA
    edits: [{ file: 'gfstack.ts', from: 'pack(v + 1, ', to: 'pack(v, ', all: true }],
  },
  {
    name: 'gfree-link-after-publish', // a push links its last G after the CAS that published it
    edits: [{
      file: 'gfstack.ts',
      from: `    i32[lw] = top; // plain: last is ours until the CAS below publishes it
    const old = pack(v, top);
    if (Atomics.compareExchange(i64, HEAD_64, old, pack(v + 1, first)) === old) break;`,
      to: `    const old = pack(v, top);
    if (Atomics.compareExchange(i64, HEAD_64, old, pack(v + 1, first)) === old) { i32[lw] = top; break; }`,
    }],
  },
];

/** The free Gs as the lists hold them now: "" and the list, or what is wrong. */
function freeLists(w) {
  const { L } = w;
  const i32 = w.view();
  const gcap = i32[(L.HEADER + L.H_GCAP) >> 2];
  const link = (g) => i32[((i32[(L.GDIR >> 2) + (g >>> L.G_CHUNK_SHIFT)] >>> 0) + (g & L.G_CHUNK_MASK) * L.G_SIZE + L.G_SCHEDLINK) >> 2];
  const held = [];
  let g = i32[L.S_GFREE_HEAD >> 2];
  let n = 0;
  for (; g !== 0 && n <= gcap; g = link(g), n++) held.push(g);
  if (g !== 0) return { err: `the free stack has a cycle: ${held.slice(0, 20).join(',')}` };
  if (i32[L.S_GFREE_N >> 2] !== n) return { err: `S_GFREE_N = ${i32[L.S_GFREE_N >> 2]}, the stack holds ${n}` };
  for (let p = 0; p < w.nprocs; p++) {
    const b = (L.PS + p * L.P_SIZE) >> 2;
    const want = i32[b + (L.P_GFREE_N >> 2)];
    let k = 0;
    for (g = i32[b + (L.P_GFREE >> 2)]; g !== 0 && k <= gcap; g = link(g), k++) held.push(g);
    if (k !== want) return { err: `P${p}'s free list holds ${k}, its count says ${want}` };
  }
  return { err: '', held, gcap };
}

export async function scenarios(variant, edits) {
  // 2 Ps, one 8-G chunk at init (G ids 1..7), room for a second chunk.
  const w = await world(variant, edits, [2, 2, 8, 16, 0, 1, 1]);
  const sc = (name, plans, opts) => ({
    name, world: w, opts,
    setup(w) {
      const { T } = w;
      const owner = new Map();
      let err = '';
      const threads = plans.map((plan, tid) => (function* () {
        const m = w.mem();
        const mine = [];
        for (const step of plan.ops) {
          if (step === 'get') {
            const g = yield* T.gfree.gfGet(m, plan.p);
            if (g === 0) { err ||= `thread ${tid}: gfGet found the table full`; return; }
            if (owner.has(g)) { err ||= `G ${g} handed to thread ${tid} while thread ${owner.get(g)} holds it`; return; }
            owner.set(g, tid);
            mine.push(g);
          } else {
            const g = mine.shift();
            owner.delete(g);
            yield* T.gfree.gfPut(m, plan.p, g);
          }
        }
        for (const g of mine) { owner.delete(g); yield* T.gfree.gfPut(m, plan.p, g); }
      })());
      return {
        threads,
        check: () => err,
        final() {
          if (err) return err;
          const r = freeLists(w);
          if (r.err) return r.err;
          const seen = new Set();
          for (const g of r.held) {
            if (seen.has(g)) return `G ${g} is free twice`;
            seen.add(g);
          }
          for (let g = 1; g < r.gcap; g++) if (!seen.has(g)) return `G ${g} is lost (in use by nobody, on no list)`;
          return '';
        },
      };
    },
  });
  return [
    // Two threads without a P race on the stack: pop, pop, push (the ABA shape), and a third
    // with a P refills its list from the stack and spills back into it.
    sc('gfree: stack vs stack vs a P', [
      { p: -1, ops: ['get', 'get', 'put', 'get', 'put'] },
      { p: -1, ops: ['get', 'put', 'get'] },
      { p: 0, ops: ['get', 'get', 'get', 'put', 'put', 'put'] },
    ], { bound: 1, maxDfs: 3000, random: 500 }),
    sc('gfree: ABA', [
      { p: -1, ops: ['get', 'get', 'put'] },
      { p: -1, ops: ['get'] },
    ], { bound: 2, maxDfs: 3000, random: 300 }),
    // Both Ps hold most Gs in their lists: the table grows under contention.
    sc('gfree: growth', [
      { p: 0, ops: ['get', 'get', 'get', 'get'] },
      { p: 1, ops: ['get', 'get', 'get', 'get'] },
    ], { bound: 1, maxDfs: 1500, random: 300 }),
  ];
}
