// mlife: threads that come and go (docs/DESIGN.md "Threads that come and go"). Ms run the
// runtime's loop as in park.mjs, but an M's first deep wait of a sleep may time out (the
// idleTimeout), and then the M calls mExit and, when it leaves, ends its thread. The timeout is a
// thread of its own per M, which may fire at any step: it sets a flag word and notifies, and the
// M's wait counts as timed out when the flag is set (a writer's bit may be set by then, as after a
// real 'timed-out': the M calls mExit all the same, and mExit must see that it was taken). The main thread submits Gs, and in one
// scenario starts a new M (mStart, then the loop), as startm does for a P without a thread.
// Every G runs at most once; at the end each G has run, or it waits where the main thread's next
// look starts a thread for it: on the global queue with no P idle and a P without an M (an idle
// P with no idle M to run it would strand it for good). nmspinning ends at 0, every live M asleep
// unflagged, every P idle or on the no-M list, and nmlive counts the Ms still running. Test code
// only.

import { exactlyOnce, world } from '../common.mjs';

export const protocol = 'mlife';

export const bugs = [
  {
    name: 'mlife-pstop-late-count', // pStop counts its P out of service only once it lands on the list
    edits: [{
      file: 'procresize.ts',
      from: `  npdeadAdd(m, 1); // counted now: a procresize before the P lands sees it out of service
  schedUnlock(m);
  return pRelease(m, p, mi, S_RT_PDEAD, 0, 0);`,
      to: `  schedUnlock(m);
  const n = pRelease(m, p, mi, S_RT_PDEAD, 0, 0);
  schedLock(m);
  npdeadAdd(m, 1);
  schedUnlock(m);
  return n;`,
    }],
  },
  {
    name: 'mlife-grow-keeps-shrink', // a grow does not withdraw a shrink no M has taken yet
    edits: [{
      file: 'procresize.ts',
      from: `    Atomics.store(i32, SHRINK_W, 0); // pairs with the Ms' lock-free load: a give-back not begun is withdrawn`,
      to: ``,
    }],
  },
  {
    name: 'mlife-exit-keeps-p', // mExit leaves an idle P with no idle M on the idle list
    edits: [{
      file: 'mlife.ts',
      from: `  if (Atomics.load(i32, NPIDLE_W) > i32[NMIDLE_W]) pnomPut(m, pidleGet(m)); // plain nmidle: under sched.lock`,
      to: ``,
    }],
  },
  {
    name: 'mlife-exit-taken-m', // mExit lets an M leave that wakep took since it fell asleep
    edits: [{
      file: 'mlife.ts',
      from: `  if (i32[NMLIVE_W] <= min || !mRemove(m, mi)) { // plain: under sched.lock`,
      to: `  if (i32[NMLIVE_W] <= min || (mRemove(m, mi), false)) { // plain: under sched.lock`,
    }],
  },
  {
    name: 'mlife-start-idle', // mStart leaves the P it takes idle instead of handing it to the M
    edits: [{
      file: 'mlife.ts',
      from: `  const mw = mWord(m, mi);
  Atomics.store(i32, mw + NEXTP, p + 1); // pairs with the load in acquireP`,
      to: `  mPutLocked(m, mi);
  if (mi >= 0) { schedUnlock(m); return NONE; }
  const mw = mWord(m, mi);
  Atomics.store(i32, mw + NEXTP, p + 1); // pairs with the load in acquireP`,
    }],
  },
];

const SLEEP = 0; // STOP_SLEEP (the layout's)
const RETRY = -1; // STOP_RETRY
const NONE = -1;
/** A word of the M block's first line that the layout leaves unused: the model's timer flag. */
const TIMER = 64;

