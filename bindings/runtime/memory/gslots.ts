// The runtime's view of a G entry: its fields, its argument and result slots, and moving a
// result into a join continuation. Used by the worker Ms and by the main thread alike.
// Offsets come from the layout; the codec turns values into slots and back.

import {
  G_ARGC, G_ARGS, G_ARG_TAGS, G_FN, G_GEN, G_INDEX, G_INLINE_ARGS, G_PARENT,
  G_PRIO, G_RESULT, G_RESULT_TAG, G_SCHEDLINK, G_SIZE, G_SPILL, G_CHUNK_SHIFT, G_CHUNK_MASK, GDIR,
  TAG_ERROR, TAG_NUMBER, TAG_BLOCK, TAG_UNDEFINED, TAG_NULL, TAG_TRUE, TAG_FALSE, TAG_SHORT, GF_SHAPED,
} from '../../../assembly/shared/layout.js';
import { BlockCache } from './blockcache.js';
import { readShort, shortPayload } from './shortstr.js';
import { joinWord } from './joinword.js';
import { decodeValue, encodeLabelled, writeBlockSlot } from '../../codec/index.js';
import type { Core } from '../../core/core.js';
import {
  Views, writeSlot, readSlot, freeSlot, readErrorSlot, encodeErrorBlock, slotLabel, type SharedRegistry, type Heap,
} from './values.js';
import { asMemoryError, outOfSharedMemoryError } from '../base/errors.js';

/**
 * Where argument i of a G with `argc` arguments lives: inline, or in the spill block. A spill
 * block may lie in memory another thread grew after this thread's views were made, and a typed
 * array silently ignores a write past its end, so the views are refreshed to cover it first.
 */
function spillOf(views: Views, a: number, argc: number): number {
  const sp = views.u32[(a + G_SPILL) >>> 2];
  if (sp + argc * 9 > views.end) views.refresh();
  return sp;
}
function argTagAddr(views: Views, a: number, argc: number, i: number): number {
  if (argc <= G_INLINE_ARGS) return a + G_ARG_TAGS + i;
  return spillOf(views, a, argc) + argc * 8 + i;
}
function argSlotAddr(views: Views, a: number, argc: number, i: number): number {
  if (argc <= G_INLINE_ARGS) return a + G_ARGS + i * 8;
  return spillOf(views, a, argc) + i * 8;
}

/** A number read from a slot, as a small integer when it is one (not -0), so integer task code
 *  stays on V8's small-integer path instead of heap doubles. */
export function num(x: number): number {
  const i = x | 0;
  return i === x && (i !== 0 || 1 / x > 0) ? i : x;
}

/** A G's eight argument tag bytes as two i32 words (little-endian: tag i is byte i), all
 *  TAG_NUMBER; and per argc (0..G_INLINE_ARGS) the bits of each word that argc tags cover. */
const NUMBER_TAG_WORD = TAG_NUMBER * 0x1010101;
const TAGS_LO = [0, 0xff, 0xffff, 0xffffff, -1, -1, -1, -1];
const TAGS_HI = [0, 0, 0, 0, 0, 0xff, 0xffff, 0xffffff];

/**
 * G_FN of a root G spawned by name before the main thread knew the task ids (a scheduler started
 * synchronously, before any thread's handshake): the name waits in the G's result slot, unused
 * until the G finishes, and the M that takes the G resolves it against its own task table
 * (DESIGN.md "A synchronous start").
 */
export const FN_NAMED = 0xffffffff;

export class GSlots {
  readonly core: Core;
  readonly views: Views;
  /** Where value blocks come from: the core, or this thread's cache of small ones. */
  heap: Heap;
  readonly shared: SharedRegistry;
  /** This thread's cache of small value blocks (a worker M's: cacheBlocks), or null. */
  private blocks: BlockCache | null = null;

  /** The maxMemoryMB option, named by a result that finds no room (slotOf). Set by the M and
   *  the engine that own this object; 0 until then. */
  maxMemoryMB = 0;

  constructor(core: Core, views: Views, shared: SharedRegistry) {
    this.core = core;
    this.views = views;
    this.heap = core;
    this.shared = shared;
  }

