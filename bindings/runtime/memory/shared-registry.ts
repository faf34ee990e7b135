// SharedArrayBuffers in task values are shared, not copied (the codec's SharedRegistry hook).
//
// Protocol (DESIGN.md "Shared buffers"): the main thread gives each new buffer an id, posts
// {id, buffer} to every worker, and makes the task that carries it runnable only after every
// worker has acknowledged, so a decode on any thread finds the buffer at once. Workers learn
// buffers only from the main thread: a buffer first created inside a task cannot be passed on
// (a TypeError says so), because a worker cannot deliver it to the others synchronously.

import type { SharedRegistry as Hook } from '../../codec/hooks.js';
import { internalError, sharedInTaskError } from '../base/errors.js';

export class SharedRegistry implements Hook {
  private readonly byId: SharedArrayBuffer[] = [];
  private readonly ids = new Map<SharedArrayBuffer, number>();
  /** Buffers registered on the main thread and not yet delivered to the workers. */
  readonly unsent: Array<{ id: number; buffer: SharedArrayBuffer }> = [];
  private readonly isMain: boolean;
  /** The highest id registered or reused since the last resetUse (main thread: which
   *  deliveries a value being encoded depends on). */
  usedMax = -1;

  constructor(isMain: boolean) {
    this.isMain = isMain;
  }

  register(sab: SharedArrayBuffer): number {
    const known = this.ids.get(sab);
    if (known !== undefined) {
      if (known > this.usedMax) this.usedMax = known;
      return known;
    }
    if (!this.isMain) {
      throw sharedInTaskError(sab.byteLength);
    }
    const id = this.byId.length;
    this.add(id, sab);
    this.unsent.push({ id, buffer: sab });
    this.usedMax = id;
    return id;
  }

  /** Worker side: takes the buffers posted and not received yet (a synchronous start's share
   *  port), when a value names one this thread does not have. */
  receive: (() => void) | null = null;

  lookup(id: number): SharedArrayBuffer {
    if (this.byId[id] === undefined) this.receive?.();
    const b = this.byId[id];
    if (b === undefined) throw internalError(`shared buffer ${id} was never delivered to this thread (${this.byId.length} were)`);
    return b;
  }

  /** Every buffer registered so far (main thread: for a thread that replaces a crashed one). */
  all(): Array<{ id: number; buffer: SharedArrayBuffer }> {
    return this.byId.map((buffer, id) => ({ id, buffer }));
  }

  /** Records a buffer delivered by the main thread. Worker side. */
  add(id: number, sab: SharedArrayBuffer): void {
    this.byId[id] = sab;
    this.ids.set(sab, id);
  }
}
