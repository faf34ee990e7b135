// forkq: the fork deque (bindings/core/ts/forkq.ts) as the twin's fork.ts drives it, and the
// sleeping joiner (bindings/runtime/tasks/forksleep.ts over joinword.ts) (docs/DESIGN.md "Fork-join").
//
// The deque: an owner M pushes with forkNew (a spare G: the runtime's common path) and takes
// back with forkPop, against thieves that take through forkHelp (a joiner helping) and through
// findRunnable's steal (stealWork), on a 4-slot ring whose counters start at 0, at the sign
// change (2^31 - 2) and at the u32 wrap (2^32 - 2). Every pushed G is taken exactly once (or
// refused by a full deque and run inline by its forker); the owner's forkPop gives the newest G
// it has not taken back, or 0 only when thieves took all of those (owner LIFO, thieves oldest
// first); each thief's takes from a victim come in push order; bottom - top stays in
// [-1, size]. The explorer runs with FLAG_DEBUG: every G status transition is a CAS from the
// state DESIGN.md names (G_DEAD -> G_RUNNABLE at the push, G_RUNNABLE -> G_RUNNING at a take,
// G_RUNNING -> G_DEAD at the end of its run), so a G taken twice, or before it is runnable, fails.
//
// The sleeping joiner: the joiner's loop is fork.ts waitStolen written out below (the join
// word's DONE check, the thief's P from G_INDEX, the core's forkHelp, then forkSleep: the real
// epoch load, flag store, joinForkMark, look and Atomics.wait), its look is workInSight written
// out (the core's runqEmpty and forkLen), after one empty helping round instead of
// HELP_SPINS (64): the rounds between repeat the same looks. A stolen fork's finish is
// join.ts finish for a fork (the result, G_DEAD, joinFinish, forkWake on JOIN_TO_FORK). The
// waits never time out, so a lost wake-up leaves a joiner asleep for good: it must end with its
// fork's result (the value stored before JOIN_DONE), and, when its fork never ends, no fork may
// be left on a deque while it sleeps; a deep joiner (HELP_MAX_DEPTH calls or more) takes only
// its thief's forks. Test code only.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exactlyOnce, world } from '../common.mjs';

const RUNTIME = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bindings/runtime');

/**
 * The runtime lines the roles below write out, in their order in each file: when one changes,
 * the model stops (update the role with it) instead of checking what the runtime no longer does.
 */
const TRANSCRIBED = {
  'tasks/fork.ts': [ // waitStolen, workInSight
    'if (gs.joinWord(a) & JOIN_DONE) break;',
    'const thief = Atomics.load(i32, (a + G_INDEX) >>> 2) - 1;',
    'const g = h.core.forkHelp(h.p, h.mid, thief, depth < HELP_MAX_DEPTH && idle % HELP_SCAN_EVERY === 0 ? 1 : 0);',
    'forkSleep(i32, a, () => this.workInSight(thief));',
    'if (h.depth >= HELP_MAX_DEPTH) return thief >= 0 && thief !== h.p && core.forkLen(thief) !== 0;',
    'if (core.runqEmpty(h.p) === 0) return true;',
    'for (let v = 0; v < n; v++) if (core.forkLen(v) !== 0) return true;',
  ],
  'tasks/join.ts': [ // finishG of a G not linked to a continuation
    'gs.setResultSlot(a, tag, x);',
    'f.setStatus(g, a, from, G_DEAD);',
    'const to = joinFinish(f.views.i32, a);',
    'forkWake(f.views.i32);',
  ],
  'threads/execute.ts': [ // run: the leapfrog hint
    'if ((flags & GF_FORK) !== 0) Atomics.store(this.views.i32, (a + G_INDEX) >>> 2, this.p + 1);',
  ],
};

for (const [file, lines] of Object.entries(TRANSCRIBED)) {
  const src = fs.readFileSync(path.join(RUNTIME, file), 'utf8');
  let at = 0;
  for (const line of lines) {
    const i = src.indexOf(line, at);
    if (i < 0) throw new Error(`forkq model: bindings/runtime/${file} no longer has, after the lines before it, the line the model writes out: ${line}`);
    at = i + line.length;
  }
}