  /** From now on the small value blocks this thread frees wait for its next ones in M mid's
   *  cache (blockcache.ts); flushBlocks gives them back. A worker M, once. */
  cacheBlocks(mid: number): void {
    this.heap = this.blocks = new BlockCache(this.core, this.views, mid);
  }

  /** Gives this thread's cached value blocks back to the core (an M about to sleep without a P,
   *  or ending). */
  flushBlocks(): void {
    if (this.blocks !== null) this.blocks.flush();
  }

  /** Byte address of G g, refreshing the views if the table grew past them. Any thread. */
  addr(g: number): number {
    let v = this.views;
    let a = v.u32[(GDIR + ((g >>> G_CHUNK_SHIFT) << 2)) >>> 2] + (g & G_CHUNK_MASK) * G_SIZE;
    if (a + G_SIZE > v.end) { v.refresh(); a = v.u32[(GDIR + ((g >>> G_CHUNK_SHIFT) << 2)) >>> 2] + (g & G_CHUNK_MASK) * G_SIZE; }
    return a;
  }

  fn(a: number): number { return this.views.u32[(a + G_FN) >>> 2]; }
  argc(a: number): number { return this.views.u32[(a + G_ARGC) >>> 2]; }
  gen(a: number): number { return this.views.u32[(a + G_GEN) >>> 2]; }
  flags(a: number): number { return this.views.u32[(a + G_PRIO) >>> 2]; }
  /** The join word (joinword.ts has its transitions). */
  joinWord(a: number): number { return joinWord(this.views.i32, a); }
  schedlink(a: number): number { return this.views.u32[(a + G_SCHEDLINK) >>> 2]; }
  setSchedlink(a: number, next: number): void { this.views.u32[(a + G_SCHEDLINK) >>> 2] = next; }

  /** Writes fn and the arguments of a fresh G (from gfGet), in one pass: the slots' place
   *  (inline, or a spill block) is found once, then values.ts writes each value. Throws
   *  TypeError on a value that cannot cross threads, after freeing what it wrote. */
  init(g: number, a: number, fn: number, args: ArrayLike<unknown>, label: string): void {
    const v = this.views;
    const argc = args.length;
    v.u32[(a + G_FN) >>> 2] = fn;
    v.u32[(a + G_ARGC) >>> 2] = argc;
    let tags = a + G_ARG_TAGS;
    let slots = a + G_ARGS;
    if (argc > G_INLINE_ARGS) {
      const spill = this.heap.heapAlloc(argc * 9);
      if (spill === 0) throw outOfSharedMemoryError(label, `${argc} arguments`);
      v.u32[(a + G_SPILL) >>> 2] = spill;
      if (spill + argc * 9 > v.end) v.refresh();
      slots = spill;
      tags = spill + argc * 8;
    }
    for (let i = 0; i < argc; i++) {
      try {
        writeSlot(v, this.heap, tags + i, slots + i * 8, args[i], label, i, this.shared);
      } catch (e) {
        for (let j = 0; j < i; j++) freeSlot(v, this.heap, tags + j, slots + j * 8);
        this.freeSpill(a);
        throw e;
      }
    }
  }

  /** Names the task of a root G whose fn is FN_NAMED (the main thread, after init): the name
   *  goes in its result slot. Throws as writing an argument would (no shared memory left). */
  setName(a: number, name: string, label: string): void {
    writeSlot(this.views, this.heap, a + G_RESULT_TAG, a + G_RESULT, name, label, -1, this.shared);
  }

  /** The task name setName left in the G at a, read and freed (the M resolving it); the result
   *  slot is empty again. */
  takeName(a: number): string {
    const v = this.views;
    const name = readSlot(v, a + G_RESULT_TAG, a + G_RESULT, this.shared) as string;
    freeSlot(v, this.heap, a + G_RESULT_TAG, a + G_RESULT);
    v.u8[a + G_RESULT_TAG] = 0;
    return name;
  }

  /** Sets the fn of the G at a (a named root G, once resolved). */
  setFn(a: number, fn: number): void {
    this.views.u32[(a + G_FN) >>> 2] = fn;
  }

