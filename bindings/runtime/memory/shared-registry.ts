// SharedArrayBuffers in task values are shared, not copied (the codec's SharedRegistry hook).
//
// Protocol (DESIGN.md "Shared buffers"): the main thread gives each new buffer an id, posts
// {id, buffer} to every worker, and makes the task that carries it runnable only after every
// worker has acknowledged, so a decode on any thread finds the buffer at once. Workers learn
// buffers only from the main thread: a buffer first created inside a task cannot be passed on
// (a TypeError says so), because a worker cannot deliver it to the others synchronously.
//
// Release (DESIGN.md "Shared buffers", "Releasing a buffer"): the main thread holds a buffer
// strongly only while a root task whose arguments carry it is pending (`pin`, `unpin`), and
// weakly otherwise; once the program dropped it and the main thread's copy was collected (a
// FinalizationRegistry), its id is dead. The engine tells the workers at a moment when no task
// runs anywhere (`takeDead`, then 'stealwork:unshare'), and each forgets it (`remove`): nothing
// of the scheduler keeps the buffer's memory any more.

import type { SharedRegistry as Hook } from '../../codec/hooks.js';
import { internalError, sharedInTaskError, sharedReleasedError } from '../base/errors.js';

export class SharedRegistry implements Hook {
  /** Worker: the buffers by id. Main thread: unused (refs and pins). */
  private readonly byId = new Map<number, SharedArrayBuffer>();
  /** Every live buffer's id; weak on the main thread, so the program's dropping a buffer is seen. */
  private readonly ids: WeakMap<SharedArrayBuffer, number> | Map<SharedArrayBuffer, number>;
  /** Main thread: each registered buffer, weakly, until its id is dead and taken. */
  private readonly refs = new Map<number, WeakRef<SharedArrayBuffer>>();
  /** Main thread: the buffers pending roots carry, strongly, with how many roots carry each. */
  private readonly pins = new Map<number, { buffer: SharedArrayBuffer; n: number }>();
  /** Main thread: ids whose buffer was collected, not yet taken by takeDead. */
  private dead: number[] = [];
  private readonly finalizer: FinalizationRegistry<number> | null;
  /** Worker: ids the main thread released (a buffer posted on a share port and read after its
   *  release is not kept again). */
  private readonly released = new Set<number>();
  /** Worker: the buffers released, so a task that kept one and passes it on is told why. */
  private readonly releasedBuffers = new WeakSet<SharedArrayBuffer>();
  private nextId = 0;
  /** Buffers registered on the main thread and not yet delivered to the workers. */
  readonly unsent: Array<{ id: number; buffer: SharedArrayBuffer }> = [];
  private readonly isMain: boolean;
  /** The highest id registered or reused since the last resetUse (main thread: which
   *  deliveries a value being encoded depends on). */
  usedMax = -1;
  /** Main thread: the ids registered or reused since the last takeUsed (the buffers a root's
   *  arguments carry: the engine pins them while it is pending). */
  private used: number[] = [];

  constructor(isMain: boolean) {
    this.isMain = isMain;
    this.ids = isMain ? new WeakMap() : new Map();
    this.finalizer = isMain ? new FinalizationRegistry((id: number) => { this.dead.push(id); }) : null;
  }

  register(sab: SharedArrayBuffer): number {
    const known = this.ids.get(sab);
    if (known !== undefined) {
      if (known > this.usedMax) this.usedMax = known;
      if (this.isMain) this.used.push(known);
      return known;
    }
    if (!this.isMain) {
      if (this.releasedBuffers.has(sab)) throw sharedReleasedError(-1);
      throw sharedInTaskError(sab.byteLength);
    }
    const id = this.nextId++;
    this.ids.set(sab, id);
    this.refs.set(id, new WeakRef(sab));
    this.finalizer!.register(sab, id);
    this.unsent.push({ id, buffer: sab });
    this.usedMax = id;
    this.used.push(id);
    return id;
  }

  /** Worker side: takes the buffers posted and not received yet (a synchronous start's share
   *  port), when a value names one this thread does not have. */
  receive: (() => void) | null = null;

  lookup(id: number): SharedArrayBuffer {
    if (this.isMain) {
      const b = this.pins.get(id)?.buffer ?? this.refs.get(id)?.deref();
      if (b === undefined) throw sharedReleasedError(id);
      return b;
    }
    if (!this.byId.has(id)) this.receive?.();
    const b = this.byId.get(id);
    if (b === undefined) {
      if (this.released.has(id)) throw sharedReleasedError(id);
      throw internalError(`shared buffer ${id} was never delivered to this thread (${this.byId.size} are held)`);
    }
    return b;
  }

  /** Every live buffer (main thread: for a thread started later, sent before its init). */
  all(): Array<{ id: number; buffer: SharedArrayBuffer }> {
    const out: Array<{ id: number; buffer: SharedArrayBuffer }> = [];
    for (const [id, ref] of this.refs) {
      const buffer = this.pins.get(id)?.buffer ?? ref.deref();
      if (buffer !== undefined) out.push({ id, buffer });
    }
    return out;
  }

  /** Main thread: the ids used since the last call (a root's arguments, just encoded). */
  takeUsed(): number[] {
    const u = this.used;
    if (u.length !== 0) this.used = [];
    return u;
  }

  /** Main thread: a root carrying these buffers is pending; hold them strongly until unpin. */
  pin(ids: readonly number[]): void {
    for (const id of ids) {
      const p = this.pins.get(id);
      if (p !== undefined) { p.n++; continue; }
      const buffer = this.refs.get(id)?.deref();
      if (buffer !== undefined) this.pins.set(id, { buffer, n: 1 });
    }
  }

  /** Main thread: the root that pinned these is back. */
  unpin(ids: readonly number[]): void {
    for (const id of ids) {
      const p = this.pins.get(id);
      if (p !== undefined && --p.n === 0) this.pins.delete(id);
    }
  }

  /** Main thread: the ids whose buffers the program dropped and the main thread's copy was
   *  collected since the last call; forgotten here. The caller tells the workers when no task
   *  runs (one could still decode the id). */
  takeDead(): number[] {
    if (this.dead.length === 0) return this.dead;
    const d = this.dead;
    this.dead = [];
    for (const id of d) this.refs.delete(id);
    return d;
  }

  /** Main-thread buffers held, strongly or weakly (stats, tests). */
  get size(): number {
    return this.isMain ? this.refs.size : this.byId.size;
  }

  /** Records a buffer delivered by the main thread. Worker side. */
  add(id: number, sab: SharedArrayBuffer): void {
    if (this.released.has(id)) return;
    this.byId.set(id, sab);
    this.ids.set(sab, id);
  }

  /** Forgets buffers the main thread released (no task runs that could name them). Worker side. */
  remove(ids: readonly number[]): void {
    for (const id of ids) {
      const b = this.byId.get(id);
      if (b !== undefined) { this.byId.delete(id); this.ids.delete(b); this.releasedBuffers.add(b); }
      this.released.add(id);
    }
  }
}
