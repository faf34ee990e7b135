// The worker entry as it ships (dist/worker.js, rollup.config.mjs): every M thread runs it,
// whichever entry started the scheduler. It is the runtime's worker entry with every adapter's
// calling convention registered: stealwork/piscina's (bindings/piscina/worker.ts), so one
// worker file serves the package's two entries.

import './piscina/worker.js';