  /** True when the G at a has argc <= G_INLINE_ARGS arguments, all numbers (its tag bytes):
   *  they are the f64 slots from G_ARGS on, and nothing needs freeing. */
  numbersOnly(a: number, argc: number): boolean {
    if (argc > G_INLINE_ARGS) return false;
    const i32 = this.views.i32;
    const w = (a + G_ARG_TAGS) >>> 2;
    return ((i32[w] ^ NUMBER_TAG_WORD) & TAGS_LO[argc]) === 0 && ((i32[w + 1] ^ NUMBER_TAG_WORD) & TAGS_HI[argc]) === 0;
  }

  /** Reads and frees argument i of the G at a (argc arguments); no error slots expected. */
  takeArg(a: number, argc: number, i: number): unknown {
    const v = this.views;
    const ta = argTagAddr(v, a, argc, i);
    const sa = argSlotAddr(v, a, argc, i);
    const tag = v.u8[ta];
    if (tag === TAG_NUMBER) return num(v.f64[sa >>> 3]);
    if (tag === TAG_SHORT) return readShort(v, sa);
    if (tag === TAG_BLOCK) {
      // Read straight (a small value without the general decoder: the codec's small.ts), then
      // freed: arguments are read once.
      const block = v.f64[sa >>> 3];
      const x = decodeValue(v, block, this.shared);
      v.u8[ta] = TAG_UNDEFINED;
      this.heap.heapFree(block);
      return x;
    }
    return readSlot(v, ta, sa, this.shared);
  }

  /** True when some argument of the G at a is a failed join child's error. */
  hasErrorArg(a: number, argc: number): boolean {
    const v = this.views;
    for (let i = 0; i < argc; i++) if (v.u8[argTagAddr(v, a, argc, i)] === TAG_ERROR) return true;
    return false;
  }

  /** Frees the spill block of a G with more than G_INLINE_ARGS arguments, once they are read. */
  freeSpill(a: number): void {
    const v = this.views;
    const spill = v.u32[(a + G_SPILL) >>> 2];
    if (spill !== 0) { this.heap.heapFree(spill); v.u32[(a + G_SPILL) >>> 2] = 0; }
  }

  /** The tag of the slot form slotOf last made (its payload is what slotOf returned). */
  tag = 0;

  /**
   * A finished G's result (or error) in one slot's form: returns the payload and leaves the tag
   * in `this.tag` (TAG_NUMBER and the number; TAG_SHORT and a short string's bytes; TAG_BLOCK
   * and the address of the value block it wrote, straight for a small value; TAG_ERROR and an
   * error block's; a tag alone and 0). A value that cannot cross becomes the codec's TypeError,
   * as the task's error. The caller places the block (a slot owns it from then on). `name`: the
   * task, for the codec's messages. The M finishing the G (or the main thread failing a crashed
   * M's).
   */
  slotOf(value: unknown, isError: boolean, name: string): number {
    if (!isError) {
      switch (typeof value) {
        case 'number': this.tag = TAG_NUMBER; return value;
        case 'boolean': this.tag = value ? TAG_TRUE : TAG_FALSE; return 0;
        case 'undefined': this.tag = TAG_UNDEFINED; return 0;
        case 'string': {
          const x = shortPayload(value);
          if (x >= 0) { this.tag = TAG_SHORT; return x; } // in the slot itself (shortstr.ts)
        }
        // fall through: a longer string goes into a block
        default:
          if (value === null) { this.tag = TAG_NULL; return 0; }
          try {
            const block = encodeLabelled(this.views, this.heap, value, this.shared, slotLabel, name, -1);
            this.tag = TAG_BLOCK;
            return block;
          } catch (e) {
            // It cannot cross: the task fails with what the codec says, or, when the shared
            // memory had no room for it, with ERR_OUT_OF_MEMORY naming maxMemoryMB (as an
            // argument that finds no room does).
            value = this.maxMemoryMB > 0 ? asMemoryError(e, `the result of task '${name}'`, this.maxMemoryMB) : e;
          }
      }
    }
    const block = encodeErrorBlock(this.views, this.heap, value, name, this.shared);
    this.tag = TAG_ERROR; // set last: encoding may run a getter that makes a slot form of its own
    return block;
  }

  /** Puts a result in slot form (slotOf) into slot i of the continuation at pa. */
  setParentSlot(pa: number, i: number, tag: number, x: number): void {
    const v = this.views;
    const argc = this.argc(pa);
    const ta = argTagAddr(v, pa, argc, i);
    const sa = argSlotAddr(v, pa, argc, i);
    v.u8[ta] = tag;
    v.f64[sa >>> 3] = x;
  }

