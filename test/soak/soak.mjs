// Soak: random task trees (sync joins, async awaits, timers), random cancellations and random
// worker kills (a node ends its thread with process.exit) on both backends for N minutes. At
// the end of each round: every tree either counted each of its nodes exactly once, or was
// cancelled (AbortError), or lost a node to a killed thread (WorkerCrashedError); no node ran
// twice; the free lists are whole and no value block leaked.
//
//   npm run soak -- --minutes 5        (default 1; --seconds N instead; --procs N; --no-kills)

import { Scheduler } from '../../dist/bindings/index.js';

const argv = process.argv.slice(2);
const opt = (name, def) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? Number(argv[i + 1]) : def; };
const minutes = argv.includes('--seconds') ? opt('seconds', 10) / 60 : opt('minutes', 1);
const kills = !argv.includes('--no-kills');
const procs = opt('procs', 2);
const tasks = new URL('./tasks.mjs', import.meta.url);
const end = Date.now() + minutes * 60_000;
let trees = 0, nodes = 0, cancelled = 0, crashed = 0, restarts = 0, failures = 0, round = 0;

// Past the time, rounds go on until a kill has been survived (with kills on): on a slow or busy
// machine the first round may end before a kill node ran, and a soak that killed nothing has
// not tested recovery. The caller's own bound catches a recovery that never happens.
while (Date.now() < end || (kills && restarts === 0)) {
  for (const backend of ['wasm', 'js']) {
    const s = await Scheduler.start({ tasks, procs, backend, debug: round % 4 === 0 });
    s.stats();
    const jobs = [];
    for (let t = 0; t < 40; t++) {
      const n = 200 + ((t * 7919 + round * 104729) % 3000);
      const marks = new SharedArrayBuffer(n * 4);
      const seed = (round * 1000 + t) >>> 0;
      const cancel = t % 7 === 3;
      const kill = kills && t % 13 === 5 ? 1 + ((seed * 2654435761) >>> 0) % (n - 1) : -1; // may not exist in the tree
      const ac = new AbortController();
      const p = (cancel ? s.with({ signal: ac.signal }) : s).run('node', marks, 0, n, seed, kill)
        .then((count) => ({ ok: true, count }), (error) => ({ ok: false, error }));
      if (cancel) setTimeout(() => ac.abort('soak'), t % 3);
      jobs.push(p.then((r) => ({ r, marks, cancel })));
    }
    const watchdog = setTimeout(() => {
      const st = s.stats();
      console.error('HANG', backend, round, JSON.stringify(st.sched));
      console.error(JSON.stringify(st.threads));
      console.error(JSON.stringify(st.procs.map((p) => ({ st: p.status, m: p.m, rq: p.runqsize, rn: p.runnext, ex: p.executed }))));
      console.error(JSON.stringify(st.procs));
      setTimeout(() => { console.error(JSON.stringify(s.stats().procs)); process.exit(2); }, 200);
    }, 60_000); // a hang bound: a round took up to a few seconds beside two busy loops
    for (const { r, marks, cancel } of await Promise.all(jobs)) {
      const seen = new Int32Array(marks);
      let ran = 0, twice = 0;
      for (let i = 0; i < seen.length; i++) { if (seen[i] === 1) ran++; else if (seen[i] > 1) twice++; }
      if (twice !== 0) { failures++; console.error(`a node ran twice (${backend}, round ${round})`); }
      if (r.ok) {
        if (r.count !== ran) { failures++; console.error(`tree count ${r.count} but ${ran} nodes ran (${backend})`); }
        trees++;
        nodes += ran;
      } else if (cancel && r.error?.code === 'ERR_ABORTED') {
        cancelled++;
      } else if (kills && r.error?.name === 'WorkerCrashedError') {
        crashed++; // this tree's node was on a killed thread
      } else {
        failures++;
        console.error('unexpected failure', r.error);
      }
    }
    await s.close();
    clearTimeout(watchdog);
    const st = s.stats();
    restarts += st.sched.restarts;
    const free = st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0);
    if (free !== st.sched.gcap - 1) { failures++; console.error(`free lists not whole: ${free} of ${st.sched.gcap - 1} (${backend}, ${st.sched.restarts} kills)`); }
    if (st.sched.heapLiveBlocks !== 0) { failures++; console.error(`${st.sched.heapLiveBlocks} value blocks leaked (${backend}, ${st.sched.restarts} kills)`); }
  }
  round++;
}
console.log(`soak: ${(minutes * 60).toFixed(0)} s, ${round} rounds x 2 backends: ${trees} trees (${nodes} tasks) checked, ` +
  `${cancelled} cancelled, ${crashed} failed with a killed thread, ${restarts} kills survived, lost = ${failures === 0 ? 0 : 'see above'}, failures = ${failures}`);
process.exit(failures === 0 ? 0 : 1);
