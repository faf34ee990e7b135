// The G table: G ids to addresses and G status transitions (docs/DESIGN.md, "Free Gs",
// "G states"). Growing the table is ggrow.ts.
//
// G id g lives at GDIR[g >> 10] + (g & 1023) * G_SIZE. A chunk's directory entry is stored
// before H_GCAP is raised past its ids, and a G id only ever reaches a thread through an atomic
// (a queue CAS, the free stack, a lock), so a plain read of the directory entry sees it.

import {
  FLAG_DEBUG, G_ARG_TAGS, G_ARGS, G_CHUNK_MASK, G_CHUNK_SHIFT, G_DEAD, G_IDLE, G_RUNNABLE, G_RUNNING, G_SCHEDLINK,
  G_SIZE, G_STATUS, G_WAITING, GDIR, TAG_NUMBER,
} from '../../../assembly/shared/layout.js';
import { cover, flags, type Mem } from './mem.js';

const GDIR_W = GDIR >> 2;
const STATUS = G_STATUS >> 2;
const LINK = G_SCHEDLINK >> 2;

/** Byte address of G g's entry. Any thread. */
export function gAddr(m: Mem, g: number): number {
  // plain: the directory entry is written before H_GCAP publishes the chunk (see above)
  return (m.i32[GDIR_W + (g >>> G_CHUNK_SHIFT)] >>> 0) + (g & G_CHUNK_MASK) * G_SIZE;
}

/** i32 index of G g's entry, refreshing this thread's views if the entry lies past them.
 *  After a call, read `m.i32` again. Any thread. */
export function gWord(m: Mem, g: number): number {
  const a = gAddr(m, g);
  if (a + G_SIZE > m.end) cover(m, a + G_SIZE);
  return a >>> 2;
}

/** g.schedlink. The holder of g (or of the lock guarding the list it is on). */
export function gLink(m: Mem, g: number): number {
  const w = gWord(m, g);
  return m.i32[w + LINK]; // plain: the list holding g is ours (lock or exclusive ownership)
}

/** g.schedlink = next. The holder of g (or of the lock guarding the list it is on). */
export function gSetLink(m: Mem, g: number, next: number): void {
  const w = gWord(m, g);
  m.i32[w + LINK] = next; // plain: published by the queue's lock or CAS
}

/** Is from -> to in the table of legal G transitions (docs/DESIGN.md, "G states")? Any thread. */
function legal(from: number, to: number): boolean {
  switch (to) {
    case G_DEAD: return from === G_IDLE || from === G_RUNNING || from === G_WAITING || from === G_RUNNABLE;
    case G_RUNNABLE: return from === G_DEAD || from === G_WAITING;
    case G_RUNNING: return from === G_RUNNABLE;
    case G_WAITING: return from === G_RUNNING;
    default: return false;
  }
}

/** The error an illegal G transition aborts with. Any thread. */
function badTransition(g: number, from: number, to: number, is: number): Error {
  return new Error(`gSetStatus: bad transition g=${g} from=${from} to=${to} (is ${is})`);
}

/** G status transition from -> to. With FLAG_DEBUG it must be a legal transition and g must be
 *  in `from` (checked by CAS); otherwise a plain store. The thread holding g. */
export function gSetStatus(m: Mem, g: number, from: number, to: number): void {
  const w = gWord(m, g) + STATUS;
  const i32 = m.i32;
  if ((flags(m) & FLAG_DEBUG) === 0) {
    i32[w] = to; // plain, as the Wasm core: the run-queue or join atomic that hands g over publishes it
    return;
  }
  gSetStatusChecked(m, g, from, to);
}

/** gSetStatus with FLAG_DEBUG: the transition checked by CAS, or an error naming it. */
function gSetStatusChecked(m: Mem, g: number, from: number, to: number): void {
  const w = gWord(m, g) + STATUS;
  const i32 = m.i32;
  if (!legal(from, to)) throw badTransition(g, from, to, Atomics.load(i32, w));
  const is = Atomics.compareExchange(i32, w, from, to); // pairs with status loads by the runtime and ready
  if (is !== from) throw badTransition(g, from, to, is);
}

const TAGS = G_ARG_TAGS >> 2;
const ARGS = G_ARGS >> 2;
/** The tag words (bytes 0-3, then 4-7) of 0..7 number arguments: TAG_NUMBER in each of the
 *  first argc bytes. */
const NUMBER_TAGS_LO = [0, TAG_NUMBER, TAG_NUMBER * 0x101, TAG_NUMBER * 0x10101, TAG_NUMBER * 0x1010101, TAG_NUMBER * 0x1010101, TAG_NUMBER * 0x1010101, TAG_NUMBER * 0x1010101];
const NUMBER_TAGS_HI = [0, 0, 0, 0, 0, TAG_NUMBER, TAG_NUMBER * 0x101, TAG_NUMBER * 0x10101];

/** The arguments of a G being made, the G at i32 index w (forkNew, spawnNew): x0..x6 as its
 *  number slots (all seven stored: those past argc are never read) and its eight tag bytes,
 *  TAG_NUMBER in the first argc and 0 in the rest. The thread making the G, before anything
 *  publishes it. */
export function gSetNumberArgs(m: Mem, w: number, argc: number, x0: number, x1: number, x2: number, x3: number,
  x4: number, x5: number, x6: number): void {
  // plain: the G is the caller's alone until its queue or deque put publishes it
  const n = argc & 7;
  m.i32[w + TAGS] = NUMBER_TAGS_LO[n]; // little-endian: tag i is byte i
  m.i32[w + TAGS + 1] = NUMBER_TAGS_HI[n];
  const f = (w + ARGS) >>> 1;
  const f64 = m.f64;
  f64[f] = x0;
  f64[f + 1] = x1;
  f64[f + 2] = x2;
  f64[f + 3] = x3;
  f64[f + 4] = x4;
  f64[f + 5] = x5;
  f64[f + 6] = x6;
}
