// The G table: G ids to addresses and status transitions (docs/DESIGN.md, "G states").
// Growth is ggrow.ts.
//
// G id g lives in chunk g >> G_CHUNK_SHIFT at slot g & G_CHUNK_MASK; GDIR holds each chunk's
// address. Chunks are added under the heap lock and never move, so an id once handed out stays
// valid. Id 0 is "no G": its slot exists in chunk 0 but is never put on a free list.

import {
  FLAG_DEBUG, GDIR, G_ARG_TAGS, G_ARGS, G_CHUNK, G_CHUNK_MASK, G_CHUNK_SHIFT, G_DEAD, G_IDLE, G_RUNNABLE,
  G_RUNNING, G_SIZE, G_STATUS, G_WAITING, TAG_NUMBER,
} from './shared/layout';
import { flags } from './mem';
import { beginAbort } from './abort';
import { reach } from './bounds';

/**
 * Byte address of G g's entry. g must be below H_GCAP. The chunk may have been added by another
 * thread: its end is brought within this instance's bounds first (bounds.ts). Any thread.
 */
export function gAddr(g: u32): usize {
  let chunk = <usize>atomic.load<u32>(<usize>(g >> G_CHUNK_SHIFT) << 2, GDIR); // pairs with the GDIR store in growTable
  reach(chunk + <usize>G_CHUNK * <usize>G_SIZE);
  return chunk + (<usize>(g & G_CHUNK_MASK) * <usize>G_SIZE);
}

/** Whether from -> to is a legal G transition (DESIGN.md "G states"). Any thread. */
function legal(from: u32, to: u32): bool {
  switch (to) {
    case G_DEAD: return from == G_IDLE || from == G_RUNNING || from == G_WAITING || from == G_RUNNABLE;
    case G_RUNNABLE: return from == G_DEAD || from == G_WAITING;
    case G_RUNNING: return from == G_RUNNABLE;
    case G_WAITING: return from == G_RUNNING;
  }
  return false;
}

/**
 * Moves G g from status `from` to `to`. With FLAG_DEBUG the pair must be legal and g must be in
 * `from` (checked by CAS); otherwise the status is simply stored. The thread that owns g's
 * current state (the M running it, or whoever took it off a queue or free list). Inlined: a
 * release build pays a flag test and a store (the fork path makes two transitions per fork).
 */
@inline export function gSetStatus(g: u32, from: u32, to: u32): void {
  if ((flags() & FLAG_DEBUG) == 0) {
    store<u32>(gAddr(g), to, G_STATUS); // plain: the run-queue or join atomic that hands g over publishes it
    return;
  }
  gSetStatusChecked(g, from, to);
}

/** gSetStatus with FLAG_DEBUG: the transition checked by CAS, or an abort naming it. */
function gSetStatusChecked(g: u32, from: u32, to: u32): void {
  let gp = gAddr(g);
  let ok = legal(from, to);
  let was = ok
    ? atomic.cmpxchg<u32>(gp, from, to, G_STATUS) // pairs with other gSetStatus CAS and loads
    : atomic.load<u32>(gp, G_STATUS); // pairs with the status store/CAS of the last transition
  if (!ok || was != from) {
    beginAbort();
    throw new Error('gSetStatus: bad transition g=' + g.toString() + ' from=' + from.toString() +
      ' to=' + to.toString() + ' (is ' + was.toString() + ')');
  }
}

/** TAG_NUMBER in each of a G's eight argument tag bytes (G_ARG_TAGS). */
const NUMBER_TAGS: u64 = <u64>TAG_NUMBER * 0x0101010101010101;

/**
 * The arguments of a G being made, the G at gp (forkNew, spawnNew): x0..x6 as its number slots
 * (all seven stored: those past argc are never read) and its eight tag bytes, TAG_NUMBER in the
 * first argc and 0 in the rest. The thread making the G, before anything publishes it.
 */
@inline export function gSetNumberArgs(gp: usize, argc: u32, x0: f64, x1: f64, x2: f64, x3: f64, x4: f64, x5: f64, x6: f64): void {
  // plain: the G is the caller's alone until its queue or deque put publishes it
  store<u64>(gp, NUMBER_TAGS & ((<u64>1 << (<u64>(argc & 7) << 3)) - 1), G_ARG_TAGS); // little-endian: tag i is byte i
  store<f64>(gp, x0, G_ARGS);
  store<f64>(gp, x1, G_ARGS + 8);
  store<f64>(gp, x2, G_ARGS + 16);
  store<f64>(gp, x3, G_ARGS + 24);
  store<f64>(gp, x4, G_ARGS + 32);
  store<f64>(gp, x5, G_ARGS + 40);
  store<f64>(gp, x6, G_ARGS + 48);
}
