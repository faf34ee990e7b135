// Soak: random task trees (sync joins, async awaits, timers), random cancellations and random
// worker kills (a node ends its thread with process.exit) on both backends for N minutes. At
// the end of each round: every tree either counted each of its nodes exactly once, or was
// cancelled (AbortError), or lost a node to a killed thread (WorkerCrashedError); no node ran
// twice; the free lists are whole and no value block leaked.
//
// Life-cycle chaos besides (DESIGN.md "Late results", "What keeps the process alive"): threads
// are elastic (minThreads 0 or 1, idleTimeout a few ms, trees submitted in waves with pauses, so
// threads idle out and start again mid-round), a driver resizes procs at random and kills
// kill-armed runaways (each ends a thread), and every round also checks: no error outside a task
// (onError), the scheduler never failed (a last run after the trees must succeed), and, for runs
// past two minutes, RSS level after the first minute (at most 64 MB above its level then).
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
let resizes = 0, hogsKilled = 0, outside = 0, idleExits = 0;
const t0 = Date.now();
const rssMB = () => process.memoryUsage().rss / 1048576;
let rssAtMinute = null, rssMax = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Past the time, rounds go on until a kill has been survived (with kills on): on a slow or busy
// machine the first round may end before a kill node ran, and a soak that killed nothing has
// not tested recovery. The caller's own bound catches a recovery that never happens.
while (Date.now() < end || (kills && restarts === 0)) {
  for (const backend of ['wasm', 'js']) {
    const s = await Scheduler.start({
      tasks, procs, maxProcs: procs, backend, debug: round % 4 === 0, minThreads: round % 2, idleTimeout: 2 + (round % 7) * 3,
      onError: (e) => { outside++; failures++; console.error(`an error outside any task (${backend}, round ${round}):`, e); },
    });
    s.stats();
    const jobs = [];
    // The life-cycle driver: resizes and kill-armed runaways while the trees run.
    let driving = true;
    const driver = (async () => {
      for (let k = 0; driving; k++) {
        const r = (k * 2654435761 + round) >>> 0;
        if (r % 3 === 0) { await s.resize(1 + (r >>> 3) % procs); resizes++; }
        else if (kills && r % 3 === 1) {
          const e = await s.with({ timeout: 2 + (r >>> 5) % 8, kill: true }).run('hog', 200).then(() => null, (x) => x);
          if (e?.code !== 'ERR_ABORTED') { failures++; console.error('a killed runaway did not reject with ERR_ABORTED', e); }
          else if (e.killed === true) hogsKilled++;
        }
        await sleep(5 + (r >>> 7) % 20);
      }
    })();
    for (let t = 0; t < 40; t++) {
      if (t % 10 === 9) await sleep(15 + (round % 4) * 10); // a pause: threads idle out, and start again for the next wave
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
      } else if (kills && r.error?.name === 'WorkerCrashedError' && !/ failed: /.test(r.error.message)) {
        crashed++; // this tree's node was on a killed thread
      } else {
        failures++;
        console.error('unexpected failure', r.error);
      }
    }
    driving = false;
    await driver;
    // The scheduler never failed: a run after everything must still succeed.
    const after = await s.run('count', 1, 2).then((v) => v, (e) => e);
    if (after !== 4) { failures++; console.error(`the scheduler failed (${backend}, round ${round}):`, after); }
    await s.resize(procs);
    await s.close();
    clearTimeout(watchdog);
    const st = s.stats();
    idleExits += st.sched.threadExits;
    restarts += st.sched.restarts;
    const free = st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0);
    if (free !== st.sched.gcap - 1) { failures++; console.error(`free lists not whole: ${free} of ${st.sched.gcap - 1} (${backend}, ${st.sched.restarts} kills)`); }
    if (st.sched.heapLiveBlocks !== 0) { failures++; console.error(`${st.sched.heapLiveBlocks} value blocks leaked (${backend}, ${st.sched.restarts} kills)`); }
  }
  round++;
  const rss = rssMB();
  if (rssAtMinute === null && Date.now() - t0 >= 60_000) rssAtMinute = rss;
  if (rssAtMinute !== null) rssMax = Math.max(rssMax, rss);
}
if (rssAtMinute !== null && Date.now() - t0 >= 120_000 && rssMax - rssAtMinute > 64) {
  failures++;
  console.error(`RSS kept growing: ${rssAtMinute.toFixed(0)} MB after the first minute, ${rssMax.toFixed(0)} MB at most since`);
}
console.log(`soak: ${(minutes * 60).toFixed(0)} s, ${round} rounds x 2 backends: ${trees} trees (${nodes} tasks) checked, ` +
  `${cancelled} cancelled, ${crashed} failed with a killed thread, ${restarts} kills survived, lost = ${failures === 0 ? 0 : 'see above'}, failures = ${failures}`);
console.log(`life cycle: ${resizes} resizes, ${hogsKilled} runaways killed, ${idleExits} idle exits, ${outside} errors outside a task` +
  (rssAtMinute === null ? '' : `, RSS ${rssAtMinute.toFixed(0)} MB after the first minute, at most ${rssMax.toFixed(0)} MB since`));
process.exit(failures === 0 ? 0 : 1);
