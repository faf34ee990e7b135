// What the protocol models share: the shrunken layout (loom's small configurations), the world
// a variant runs on, and checks over the ghost record of which G ran where. Test code only.

import { buildVariant } from './transform.mjs';
import { World } from './explore.mjs';

/** Layout constants shrunk so that the edges are a few steps away: a 4-slot ring (overflow at
 *  the fifth put), 2-G batches, per-P free lists of 2 to 4 Gs, 8-G table chunks, 2 steal passes,
 *  a 4-slot fork deque (full at the fifth push). */
export const SMALL = {
  RUNQ_SIZE: 4, RUNQ_MASK: 3, RUNQ_HALF: 2, GLOBRUNQ_MAX_BATCH: 2,
  GFREE_LOCAL_MAX: 4, GFREE_LOCAL_KEEP: 2,
  G_CHUNK: 8, G_CHUNK_SHIFT: 3, G_CHUNK_MASK: 7,
  STEAL_TRIES: 2,
  FORKQ_SIZE: 4, FORKQ_MASK: 3,
};

/** Builds variant `name` (bugs: seeded text replacements) and a world laid down by its init. */
export async function world(name, bugs, init) {
  let variant = variants.get(name);
  if (variant === undefined) {
    variant = await buildVariant(name, SMALL, bugs);
    variants.set(name, variant);
  }
  return new World(variant, init);
}

const variants = new Map();

/** "" when `ran` holds each of `want` exactly once (and nothing else), else what differs. */
export function exactlyOnce(ran, want) {
  const seen = new Map();
  for (const g of ran) seen.set(g, (seen.get(g) ?? 0) + 1);
  for (const g of want) {
    const n = seen.get(g) ?? 0;
    if (n !== 1) return `G ${g} ran ${n} times (ran: ${ran.join(',')})`;
    seen.delete(g);
  }
  if (seen.size !== 0) return `unexpected Gs ran: ${[...seen.keys()].join(',')} (ran: ${ran.join(',')})`;
  return '';
}
