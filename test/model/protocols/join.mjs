// join: the join word and join count of bindings/runtime/memory/joinword.ts, driven as
// bindings/runtime/tasks/join.ts drives them: finishG (an M's finish and crash recovery's failG
// alike), awaitDone, joinChildren, detachG / detachOrphan (docs/DESIGN.md "Results and joins",
// "Crashed workers"). Each result is delivered exactly
// once with the value stored before it was published; each finished G is freed exactly once
// (no leak); a continuation is readied exactly once, with every child's result in its slots.
// Test code only.

import { world } from '../common.mjs';

export const protocol = 'join';

export const bugs = [
  {
    name: 'join-no-guard', // a join count without the joiner's guard
    edits: [{
      file: 'joinword.ts',
      from: 'i32[(pa + G_PENDING) >>> 2] = n + 1;',
      to: 'i32[(pa + G_PENDING) >>> 2] = n;',
    }],
  },
  {
    name: 'join-link-store', // the core's joinLink sets JOIN_PARENT by a load and a store instead of a CAS
    edits: [{
      file: 'join.ts',
      from: 'let old = Atomics.compareExchange(i32, w + JOIN, 0, JOIN_PARENT);',
      to: 'let old = Atomics.load(i32, w + JOIN); if ((old & JOIN_DONE) === 0) { Atomics.store(i32, w + JOIN, old | JOIN_PARENT); old = 0; }',
    }],
  },
  {
    name: 'join-release-store', // the core's release of a linked child by a load and a store instead of a sub
    edits: [{
      file: 'join.ts',
      from: 'return Atomics.sub(m.i32, w + PENDING, 1) === 1;',
      to: 'const n = Atomics.load(m.i32, w + PENDING) - 1; Atomics.store(m.i32, w + PENDING, n); return n === 0;',
    }],
  },
  {
    name: 'join-tasks-no-guard', // the core's one-call join arms the count without the joiner's guard
    edits: [{ file: 'join.ts', from: 'i32[w + PENDING] = n + 1;', to: 'i32[w + PENDING] = n;' }],
  },
  {
    name: 'join-tasks-late-arm', // the core's one-call join arms the count after linking: a child may release first
    edits: [
      { file: 'join.ts', from: '  i32[w + PENDING] = n + 1;\n  for (let i = 0; i < n; i++) {', to: '  for (let i = 0; i < n; i++) {' },
      { file: 'join.ts', from: '  if (!joinReleased(m, g)) return 0; // drop the guard', to: '  m.i32[w + PENDING] = n + 1;\n  if (!joinReleased(m, g)) return 0;' },
    ],
  },
  {
    name: 'join-await-store', // awaitTask sets its waiter bits by a store instead of a CAS
    edits: [{
      file: 'joinword.ts',
      from: 'if (Atomics.compareExchange(i32, w, old, old | (mid + 1)) === old) return false;',
      to: 'Atomics.store(i32, w, old | (mid + 1)); return false;',
    }],
  },
];

