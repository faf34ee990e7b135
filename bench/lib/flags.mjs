// The command line every suite and run.mjs accept, and how a file tells it is the script started.
// Runs under Node and Deno.

import process from 'node:process';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { setWatchdog } from './guard.mjs';

const FLAGS = '--quick, --reps N, --procs N, --threads LIST, --json PATH, --suite NAME, --svg PATH, --publish, --only NAMES';

/**
 * Parses the flags every entry point accepts. `defaults` gives json/svg defaults (run.mjs);
 * a suite run alone writes JSON only when asked. Sets the watchdog's time per workload.
 */
export function parseArgs(argv, defaults = {}) {
  const o = { quick: false, reps: 0, procs: 2, json: defaults.json ?? null, svg: defaults.svg ?? null, suites: [], publish: false, only: [], threads: [] };
  const value = (i, name) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new TypeError(`${name} needs a value`);
    return v;
  };
  const int = (i, name, min) => {
    const v = Number(value(i, name));
    if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${argv[i + 1]}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--reps') { o.reps = int(i, a, 1); i++; }
    else if (a === '--procs') { o.procs = int(i, a, 1); i++; }
    else if (a === '--threads') { // workloads: the suite once per thread count (1,2,4)
      for (const t of value(i, a).split(',')) {
        const v = Number(t);
        if (!Number.isInteger(v) || v < 1) throw new RangeError(`--threads must list integers >= 1, got ${argv[i + 1]}`);
        o.threads.push(v);
      }
      i++;
    } else if (a === '--json') { o.json = value(i, a); i++; }
    else if (a === '--svg') { o.svg = value(i, a); i++; }
    else if (a === '--suite') { o.suites.push(...value(i, a).split(',')); i++; }
    else if (a === '--publish') o.publish = true;
    else if (a === '--only') { o.only.push(...value(i, a).split(',')); i++; } // workloads: the rows whose name starts with one
    else throw new TypeError(`unknown argument ${a} (flags: ${FLAGS})`);
  }
  if (o.reps === 0) o.reps = o.quick ? 3 : 5;
  setWatchdog(o.quick ? 20_000 : 120_000);
  return o;
}

/** True when the module whose `import.meta` is given is the script the runtime started with. */
export function isMain(meta) {
  if (typeof meta.main === 'boolean') return meta.main; // Deno (and newer Node)
  const script = process.argv[1];
  if (!script) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === meta.url;
  } catch {
    return false;
  }
}
