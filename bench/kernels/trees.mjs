// The UTS trees tasks refer to by index (a number crosses threads for free): UTS's T1 and T3,
// and small trees of each type for the tests and --quick.

import { TREES } from './uts.mjs';

/** Small trees: counts not published, computed by walk() and checked by every variant alike. */
export const SMALL = {
  S1: { type: 'geo', b0: 4, genMx: 6, seed: 19 },
  S3: { type: 'bin', b0: 200, q: 0.124, m: 8, seed: 42 },
};

export const TREE_NAMES = ['T1', 'T3', 'S1', 'S3'];
export const TREE_LIST = TREE_NAMES.map((n) => TREES[n] ?? SMALL[n]);
