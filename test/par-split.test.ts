// The adaptive splitter (DESIGN.md "Data-parallel calls", "The splitting rule") as pure
// functions: the leaves of any run partition the range, no leaf is shorter than minLen or
// longer than maxLen (when the range could be split), nobody stealing makes about 2 * threads
// leaves, and steals re-arm the splitting down to minLen.
import { describe, expect, it } from 'vitest';
import { initialSplits, NO_SPLIT, splitDecision } from '../dist/bindings/runtime/tasks/par-split.js';

/** The leaves of a call over [0, len), as par.ts's bridge makes them; `steal(lo, hi)` says
 *  whether the right half [lo, hi) of a split is taken by a thief. */
function leaves(len: number, threads: number, minLen: number, maxLen: number, steal: (lo: number, hi: number) => boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const part = (lo: number, hi: number, splits: number, stolen: boolean): void => {
    const s = splitDecision(hi - lo, splits, stolen, threads, minLen, maxLen);
    if (s === NO_SPLIT) { out.push([lo, hi]); return; }
    const mid = lo + ((hi - lo) >>> 1);
    part(lo, mid, s, false);
    part(mid, hi, s, steal(mid, hi));
  };
  if (len > 0) part(0, len, initialSplits(len, threads, maxLen), false);
  return out;
}

/** Where the leaves fail to partition [0, len) (a gap, an overlap, an empty leaf), or ''. */
function partitionFault(ls: Array<[number, number]>, len: number): string {
  let at = 0;
  for (const [lo, hi] of ls) {
    if (lo !== at || hi <= lo) return `leaf [${lo}, ${hi}) after ${at}`;
    at = hi;
  }
  return at === len ? '' : `ends at ${at}, not ${len}`;
}

function expectPartition(ls: Array<[number, number]>, len: number): void {
  expect(partitionFault(ls, len)).toBe('');
}

describe('splitDecision', () => {
  it('the leaves partition [0, len) at every length 0..300, with and without steals', () => {
    let seed = 7;
    const rand = (): boolean => { seed = (seed * 1103515245 + 12345) >>> 0; return (seed & 0x10000) !== 0; };
    const faults: string[] = [];
    for (let len = 0; len <= 300; len++) {
      for (const threads of [1, 2, 4]) {
        for (const minLen of [1, 3, 64]) {
          const calm = partitionFault(leaves(len, threads, minLen, Infinity, () => false), len);
          const ls = leaves(len, threads, minLen, Infinity, rand);
          const stolen = partitionFault(ls, len);
          const short = len >= minLen && ls.some(([lo, hi]) => hi - lo < minLen);
          if (calm || stolen || short) faults.push(`len ${len} threads ${threads} minLen ${minLen}: ${calm} ${stolen} ${short ? 'a leaf below minLen' : ''}`);
        }
      }
    }
    expect(faults.slice(0, 5)).toEqual([]);
  });

  it('nobody stealing: about 2 * threads leaves, whatever the length', () => {
    for (const threads of [1, 2, 4, 8]) {
      for (const len of [1000, 10_000_000]) {
        const n = leaves(len, threads, 1, Infinity, () => false).length;
        expect(n).toBeGreaterThanOrEqual(threads);
        expect(n).toBeLessThanOrEqual(4 * threads);
      }
    }
  });

  it('every steal re-arms the splitting: every right half stolen, the leaves go down to minLen', () => {
    const ls = leaves(1024, 2, 4, Infinity, () => true);
    expectPartition(ls, 1024);
    // A part's left spine is not stolen: its splits run out after a few halvings (a leaf of a
    // quarter of the part); the right halves, stolen, split again, down to minLen.
    expect(Math.min(...ls.map(([lo, hi]) => hi - lo))).toBeLessThan(8);
    expect(ls.length).toBeGreaterThan(4 * leaves(1024, 2, 4, Infinity, () => false).length);
  });

  it('maxLen bounds every leaf; minLen wins over it', () => {
    const ls = leaves(100_000, 2, 1, 1000, () => false);
    expectPartition(ls, 100_000);
    expect(Math.max(...ls.map(([lo, hi]) => hi - lo))).toBeLessThanOrEqual(1000);
    expect(leaves(100, 2, 60, 10, () => false)).toEqual([[0, 100]]);
  });
});
