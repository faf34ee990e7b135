// The adaptive splitter of the data-parallel calls (docs/DESIGN.md "Data-parallel calls",
// "The splitting rule"): whether a range of items is split in two or run as one leaf. Rayon's
// rule (rayon's `iter/plumbing` LengthSplitter), written for our fork: a range starts with as
// many splits as the scheduler has Ps, each split halves the count, and a range that a thief
// took (it runs on another thread than the one that forked it) gets the full count back, so
// work keeps being divided where threads are idle and stops being divided where nobody steals.
// Pure functions of numbers: every thread may call them; test/par-split.test.ts checks them.

/**
 * The splits a range has left after the decision for a range of `len` items (DESIGN.md "The
 * splitting rule", steps 1-4), or NO_SPLIT when it runs as one leaf. `splits`: the count its
 * forker gave it; `stolen`: it runs on another thread than its forker's; `threads`: the Ps;
 * `minLen`: no half shorter than it; `maxLen`: a range longer than it splits whatever the count.
 */
export function splitDecision(len: number, splits: number, stolen: boolean, threads: number, minLen: number, maxLen: number): number {
  if (len < 2 || (len >>> 1) < minLen) return NO_SPLIT; // step 1: both halves hold minLen items
  if (len > maxLen) return splits >>> 1; // step 2: too long to be one leaf
  if (stolen) return Math.max(threads, splits >>> 1); // step 3: a thief resets the count
  if (splits > 0) return splits >>> 1; // step 4: halve what is left
  return NO_SPLIT;
}

/** splitDecision's "run it as one leaf". */
export const NO_SPLIT = -1;

/** The splits a call's whole range starts with (rayon's `Splitter::new`: the thread count,
 *  raised so that no leaf needs to exceed maxLen). */
export function initialSplits(len: number, threads: number, maxLen: number): number {
  const byMax = maxLen === Infinity ? 0 : Math.ceil(len / maxLen);
  return Math.max(threads, byMax);
}