export const protocol = 'forkq';

export const bugs = [
  {
    name: 'forkq-pop-no-cas', // the owner takes the last G without its top CAS
    edits: [{
      file: 'forkq.ts',
      from: 'const won = Atomics.compareExchange(i32, w + TOP, t, (t + 1) | 0) === t; // pairs with the top CAS in forkqSteal',
      to: 'Atomics.store(i32, w + TOP, (t + 1) | 0); const won = true;',
    }],
  },
  {
    name: 'forkq-pop-top-first', // the owner's pop loads top before its bottom store (no StoreLoad point)
    edits: [{
      file: 'forkq.ts',
      from: `  Atomics.store(i32, w + BOTTOM, b); // StoreLoad with the top load: pairs with forkqSteal's bottom load
  const t = Atomics.load(i32, w + TOP); // pairs with the top CAS in forkqSteal`,
      to: `  const t = Atomics.load(i32, w + TOP);
  Atomics.store(i32, w + BOTTOM, b);`,
    }],
  },
  {
    name: 'forkq-steal-plain-top', // a thief advances top by a plain store instead of a CAS
    edits: [{
      file: 'forkq.ts',
      from: 'if (!casCount(m, p, Atomics.compareExchange(i32, w + TOP, t, (t + 1) | 0) === t)) return 0; // pairs with the top CAS of other takers',
      to: 'i32[w + TOP] = (t + 1) | 0;',
    }],
  },
  {
    name: 'forkq-push-publish-first', // the push publishes bottom before it writes the slot
    edits: [{
      file: 'forkq.ts',
      from: `  i32[w + SLOTS + (b & FORKQ_MASK)] = g; // plain: published by the bottom store below
  Atomics.store(i32, w + BOTTOM, (b + 1) | 0); // publish: pairs with the bottom load in forkqSteal`,
      to: `  Atomics.store(i32, w + BOTTOM, (b + 1) | 0);
  i32[w + SLOTS + (b & FORKQ_MASK)] = g;`,
    }],
  },
  {
    name: 'forkq-push-overfill', // the full check lets a push overwrite the oldest slot
    edits: [{
      file: 'forkq.ts',
      from: 'if (((b - t) >>> 0) >= FORKQ_SIZE) return false;',
      to: 'if (((b - t) >>> 0) > FORKQ_SIZE) return false;',
    }],
  },
  {
    name: 'fork-push-status-late', // forkPush makes the G runnable after publishing it
    edits: [{
      file: 'fork.ts',
      from: `  gSetStatus(m, g, G_DEAD, G_RUNNABLE); // before the bottom store publishes g
  if (!forkqPush(m, p, g)) {
    gSetStatus(m, g, G_RUNNABLE, G_DEAD);
    return 0;
  }`,
      to: `  if (!forkqPush(m, p, g)) return 0;
  gSetStatus(m, g, G_DEAD, G_RUNNABLE);`,
    }],
  },
  {
    name: 'fork-help-deep-anywhere', // a deep joiner's forkHelp takes unrelated work too
    edits: [{ file: 'fork.ts', from: '  if (anywhere === 0 && g === 0) return 0;\n', to: '' }],
  },
  {
    name: 'fork-sleep-look-first', // the joiner looks for work before it raises the sleepers flag
    edits: [{
      file: 'forksleep.ts',
      from: `  Atomics.store(i32, SLEEPERS_W, 1); // pairs with the flag load and swap after each fork push
  if (!joinForkMark(i32, a) && !look()) {`,
      to: `  if (!joinForkMark(i32, a) && !look()) {
    Atomics.store(i32, SLEEPERS_W, 1);`,
    }],
  },
  {
    name: 'fork-sleep-epoch-late', // the joiner reads the epoch it waits on after its look
    edits: [
      { file: 'forksleep.ts', from: "  const e = Atomics.load(i32, EPOCH_W); // pairs with forkWake's add\n", to: '' },
      { file: 'forksleep.ts', from: '    Atomics.wait(i32, EPOCH_W, e);', to: '    const e = Atomics.load(i32, EPOCH_W); Atomics.wait(i32, EPOCH_W, e);' },
    ],
  },
  {
    name: 'fork-mark-store', // joinForkMark sets JOIN_FORK by a store instead of a CAS (erasing JOIN_DONE)
    edits: [{
      file: 'joinword.ts',
      from: 'if (Atomics.compareExchange(i32, w, old, old | JOIN_FORK) === old) return false; // pairs with joinFinish\'s or',
      to: 'Atomics.store(i32, w, old | JOIN_FORK); return false;',
    }],
  },
  {
    name: 'fork-finish-no-wake', // the finisher of a fork does not wake its joiner when JOIN_FORK is set
    edits: [{ file: 'joinword.ts', from: '  if ((old & JOIN_FORK) !== 0) return JOIN_TO_FORK;\n', to: '' }],
  },
  {
    name: 'fork-push-flag-first', // forkNew checks the sleepers flag before its push
    edits: [
      {
        file: 'fork.ts',
        from: '  if (forkPush(m, p, mi, g, parent) === 0) return -g;',
        to: '  if (Atomics.load(m.i32, SLEEPERS_W) !== 0 && Atomics.exchange(m.i32, SLEEPERS_W, 0) !== 0) forkWake(m);\n  if (forkPush(m, p, mi, g, parent) === 0) return -g;',
      },
      {
        file: 'fork.ts',
        from: '  if (Atomics.load(m.i32, SLEEPERS_W) !== 0 && Atomics.exchange(m.i32, SLEEPERS_W, 0) !== 0) forkWake(m);\n  return g;',
        to: '  return g;',
      },
    ],
  },
];

