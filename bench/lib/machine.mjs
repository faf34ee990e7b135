// Facts about the machine and the runtimes a run happened on: the header every suite prints
// and the JSON's `machine` and `versions`.

import os from 'node:os';
import process from 'node:process';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const isDeno = typeof globalThis.Deno?.version?.deno === 'string';

let denoVersion;
/** Deno's version: this runtime's when running under Deno, else the one in node_modules, if any. */
export function getDenoVersion() {
  if (denoVersion !== undefined) return denoVersion;
  if (isDeno) return (denoVersion = globalThis.Deno.version.deno);
  denoVersion = null;
  const bin = fileURLToPath(new URL('../../node_modules/.bin/deno', import.meta.url));
  try {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    const m = /deno (\S+)/.exec(r.stdout ?? '');
    if (m) denoVersion = m[1];
  } catch { /* no deno: leave null */ }
  return denoVersion;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    availableParallelism: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    model: cpus[0]?.model ?? 'unknown',
    memoryMB: Math.round(os.totalmem() / 2 ** 20),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadavg: os.loadavg(),
  };
}

export function versions() {
  return { node: isDeno ? null : process.version, deno: getDenoVersion(), v8: process.versions?.v8 ?? null };
}

export const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

export function header(name, opts) {
  const m = machine();
  const rt = isDeno ? `deno ${globalThis.Deno.version.deno}` : `node ${process.version}`;
  console.log(`stealwork bench/${name}: ${rt}, ${m.cpus} CPUs (${m.model}), ${m.memoryMB} MiB, ` +
    `${opts.quick ? 'quick' : 'full'} run, ${opts.reps} reps, load average ${loadavg()}`);
}