export async function scenarios(variant, edits) {
  const w = await world(variant, edits, [2, 3, 8, 16, 0, 1, 1]);
  const C1 = 1, C2 = 2, PARENT = 3;
  /** Per-schedule ghost state and the runtime's roles, over the G addresses. */
  const roles = (w) => {
    const { T, L } = w;
    const m = w.mem();
    const addr = (g) => w.runDirect(T.gtable.gAddr(m, g));
    const g = { freed: new Map(), delivered: [], readied: 0, inbox: [], err: '' };
    const free = (x) => g.freed.set(x, (g.freed.get(x) ?? 0) + 1);
    const RESULT = (x) => (addr(x) + L.G_RESULT_TAG) >> 2; // the stored result (a plain word)
    const SLOT = (i) => (addr(PARENT) + L.G_ARGS + 8 * i) >> 2; // the parent's argument slot i
    const J = T.joinword;
    /** finishG of child x with result v (children of PARENT at slot i when linked). */
    function* finish(mm, x, v, i) {
      const i32 = mm.i32;
      if (((yield* J.joinWord(i32, addr(x))) & L.JOIN_PARENT) !== 0) { // linked: the core's finishSlot writes the parent's slot
        yield ['st', i32, SLOT(i), v];
        free(x);
        if (yield* T.join.joinReleased(mm, PARENT)) yield* ready(mm); // the core's finishLinked (assembly/join.ts's twin)
        return;
      }
      yield ['st', i32, RESULT(x), v];
      const to = yield* J.joinFinish(i32, addr(x));
      if (to === J.JOIN_TO_PARENT) {
        yield ['st', i32, SLOT(i), yield ['ld', i32, RESULT(x)]];
        free(x);
        if (yield* T.join.joinReleased(mm, PARENT)) yield* ready(mm); // finishLinked, as above
      } else if (to > 0) {
        g.inbox.push([to - 1, x]); // pushInbox: that M's deliverLocal takes it
      } else if (to === J.JOIN_TO_NOBODY) {
        free(x);
      }
    }
    /** The continuation is readied: its slots must hold both children's results. */
    function* ready(mm) {
      g.readied++;
      const got = [yield ['ld', mm.i32, SLOT(0)], yield ['ld', mm.i32, SLOT(1)]];
      if (got[0] !== 11 || got[1] !== 22) g.err ||= `continuation readied with slots ${got}`;
    }
    /** joinChildren over C1, C2: arm, link each (moving a finished child's result now), drop the guard. */
    function* join(mm) {
      const i32 = mm.i32;
      yield* J.joinArm(i32, addr(PARENT), 2);
      for (const [i, x] of [[0, C1], [1, C2]]) {
        if (!(yield* T.join.joinLink(mm, PARENT, x, i))) { // the core's link (assembly/join.ts's twin)
          yield ['st', i32, SLOT(i), yield ['ld', i32, RESULT(x)]];
          free(x);
          if (yield* J.joinRelease(i32, addr(PARENT))) g.err ||= 'a child release took the count to 0 under the guard';
        }
      }
      if (yield* J.joinRelease(i32, addr(PARENT))) yield* ready(mm);
    }
    /** awaitDone by M mid: take it now, or wait for the finisher's inbox push. */
    function* awaitTask(mm, x, mid) {
      if (yield* J.joinAwait(mm.i32, addr(x), mid)) {
        g.delivered.push(yield ['ld', mm.i32, RESULT(x)]);
        free(x);
      }
    }
    /** detachG (orphans: detachOrphan's form, which skips a G someone consumed). */
    function* detach(mm, x, orphan) {
      const i32 = mm.i32;
      const CONSUMED = L.JOIN_WAITER_MASK | L.JOIN_PARENT | L.JOIN_DETACHED;
      if (orphan && ((yield* J.joinWord(i32, addr(x))) & CONSUMED) !== 0) return;
      const old = yield* J.joinDetach(i32, addr(x));
      if (orphan && (old & CONSUMED) !== 0) return;
      if ((old & L.JOIN_DONE) !== 0) free(x);
    }
    /** The inbox deliveries after the threads stop (deliverLocal on each waiter's M). */
    function drainInboxes() {
      const i32 = w.view();
      for (const [, x] of g.inbox) {
        g.delivered.push(i32[RESULT(x)]);
        free(x);
      }
      g.inbox = [];
    }
    const freedOnce = (xs) => {
      for (const x of xs) if (g.freed.get(x) !== 1) return `G ${x} freed ${g.freed.get(x) ?? 0} times`;
      return '';
    };
    return { g, finish, join, awaitTask, detach, drainInboxes, freedOnce };
  };
  /**
   * The core's one-call forms (finishSlot, joinTasks: what finishG and joinChildren use for a
   * result in one slot's form and for a join of one to four spawned children), run as they are: a joiner on
   * P0 against the children's finishers, one holding P1 and one with no P (an M whose task
   * settled between two of its P's runs). A finisher whose child is not linked yet takes
   * finishG's general branch. The continuation must be queued exactly once with both results
   * in its slots, and each child freed exactly once.
   */
  const real = (w) => {
    const { T, L } = w;
    const m0 = w.mem();
    const addr = (g) => w.runDirect(T.gtable.gAddr(m0, g));
    const gen = (g) => w.view()[(addr(g) + L.G_GEN) >> 2];
    const gens = new Map([[C1, gen(C1)], [C2, gen(C2)]]);
    const J = T.joinword;
    function* finish(mm, p, x, v) {
      if (yield* T.join.finishSlot(mm, p, x, L.G_RUNNING, L.TAG_NUMBER, v)) return;
      const a = addr(x);
      yield ['st', mm.u8, a + L.G_RESULT_TAG, L.TAG_NUMBER]; // setResult
      yield ['st', mm.f64, (a + L.G_RESULT) >> 3, v];
      const to = yield* J.joinFinish(mm.i32, a);
      if (to === J.JOIN_TO_PARENT) { // moveResultToParent, then finishLinked
        const i = yield ['ld', mm.i32, (a + L.G_INDEX) >> 2];
        const pa = addr(PARENT);
        yield ['st', mm.u8, pa + L.G_ARG_TAGS + i, yield ['ld', mm.u8, a + L.G_RESULT_TAG]];
        yield ['st', mm.f64, (pa + L.G_ARGS) / 8 + i, yield ['ld', mm.f64, (a + L.G_RESULT) >> 3]];
        yield ['st', mm.u8, a + L.G_RESULT_TAG, 0];
        yield* T.join.finishLinked(mm, p, x, PARENT);
      } else if (to !== 0) throw new Error(`finishG of ${x}: nobody awaits it, yet joinFinish said ${to}`);
    }
    function* finishBoth(mm, p) {
      yield* finish(mm, p, C1, 11);
      yield* finish(mm, p, C2, 22);
    }
    const join = (mm) => T.join.joinTasks(mm, 0, PARENT, 5, 2, C1, C2, 0, 0);
    /** The continuation's queue entries, its slots, the children's frees: "" when right. */
    function final() {
      const m = w.mem();
      const queued = [];
      for (let p = 0; p < w.nprocs; p++) for (let g; (g = w.runDirect(T.runq.runqGet(m, p))) !== 0;) queued.push(g);
      for (let g; (g = w.runDirect(T.globrunqget.globrunqGet(m, 0, 1))) !== 0;) {
        queued.push(g);
        for (let h; (h = w.runDirect(T.runq.runqGet(m, 0))) !== 0;) queued.push(h);
      }
      if (queued.length !== 1 || queued[0] !== PARENT) return `queued after the join: [${queued}], want [${PARENT}]`;
      const pa = addr(PARENT);
      const f64 = new Float64Array(w.memory.buffer);
      const u8 = new Uint8Array(w.memory.buffer);
      const slots = [0, 1].map((i) => (u8[pa + L.G_ARG_TAGS + i] === L.TAG_NUMBER ? f64[(pa + L.G_ARGS) / 8 + i] : NaN));
      if (slots[0] !== 11 || slots[1] !== 22) return `continuation slots ${slots}, want 11,22`;
      for (const c of [C1, C2]) if (gen(c) !== gens.get(c) + 1) return `G ${c} freed ${gen(c) - gens.get(c)} times`;
      return '';
    }
    return { finish, finishBoth, join, final };
  };
  const sc = (name, body, final, opts) => ({
    name, world: w, opts,
    setup(w) {
      const r = roles(w);
      return { threads: body(r, w), check: () => r.g.err, final: () => r.g.err || final(r) };
    },
  });
  return [
    sc('join: awaitTask vs finish', (r, w) => [r.finish(w.mem(), C1, 11, 0), r.awaitTask(w.mem(), C1, 1)], (r) => {
      r.drainInboxes();
      if (r.g.delivered.length !== 1 || r.g.delivered[0] !== 11) return `results delivered: [${r.g.delivered}], want [11]`;
      return r.freedOnce([C1]);
    }, { bound: 2, maxDfs: 2000, random: 200 }),
    sc('join: ctx.join vs two finishing children', (r, w) => [
      r.join(w.mem()), r.finish(w.mem(), C1, 11, 0), r.finish(w.mem(), C2, 22, 1),
    ], (r) => (r.g.readied !== 1 ? `continuation readied ${r.g.readied} times` : r.freedOnce([C1, C2])),
    { bound: 2, maxDfs: 3000, random: 300 }),
    {
      name: 'join: joinTasks vs finishSlot, the children finished on one P',
      world: w,
      opts: { bound: 2, maxDfs: 3000, random: 300 },
      setup(w) {
        const r = real(w);
        return { threads: [r.join(w.mem()), r.finishBoth(w.mem(), 1)], check: () => '', final: r.final };
      },
    },
    {
      name: 'join: joinTasks vs finishSlot, one child finished with no P',
      world: w,
      opts: { bound: 2, maxDfs: 3000, random: 300 },
      setup(w) {
        const r = real(w);
        return { threads: [r.join(w.mem()), r.finish(w.mem(), 1, C1, 11), r.finish(w.mem(), -1, C2, 22)], check: () => '', final: r.final };
      },
    },
    sc('join: detachOne vs finish', (r, w) => [r.finish(w.mem(), C1, 11, 0), r.detach(w.mem(), C1, false)],
      (r) => r.freedOnce([C1]), { bound: 2, maxDfs: 1000, random: 100 }),
    // Crash recovery: failG (finishG, on the main thread) fails a G
    // while detachOrphan detaches its dead spawner's handle.
    sc('join: failG vs detachOrphans', (r, w) => [r.finish(w.mem(), C1, 11, 0), r.detach(w.mem(), C1, true)],
      (r) => r.freedOnce([C1]), { bound: 2, maxDfs: 1000, random: 100 }),
  ];
}