/** FLAG_DEBUG (status transitions by checked CAS) | ORDER_ROUND_ROBIN (victims p+1, p+2, ...). */
const FLAGS = 16 | 1;
const PARENT = 13; // M mi runs G PARENT + mi (MR_CURG: the forker)
const RESULT = 7; // what a stolen fork's run returns: its result word gets RESULT * 100 + g

/** M mi holds P mi for each mi < nps (npidle 0: a push wakes nobody); deque counters at `start`. */
function hold(w, nps, start) {
  const { T, L } = w;
  const m = w.mem();
  const i32 = w.view();
  for (let p = 0; p < nps; p++) {
    w.runDirect(T.idle.pidleRemove(m, p));
    const b = (L.PS + p * L.P_SIZE) >> 2;
    i32[b + (L.P_STATUS >> 2)] = L.P_RUNNING;
    i32[b + (L.P_M >> 2)] = p + 1;
    i32[b + (L.P_FORKQ_BOTTOM >> 2)] = start;
    i32[b + (L.P_FORKQ_TOP >> 2)] = start;
    const mw = w.runDirect(T.mem.mWord(m, p));
    i32[mw + (L.MR_CURG >> 2)] = PARENT + p;
    const gw = w.runDirect(T.gtable.gWord(m, PARENT + p));
    i32[gw + (L.G_STATUS >> 2)] = L.G_RUNNING;
  }
}

/** bottom - top of each P's deque in [-1, size] (-1: an owner's pop between its two stores). */
function dequeCheck(w, nps) {
  const { L } = w;
  const i32 = w.view();
  for (let p = 0; p < nps; p++) {
    const b = (L.PS + p * L.P_SIZE) >> 2;
    const d = (i32[b + (L.P_FORKQ_BOTTOM >> 2)] - i32[b + (L.P_FORKQ_TOP >> 2)]) | 0;
    if (d < -1 || d > L.FORKQ_SIZE) return `P${p}: bottom - top = ${d}`;
  }
  return '';
}

/** The Gs left on P p's deque (taken directly, oldest first) and P p's deque length now. */
function leftover(w, p) {
  const { T } = w;
  const m = w.mem();
  const out = [];
  for (let g = w.runDirect(T.forkq.forkqSteal(m, p, p)); g !== 0; g = w.runDirect(T.forkq.forkqSteal(m, p, p))) out.push(g);
  return out;
}