  /** Puts g's result in slot form (slotOf) into its result slot. The join word's DONE bit, set
   *  after, publishes it. */
  setResultSlot(a: number, tag: number, x: number): void {
    const v = this.views;
    v.u8[a + G_RESULT_TAG] = tag;
    v.f64[(a + G_RESULT) >>> 3] = x;
  }

  /** Reads the arguments of G at a, freeing their value blocks (arguments are read once).
   *  Returns the index of the first error slot (a failed join child) in `out.error`, or -1. */
  takeArgs(a: number, out: unknown[]): number {
    const argc = this.argc(a);
    out.length = argc;
    let error = -1;
    for (let i = 0; i < argc; i++) {
      const ta = argTagAddr(this.views, a, argc, i);
      const sa = argSlotAddr(this.views, a, argc, i);
      if (this.views.u8[ta] === TAG_ERROR) {
        if (error < 0) { error = i; out[i] = readErrorSlot(this.views, ta, sa, this.shared); }
      } else {
        out[i] = readSlot(this.views, ta, sa, this.shared);
      }
      freeSlot(this.views, this.heap, ta, sa);
    }
    this.freeSpill(a);
    return error;
  }

  /** Reads and frees g's result; `ok` false means `value` is the error to reject with. */
  takeResult(a: number, out: { ok: boolean; value: unknown }): void {
    const v = this.views;
    if (v.u8[a + G_RESULT_TAG] === TAG_ERROR) {
      out.ok = false;
      out.value = readErrorSlot(v, a + G_RESULT_TAG, a + G_RESULT, this.shared);
    } else {
      out.ok = true;
      out.value = readSlot(v, a + G_RESULT_TAG, a + G_RESULT, this.shared);
    }
    freeSlot(v, this.heap, a + G_RESULT_TAG, a + G_RESULT);
  }

  /** Frees g's result without reading it (a detached task). */
  dropResult(a: number): void {
    freeSlot(this.views, this.heap, a + G_RESULT_TAG, a + G_RESULT);
  }

  /** Makes the G at a a join continuation: `fn` over `n` slots (the children's results, after
   *  the shape when `flags` has GF_SHAPED). Its join count is join.ts's (joinChildren). */
  makeContinuation(a: number, fn: number, n: number, flags: number): void {
    const v = this.views;
    v.u32[(a + G_FN) >>> 2] = fn;
    v.u32[(a + G_ARGC) >>> 2] = n;
    v.u32[(a + G_PRIO) >>> 2] = (v.u32[(a + G_PRIO) >>> 2] & ~GF_SHAPED) | flags; // a join continuing a join may drop its shape
    if (n > G_INLINE_ARGS) {
      const spill = this.heap.heapAlloc(n * 9);
      if (spill === 0) throw outOfSharedMemoryError('ctx.join', `${n} results`);
      this.views.u32[(a + G_SPILL) >>> 2] = spill;
      if (spill + n * 9 > this.views.end) this.views.refresh();
    }
  }

  /** Puts value block `addr` (a join's shape) into slot i of the G at a (argc slots). */
  setBlockArg(a: number, argc: number, i: number, addr: number): void {
    const v = this.views;
    writeBlockSlot(v, argTagAddr(v, a, argc, i), argSlotAddr(v, a, argc, i), TAG_BLOCK, addr);
  }

  /** Moves child result (at ca) into slot i of the continuation at pa. */
  moveResultToParent(ca: number, pa: number, i: number): void {
    const v = this.views;
    const argc = this.argc(pa);
    const ta = argTagAddr(v, pa, argc, i);
    const sa = argSlotAddr(v, pa, argc, i);
    v.u8[ta] = v.u8[ca + G_RESULT_TAG];
    v.f64[sa >>> 3] = v.f64[(ca + G_RESULT) >>> 3];
    v.u8[ca + G_RESULT_TAG] = 0;
  }

  parentOf(a: number): number { return this.views.u32[(a + G_PARENT) >>> 2]; }
  indexOf(a: number): number { return this.views.u32[(a + G_INDEX) >>> 2]; }
}
