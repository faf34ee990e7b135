// Priority classes as the API spells them, and the class byte the core reads (the low byte of
// G_PRIO; DESIGN.md "Priority classes").

import { PRIO_HIGH, PRIO_LOW, PRIO_NORMAL } from '../../../assembly/shared/layout.js';
import { optionTypeError } from '../base/errors.js';

/** A task's class: 'high' runs before everything else queued (within its budget: 95 ms of every
 *  100 ms of a thread while other work waits), 'low' only when nothing else is runnable (with a
 *  1-in-64 turn so it always progresses). Children inherit their parent's. */
export type Priority = 'high' | 'normal' | 'low';

/** The class byte for `p`. */
export function priorityClass(p: Priority): number {
  return p === 'high' ? PRIO_HIGH : p === 'low' ? PRIO_LOW : PRIO_NORMAL;
}

/** Validates a priority option; `where` names the call in the error. */
export function checkPriority(where: string, v: unknown): Priority {
  if (v !== 'high' && v !== 'normal' && v !== 'low') {
    throw optionTypeError(`${where}: options.priority`, `must be 'high', 'normal' or 'low', got ${JSON.stringify(v)}`);
  }
  return v;
}