/** G g's status word now. */
function statusOf(w, g) {
  const { T, L } = w;
  return w.view()[w.runDirect(T.gtable.gWord(w.mem(), g)) + (L.G_STATUS >> 2)];
}

export async function scenarios(variant, edits) {
  const w2 = await world(variant, edits, [2, 2, 16, 16, FLAGS, 1, 1]);
  const w3 = await world(variant, edits, [3, 3, 16, 16, FLAGS, 1, 1]);

  /**
   * The deque: the owner (M0 on P0) runs `plan` ('push' forks the next G, 'pop' takes one back
   * as join does); thieves[i] is 'help' (forkHelp from P i + 1, as a joiner whose fork P0's
   * owner stole... its victim hint P0) or 'steal' (findRunnable on P i + 1), each `takes` times.
   */
  const deque = (name, w, plan, thieves, start, opts, mustReach) => ({
    name, world: w, opts, mustReach, reached: new Set(),
    setup(w) {
      const reached = this.reached;
      const { T, L } = w;
      const nps = thieves.length + 1;
      hold(w, nps, start);
      const g = { pushed: [], refused: [], owner: [], zeroes: [], thieves: thieves.map(() => []), err: '' };
      const fail = (msg) => { g.err ||= msg; };
      const owner = (function* () {
        const m = w.mem();
        const mine = []; // pushed and not taken back by the owner, oldest first
        let next = 1;
        for (const step of plan) {
          if (step === 'push') {
            const x = next++;
            const r = yield* T.fork.forkNew(m, 0, 0, x, 1, 0, 0, 0, 0, 0, 0, 0, 0);
            if (r === x) { g.pushed.push(x); mine.push(x); }
            else if (r === -x) { g.refused.push(x); reached.add('a push refused'); } // the deque was full: the forker runs it inline
            else fail(`forkNew(G ${x}) returned ${r}`);
          } else {
            const x = yield* T.fork.forkPop(m, 0, 0);
            if (x === 0) {
              if (mine.length !== 0) reached.add(mine.length === 1 ? 'the owner lost its last G to a thief' : 'the owner found its Gs stolen');
              g.zeroes.push(mine.splice(0)); // every one of these must have gone to a thief
            } else {
              const want = mine.pop();
              if (x !== want) fail(`the owner's forkPop gave G ${x}, not its newest G ${want} (pushed ${g.pushed})`);
              g.owner.push(x);
              yield* T.gtable.gSetStatus(m, x, L.G_RUNNING, L.G_DEAD); // run inline, done
            }
          }
        }
      })();
      const thief = (i, how) => (function* () {
        const p = i + 1;
        const m = w.mem();
        for (let k = 0; k < opts.takes; k++) {
          const x = how === 'help' ? yield* T.fork.forkHelp(m, p, p, 0, 1) : yield* T.sched.findRunnable(m, p, p);
          if (x === 0) continue;
          const mine = g.thieves[i];
          if (mine.length !== 0 && mine[mine.length - 1] > x) fail(`thief ${p} took G ${x} after G ${mine[mine.length - 1]}: not oldest first`);
          mine.push(x);
          reached.add(`${how} took a G`);
          if (x === g.pushed[g.pushed.length - 1]) reached.add(`${how} took the newest G`);
          yield* T.gtable.gSetStatus(m, x, L.G_RUNNING, L.G_DEAD); // its run, done
        }
      })();
      return {
        threads: [owner, ...thieves.map((how, i) => thief(i, how))],
        check: () => g.err || dequeCheck(w, nps),
        final() {
          if (g.err) return g.err;
          const left = leftover(w, 0);
          for (const x of left) {
            if (statusOf(w, x) !== L.G_RUNNABLE) return `G ${x} left on the deque with status ${statusOf(w, x)}`;
          }
          const stolen = new Set(g.thieves.flat());
          for (const set of g.zeroes) {
            for (const x of set) if (!stolen.has(x)) return `the owner's forkPop gave 0 while its G ${x} was not stolen (left: ${left})`;
          }
          for (const x of [...g.owner, ...stolen, ...g.refused]) {
            if (statusOf(w, x) !== L.G_DEAD) return `G ${x} ended with status ${statusOf(w, x)}, not G_DEAD`;
          }
          const all = [...g.pushed, ...g.refused];
          return exactlyOnce([...g.owner, ...g.thieves.flat(), ...g.refused, ...left], all);
        },
      };
    },
  });

  /**
   * The sleeping joiner. roles(w) gives each M its steps: join (forkPop, run inline, or
   * waitStolen), waitStolen, a stolen fork's run and finish.
   */
  const roles = (w, g, reached) => {
    const { T, L } = w;
    const J = T.joinword;
    const S = T.forksleep;
    const addr = (m, x) => T.gtable.gAddr(m, x); // a generator: yield*
    /** join.ts finish for a stolen fork: the result, G_DEAD, JOIN_DONE, the wake-up. */
    function* finish(m, x) {
      const a = yield* addr(m, x);
      yield ['st', m.i32, (a + L.G_RESULT) >> 2, RESULT * 100 + x]; // gs.setResultSlot: plain, published by joinFinish's or
      yield* T.gtable.gSetStatus(m, x, L.G_RUNNING, L.G_DEAD);
      if ((yield* J.joinFinish(m.i32, a)) === J.JOIN_TO_FORK) yield* S.forkWake(m.i32);
    }
    /** G x's task on M p holding P p: its forks (g.plan), joined newest first when g.joins says so. */
    function* body(m, p, x) {
      g.ran.push(x);
      for (const kid of g.plan[x] ?? []) {
        const r = yield* T.fork.forkNew(m, p, p, kid, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        if (r !== kid) { g.err ||= `forkNew(G ${kid}) returned ${r}`; return; }
      }
      if (g.joins[x]) for (const kid of [...(g.plan[x] ?? [])].reverse()) yield* join(m, p, kid);
    }
    /** m.ts run of a stolen fork x (G_RUNNING from findRunnable or forkHelp) on M p holding P p. */
    function* runStolen(m, p, x) {
      const a = yield* addr(m, x);
      yield ['store', m.i32, (a + L.G_INDEX) >> 2, p + 1]; // the leapfrog hint
      yield* body(m, p, x);
      yield* finish(m, x);
    }
    /** workInSight: a G on the thief's fork deque when deep (HELP_MAX_DEPTH calls or more), else
     *  p's own queue or a G on any fork deque. */
    function* workInSight(m, p, thief, deep) {
      if (deep) return thief >= 0 && thief !== p && (yield* T.forkq.forkLen(m, thief)) !== 0;
      if ((yield* T.runq.runqEmpty(m, p)) === 0) return true;
      const n = yield* T.mem.nprocs(m);
      for (let v = 0; v < n; v++) if ((yield* T.forkq.forkLen(m, v)) !== 0) return true;
      return false;
    }
    /** fork.ts waitStolen of fork f by M p holding P p (deep: only the thief's forks, the
     *  form below FORK_MAX_DEPTH and at HELP_MAX_DEPTH or more calls; else anywhere). */
    function* waitStolen(m, p, f, deep = false) {
      for (;;) {
        const a = yield* addr(m, f);
        if (((yield* J.joinWord(m.i32, a)) & L.JOIN_DONE) !== 0) break;
        const thief = (yield ['load', m.i32, (a + L.G_INDEX) >> 2]) - 1;
        const x = yield* T.fork.forkHelp(m, p, p, thief, deep ? 0 : 1);
        if (x !== 0) { reached.add(`M${p} helped`); yield* runStolen(m, p, x); continue; }
        yield* S.forkSleep(m.i32, a, function* look() {
          const seen = yield* workInSight(m, p, thief, deep);
          if (!seen) reached.add(`M${p} waited`);
          return seen;
        });
      }
      const a = yield* addr(m, f);
      const v = yield ['ld', m.i32, (a + L.G_RESULT) >> 2]; // gs.takeResult: after JOIN_DONE
      if (v !== RESULT * 100 + f) g.err ||= `M${p} joined G ${f} with result ${v}, not ${RESULT * 100 + f}`;
      g.joined.push(f);
    }
    /** fork.join of f (pushed by M p on P p): forkPop, inline when it gives f, else waitStolen. */
    function* join(m, p, f, deep = false) {
      const x = yield* T.fork.forkPop(m, p, p);
      if (x === f) {
        yield* body(m, p, f); // runInline
        yield* T.gtable.gSetStatus(m, f, L.G_RUNNING, L.G_DEAD);
        g.joined.push(f);
      } else if (x !== 0) {
        g.err ||= `M${p}'s forkPop gave G ${x} joining G ${f}`;
      } else {
        yield* waitStolen(m, p, f, deep);
      }
    }
    return { finish, runStolen, waitStolen, join };
  };

  /**
   * A sleep scenario: G 1 (c) forked by M0 on P0 before the threads start; `threads(r, w)` the
   * roles each M plays; `plan`: the forks each stolen G makes (and joins when `joins`).
   */
  const sleep = (name, w, nps, plan, body, final, opts, mustReach) => ({
    name, world: w, opts, mustReach, reached: new Set(),
    setup(w) {
      const { T } = w;
      hold(w, nps, 0);
      const m = w.mem();
      if (w.runDirect(T.fork.forkNew(m, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)) !== 1) throw new Error('forkq model: set-up push failed');
      const g = { ran: [], joined: [], err: '', plan: plan.forks, joins: plan.joins ?? {} };
      const r = roles(w, g, this.reached);
      return {
        threads: body(r, w, g),
        check: () => g.err,
        final: (threads) => g.err || final(g, threads, w),
      };
    },
  });
  const asleep = (threads) => threads.filter((t) => !t.done).map((t) => `M${t.id}`);
  /** M0 joins fork 1 (on P0) while M1 steals it through findRunnable and runs it. */
  const joinerAndThief = (r, w) => [
    r.join(w.mem(), 0, 1),
    (function* () {
      const m = w.mem();
      const x = yield* w.T.sched.findRunnable(m, 1, 1);
      if (x !== 0) yield* r.runStolen(m, 1, x);
    })(),
  ];
  /** The final check: nobody asleep for good, and the Gs `gs` each ran and were joined once. */
  const nobodyAsleep = (gs) => (g, threads) => {
    if (asleep(threads).length !== 0) return `${asleep(threads)} asleep for good (a lost wake-up), joined: [${g.joined}]`;
    return exactlyOnce(g.ran, gs) || exactlyOnce(g.joined, gs);
  };

  return [
    deque('forkq: push, pop vs a helper', w2, ['push', 'push', 'push', 'pop', 'push', 'pop', 'pop', 'pop'], ['help'], 0,
      { bound: 2, maxDfs: 3000, random: 400, takes: 2 },
      ['help took a G', 'help took the newest G', 'the owner lost its last G to a thief', 'the owner found its Gs stolen']),
    deque('forkq: the last G, a helper and a spinning thief', w3, ['push', 'push', 'pop', 'pop'], ['help', 'steal'], 0x7ffffffe,
      { bound: 2, maxDfs: 3000, random: 400, takes: 1 },
      ['help took a G', 'steal took a G', 'steal took the newest G', 'the owner lost its last G to a thief']),
    deque('forkq: a full ring wraps', w2, ['push', 'push', 'push', 'push', 'push', 'pop', 'push', 'pop', 'pop', 'pop', 'pop'], ['help'], -2,
      { bound: 2, maxDfs: 3000, random: 400, takes: 2 }, ['a push refused', 'help took a G', 'the owner lost its last G to a thief']),
    // M1 steals c (findRunnable) and finishes it while M0 joins it: forkPop, help, sleep.
    sleep('fork sleep: joiner vs the thief\'s finish', w2, 2, { forks: {} }, joinerAndThief,
      nobodyAsleep([1]), { bound: 2, maxDfs: 3000, random: 400 }, ['M0 waited']),
    // c's thief (not modelled, c never ends) left P1 with c's forks 2 and 3, pushed by M1
    // here while M0 joins c: M0 must take both, leapfrogging, before it sleeps for good.
    sleep('fork sleep: joiner vs new forks', w2, 2, { forks: {} }, (r, w, g) => {
      const { T, L } = w;
      const m = w.mem();
      const c = w.runDirect(T.forkq.forkqSteal(m, 0, 1)); // taken off P0 by P1's M ...
      w.runDirect(T.gtable.gSetStatus(m, c, L.G_RUNNABLE, L.G_RUNNING)); // ... which runs it
      w.view()[(w.runDirect(T.gtable.gAddr(m, c)) + L.G_INDEX) >> 2] = 2;
      g.ran.push(c);
      return [
        r.join(w.mem(), 0, 1),
        (function* () {
          const m1 = w.mem();
          for (const kid of [2, 3]) yield* T.fork.forkNew(m1, 1, 1, kid, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        })(),
      ];
    }, (g, threads, w) => {
      const left = [...leftover(w, 0), ...leftover(w, 1)];
      if (left.length !== 0) return `M0 asleep for good with Gs ${left} on a fork deque (a lost wake-up)`;
      if (asleep(threads).join() !== 'M0') return `asleep at the end: [${asleep(threads)}], want M0 alone (its fork never ends)`;
      return exactlyOnce(g.ran, [1, 2, 3]);
    }, { bound: 2, maxDfs: 3000, random: 400 }, ['M0 helped', 'M0 waited']),
    // As above, M0 joining deep (HELP_MAX_DEPTH calls or more): it takes c's forks from the
    // thief's P1 (leapfrogging), but not fork 4, which M2 pushed on P2 (unrelated work).
    sleep('fork sleep: a deep joiner vs the thief\'s forks and an unrelated one', w3, 3, { forks: {} }, (r, w, g) => {
      const { T, L } = w;
      const m = w.mem();
      const c = w.runDirect(T.forkq.forkqSteal(m, 0, 1));
      w.runDirect(T.gtable.gSetStatus(m, c, L.G_RUNNABLE, L.G_RUNNING));
      w.view()[(w.runDirect(T.gtable.gAddr(m, c)) + L.G_INDEX) >> 2] = 2;
      g.ran.push(c);
      return [
        r.join(w.mem(), 0, 1, true),
        (function* () {
          const m1 = w.mem();
          for (const kid of [2, 3]) yield* T.fork.forkNew(m1, 1, 1, kid, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        })(),
        (function* () {
          yield* T.fork.forkNew(w.mem(), 2, 2, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        })(),
      ];
    }, (g, threads, w) => {
      const left1 = leftover(w, 1);
      if (left1.length !== 0) return `M0 asleep for good with the thief's Gs ${left1} on its deque (a lost wake-up)`;
      const left2 = leftover(w, 2);
      if (left2.join() !== '4') return `a deep joiner took unrelated work: P2's deque holds [${left2}], want [4]`;
      if (asleep(threads).join() !== 'M0') return `asleep at the end: [${asleep(threads)}], want M0 alone (its fork never ends)`;
      return exactlyOnce(g.ran, [1, 2, 3]);
    }, { bound: 2, maxDfs: 2000, random: 300 }, ['M0 helped', 'M0 waited']),
    // M1 steals c, which forks d (G 2) and joins it; M0, joining c, may take d (leapfrogging):
    // then each M joins a fork the other runs, and either may sleep.
    sleep('fork sleep: two joiners, each running the other\'s fork', w2, 2, { forks: { 1: [2] }, joins: { 1: true } }, joinerAndThief,
      nobodyAsleep([1, 2]), { bound: 2, maxDfs: 4000, random: 400 }, ['M0 helped', 'M0 waited', 'M1 waited']),
  ];
}
