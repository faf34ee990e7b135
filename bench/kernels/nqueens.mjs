// N-Queens: the number of ways to place n queens on an n x n board, none attacking another
// (n = 14: 365,596; OEIS A000170). Rows are filled in order; a placement is three bitmasks of
// the columns attacked in the next row: by a column, by a left diagonal, by a right diagonal.
// Any thread may call these.

/** The published counts this bench checks against (OEIS A000170). */
export const SOLUTIONS = [1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184];

/** Solutions below a partial placement at `row`, on one thread. */
export function count(n, row, cols, left, right) {
  if (row === n) return 1;
  const all = (1 << n) - 1;
  let free = all & ~(cols | left | right);
  let s = 0;
  while (free !== 0) {
    const bit = free & -free;
    free ^= bit;
    s += count(n, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >>> 1);
  }
  return s;
}

/** The partial placements at row `depth` (each [row, cols, left, right]), for a pool's tasks. */
export function placements(n, depth) {
  const all = (1 << n) - 1;
  let level = [[0, 0, 0, 0]];
  for (let r = 0; r < depth; r++) {
    const next = [];
    for (const [row, cols, left, right] of level) {
      let free = all & ~(cols | left | right);
      while (free !== 0) {
        const bit = free & -free;
        free ^= bit;
        next.push([row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >>> 1]);
      }
    }
    level = next;
  }
  return level;
}