export async function scenarios(variant, edits) {
  const make = (name, w, plan, opts) => ({
    name, world: w, opts,
    setup(w) {
      const { T, L } = w;
      const ran = [];
      const setupM = w.mem();
      // Start-up as the runtime does it: every P to the no-M list, then each live M's mStart;
      // the Ms handed a P park it again (the start-up's spin finds nothing).
      for (let p = 0; p < w.nprocs; p++) w.runDirect(T.mlife.pDetach(setupM, p));
      for (const mi of plan.live) {
        const p = w.runDirect(T.mlife.mStart(setupM, mi));
        if (p === NONE) continue;
        w.runDirect(T.sched.acquireP(setupM, mi));
        if (w.runDirect(T.sched.findRunnable(setupM, p, mi)) !== 0) throw new Error('setup: work at start-up');
        if (w.runDirect(T.sched.stopM(setupM, p, mi)) !== SLEEP) throw new Error('setup: stopM did not sleep');
      }
      const exited = new Set();
      let target = w.nprocs;
      const mLoop = (mi, started) => (function* () {
        const m = w.mem();
        const park = (yield* T.mem.mWord(m, mi)) + (L.M_PARK >> 2);
        const timer = (yield* T.mem.mWord(m, mi)) + (TIMER >> 2);
        let p = -1;
        if (started) { // a new thread (startm): mStart, then the P it was handed, spinning
          if ((yield* T.mlife.mStart(m, mi)) !== NONE) p = yield* T.sched.acquireP(m, mi);
        }
        let mayExit = plan.exiting.includes(mi);
        for (;;) {
          while (p < 0) { // the park ladder's deep rungs: swap, act on PARK_P, else wait
            const x = yield ['exchange', m.i32, park, 0];
            if ((x & L.PARK_P) !== 0) { p = yield* T.sched.acquireP(m, mi); break; }
            if (mayExit) { // the first deep wait of a sleep: bounded by idleTimeout
              mayExit = false;
              yield ['wait', m.i32, park, 0];
              const timedOut = (yield ['exchange', m.i32, timer, 0]) !== 0;
              if (timedOut && (yield* T.mlife.mExit(m, mi, plan.min)) === 1) { exited.add(mi); return; }
              continue;
            }
            yield ['wait', m.i32, park, 0];
          }
          for (;;) {
            let g = yield* T.sched.findRunnable(m, p, mi);
            if (g === 0) {
              const s = yield* T.sched.stopM(m, p, mi);
              if (s === SLEEP) { p = -1; mayExit = plan.exiting.includes(mi); break; }
              if (s === RETRY) { p = yield* T.sched.acquireP(m, mi); continue; }
              g = s;
            }
            ran.push(g);
            // m.ts's look between two Gs (every 64 there, after each G here)
            if ((yield ['load', m.i32, L.S_RT_SHRINK >> 2]) > 0 && (yield* T.procresize.pStop(m, p, mi)) >= 0) { p = -1; mayExit = false; break; }
          }
        }
      })();
      const threads = [(function* () {
        const m = w.mem();
        for (const step of plan.main ?? plan.submit) {
          if (typeof step === 'number') { yield* T.sched.ready(m, -1, step, 0); continue; }
          // sched.resize: procresize until it is done, again each time the others are stuck (the
          // engine's 4 ms look: a bounded wait times out when nothing else can run)
          // (`once`: a resize the program does not wait for before its next step)
          target = step.resize;
          if (step.once) { yield* T.procresize.procresize(m, step.resize, w.nprocs); continue; }
          while ((yield* T.procresize.procresize(m, step.resize, w.nprocs)) !== 0) yield ['wait', m.i32, L.S_DUMMY >> 2, 0, 4];
        }
      })()];
      for (const mi of plan.live) threads.push(mLoop(mi, false));
      for (const mi of plan.start ?? []) threads.push(mLoop(mi, true));
      for (const mi of plan.exiting) {
        threads.push((function* () { // the idleTimeout of M mi's wait
          const m = w.mem();
          const mw = yield* T.mem.mWord(m, mi);
          yield ['store', m.i32, mw + (TIMER >> 2), 1];
          yield ['notify', m.i32, mw + (L.M_PARK >> 2), 1];
        })());
      }
      const i32 = () => w.view();
      return {
        threads,
        final() {
          const v = i32();
          const left = plan.submit.filter((g) => !ran.includes(g));
          if (v[L.S_RT_SHRINK >> 2] !== 0) return `a shrink of ${v[L.S_RT_SHRINK >> 2]} still asked for at the end`;
          const once = exactlyOnce(ran, plan.submit.filter((g) => !left.includes(g)));
          if (once) return once;
          const npidle = v[L.S_NPIDLE >> 2];
          const nmidle = v[L.S_NMIDLE >> 2];
          const npnom = v[L.S_RT_NPNOM >> 2];
          if (left.length !== 0) {
            // Not run: it must wait where startm's next look sees it (queued, no P idle, a P without an M).
            if (v[L.S_RUNQ_SIZE >> 2] !== left.length) return `G ${left.join(',')} not run and not on the global queue`;
            if (npidle !== 0 || npnom === 0) return `G ${left.join(',')} stranded: npidle = ${npidle}, nmidle = ${nmidle}, Ps without an M = ${npnom} (no look would start a thread)`;
          }
          if (v[L.S_NMSPINNING >> 2] !== 0) return `nmspinning stuck at ${v[L.S_NMSPINNING >> 2]}`;
          if (npidle > nmidle) return `${npidle} idle Ps and only ${nmidle} idle Ms`;
          const npdead = v[L.S_RT_NPDEAD >> 2];
          if (npidle + npnom + npdead !== w.nprocs) return `npidle ${npidle} + Ps without an M ${npnom} + out of service ${npdead} != ${w.nprocs} Ps at the end`;
          if (w.nprocs - npdead !== target) return `${w.nprocs - npdead} Ps in service at the end, resized to ${target}`;
          let listed = 0;
          for (let x = v[L.S_RT_PDEAD >> 2]; x !== 0 && listed <= w.nprocs; x = v[((L.PS + (x - 1) * L.P_SIZE) >> 2) + (L.P_LINK >> 2)]) listed++;
          if (listed !== npdead) return `${listed} Ps on the out-of-service list, ${npdead} counted`;
          const live = plan.live.length + (plan.start ?? []).length - exited.size;
          if (v[L.S_RT_NMLIVE >> 2] !== live) return `nmlive = ${v[L.S_RT_NMLIVE >> 2]}, ${live} Ms running`;
          for (const mi of [...plan.live, ...(plan.start ?? [])]) {
            const mw = ((v[(L.HEADER + L.H_MBASE) >> 2] + mi * L.M_SIZE) >> 2);
            if (v[mw + (L.M_SPINNING >> 2)] !== 0) return `M${mi} asleep with its spinning flag set`;
            if (exited.has(mi) && v[mw + (L.M_NEXTP >> 2)] !== 0) return `M${mi} ended its thread with a P handed to it`;
          }
          return '';
        },
      };
    },
  });
  const w22 = await world(variant, edits, [2, 3, 8, 16, 0, 1, 1]);
  const w22b = await world(variant, edits, [2, 2, 8, 16, 0, 1, 1]);
  return [
    // Two Ms with two Ps, both may idle out (down to none): against one submission.
    make('mlife: two Ms idling out, one submission', w22, { live: [0, 1], exiting: [0, 1], min: 0, submit: [1] },
      { bound: 2, maxDfs: 6000, random: 400 }),
    // One M kept (the minimum), one idling out, a new M started for the P it leaves, two Gs.
    make('mlife: an M idling out, a new M starting, two submissions', w22,
      { live: [0, 1], exiting: [0, 1], min: 1, submit: [1, 2], start: [2] },
      { bound: 1, maxDfs: 6000, random: 400 }),
    // sched.resize: two Ms with their Ps; the main thread submits, shrinks to one P (a busy M gives
    // its P back between two Gs, or an idle one goes at once), submits again and grows back.
    make('mlife: resize down and up around running Ms', w22b,
      { live: [0, 1], exiting: [], min: 0, submit: [1, 2, 3], main: [1, 2, { resize: 1 }, 3, { resize: 2 }] },
      { bound: 1, maxDfs: 6000, random: 400 }),
    // The same, growing back before the shrink is done: the grow withdraws what no M took yet,
    // and counts a give-back under way.
    make('mlife: a grow overtaking a shrink', w22b,
      { live: [0, 1], exiting: [], min: 0, submit: [1, 2, 3], main: [1, 2, { resize: 1, once: true }, 3, { resize: 2 }] },
      { bound: 2, maxDfs: 8000, random: 600 }),
  ];
}
