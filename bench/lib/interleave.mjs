// How repetitions are taken: every variant side by side, rep by rep, after a warm-up.

import { now } from './stats.mjs';
import { withWatchdog } from './guard.mjs';

/**
 * Runs fn(variant, rep) for every repetition and variant, interleaved (rep 0 of every variant,
 * then rep 1, ...), so a slow spell of a noisy machine hits every variant alike. With `warmMs`,
 * each variant first runs untimed (rep -1) for at least that long: V8 takes a few hundred ms of
 * running a CPU-bound body on a worker before its code settles (fibcut(35, 20) runs 63, 43, 40,
 * then 32 ms after a small warm-up), and a measurement is of the settled code, for the
 * sequential baseline as much as for the scheduler.
 */
export async function interleave(variants, reps, fn, warmMs = 0) {
  const out = new Map(variants.map((v) => [v, []]));
  for (const v of variants) {
    if (warmMs <= 0) break;
    const end = now() + warmMs;
    do await fn(v, -1); while (now() < end);
  }
  for (let r = 0; r < reps; r++) {
    for (const v of variants) out.get(v).push(await fn(v, r));
  }
  return out;
}

/**
 * interleave() for variants that may fail on their own (each its own scheduler): a repetition
 * that throws or has no result within `ms` ends that variant, which is recorded in
 * `res.failures` and left out of the map; the other variants go on.
 */
export async function interleaveGuarded(variants, reps, fn, ms, res) {
  const out = new Map(variants.map((v) => [v, []]));
  const dead = new Set();
  for (let r = 0; r < reps; r++) {
    for (const v of variants) {
      if (dead.has(v)) continue;
      try {
        out.get(v).push(await withWatchdog(fn(v, r), ms, `${v}, repetition ${r + 1}`));
      } catch (e) {
        dead.add(v);
        res.failures.push({ workload: v, error: String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ') });
        console.log(`  ! ${res.suite}: ${v} failed: ${e?.message ?? e}`);
      }
    }
  }
  for (const v of dead) out.delete(v);
  return out;
}

/** Calls fn on the main thread repeatedly for about `ms`, to get the JIT to its optimised code. */
export function warmMain(fn, ms = 50) {
  const end = now() + ms;
  while (now() < end) fn();
}
