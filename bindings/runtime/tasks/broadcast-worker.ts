// Broadcast, a worker thread's side (docs/DESIGN.md "Broadcast"): runs the broadcasts this
// thread is sent, and at its start the ones made before it existed, one after another in the
// order the main thread made them, each as `fn(ctx, ...args)` with a BroadcastContext. Worker
// thread only (worker.ts).

import { PRIO_NORMAL } from '../../../assembly/shared/layout.js';
import type { TaskFn } from './taskfn.js';
import { TaskContext, type ContextHost } from './context.js';
import { broadcastTreeError } from '../base/errors.js';

/** A broadcast as it travels to a thread (messages.ts): task `name` called once on the thread
 *  as `name(ctx, ...args)`; `id` names it in the answer. */
export interface HookEntry { id: number; name: string; args: unknown[] }

/** What running a broadcast needs of the M. */
export interface BroadcastHost extends ContextHost {
  taskId(name: string): number;
  fn(id: number): TaskFn;
}

/** The `ctx` a broadcast function gets: its thread, a signal that never aborts, ctx.yield; no
 *  task tree to spawn, fork or join in. */
export class BroadcastContext extends TaskContext {
  readonly #name: string;
  constructor(host: ContextHost, name: string) {
    super(host, 0, 0, PRIO_NORMAL);
    this.#name = name;
  }
  override fork(): never { throw broadcastTreeError('fork', this.#name); }
  override spawn(): never { throw broadcastTreeError('spawn', this.#name); }
  override join(): never { throw broadcastTreeError('join', this.#name); }
  override with(): never { throw broadcastTreeError('with', this.#name); }
  override parMap(): never { throw broadcastTreeError('parMap', this.#name); }
  override parForEach(): never { throw broadcastTreeError('parForEach', this.#name); }
  override parReduce(): never { throw broadcastTreeError('parReduce', this.#name); }
}

/** Runs the thread's broadcasts in order. */
export class BroadcastRunner {
  private chain: Promise<void> = Promise.resolve();

  /** Queues `hook`; `report` gets its outcome. */
  run(host: BroadcastHost, hook: HookEntry, report: (ok: boolean, value: unknown) => void): Promise<void> {
    this.chain = this.chain.then(async () => {
      let ok = true;
      let value: unknown;
      try {
        value = await host.fn(host.taskId(hook.name))(new BroadcastContext(host, hook.name), ...hook.args);
      } catch (e) {
        ok = false;
        value = e;
      }
      report(ok, value);
    });
    return this.chain;
  }

  /** Resolves once every broadcast queued so far has run. */
  idle(): Promise<void> {
    return this.chain;
  }
}
