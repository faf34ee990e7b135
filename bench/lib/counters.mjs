// What the scheduler did during a workload, from two stats() snapshots: the counters the
// scheduler and policies suites print beside their figures. Main thread only.

/** The difference of two stats() snapshots, for the counters that tell what happened. */
export function statsDelta(a, b) {
  const t = (k) => b.totals[k] - a.totals[k];
  return {
    executed: t('executed'), stealOps: t('stealOps'), stolen: t('stolen'), overflows: t('overflows'),
    globalHits: t('globalHits'), localHits: t('localHits'), runnextHits: t('runnextHits'),
    lockAcquisitions: b.sched.lockAcquisitions - a.sched.lockAcquisitions,
    parks: b.procs.reduce((s, p, i) => s + p.parks - a.procs[i].parks, 0),
    wakeups: b.procs.reduce((s, p, i) => s + p.wakeups - a.procs[i].wakeups, 0),
  };
}

/** Runs `fn` between two stats() snapshots; returns its value and the counters' deltas. */
export async function withStats(sched, fn) {
  const a = sched.stats();
  const v = await fn();
  return { v, d: statsDelta(a, sched.stats()) };
}
