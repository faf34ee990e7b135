// The JSON a suite writes with --json; run.mjs merges these into latest.json.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { machine, versions } from './machine.mjs';

export function writeJSON(path, value) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** A suite's tables (one Results each) plus the machine they came from. */
export function suiteJSON(suite, tables, opts, params, seconds) {
  return {
    suite, date: new Date().toISOString(), machine: machine(), versions: versions(),
    options: { quick: opts.quick, reps: opts.reps, procs: opts.procs }, params, seconds,
    tables: tables.map((t) => t.finish().toJSON()),
  };
}
