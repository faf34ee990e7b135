// The worker entry of stealwork/piscina's threads: registers the piscina calling convention
// (each exported `(task) => result` wrapped by worker-side.ts) with the runtime, then runs the
// runtime's worker entry. The pool starts its threads on this file (ResolvedOptions.worker), so
// the runtime never imports the adapter (docs/DESIGN.md "Calling conventions"). Worker thread only.

import { registerCalling, type TaskCalling } from '../runtime/threads/calling.js';
import { piscinaTable } from './worker-side.js';
import '../runtime/worker.js';

// Registered when this module is evaluated, before the thread handles any message (the runtime's
// worker only listens at load; the init message comes later).
registerCalling('piscina', {
  table: (mod, calling: TaskCalling, mid) => piscinaTable(mod, (calling as { shared: SharedArrayBuffer }).shared, mid),
  reportStrayErrors: false,
});
