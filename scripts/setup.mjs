// Installs the development tools when they are not there: `npm ci` when a devDependency is missing
// from node_modules or is not the version package.json pins. Runs before every build (`prebuild`),
// so `npm start` and `npm test` work on a fresh clone; on a set-up clone it reads a few
// package.json files and prints nothing.
//
//   node scripts/setup.mjs        (npm runs it as prebuild)
//
// The browser test also needs Chromium, a system package (`apt-get install chromium` on Debian),
// which this script does not install: without it `npm test` skips that test and says so in its
// last line.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The first devDependency that is absent or at another version than pinned, as a sentence; or null. */
function missing() {
  for (const [name, spec] of Object.entries(pkg.devDependencies ?? {})) {
    // "1.2.3", or an alias "npm:typescript@7.0.2": the version is what follows the last '@'.
    const want = spec.startsWith('npm:') ? spec.slice(spec.lastIndexOf('@') + 1) : spec;
    const file = join(root, 'node_modules', name, 'package.json');
    if (!existsSync(file)) return `${name} is not installed`;
    const have = JSON.parse(readFileSync(file, 'utf8')).version;
    if (have !== want) return `${name} is ${have}, package.json pins ${want}`;
  }
  return null;
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 16)) {
  console.error(`setup: Node ${process.version} is too old: stealwork needs Node >= 20.16 (package.json engines)`);
  process.exit(1);
}

const why = missing();
if (why !== null) {
  console.log(`setup: ${why}; installing the pinned development tools (npm ci)`);
  // On Windows npm is npm.cmd, which only a shell runs.
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error(`setup: npm ci failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
    process.exit(1);
  }
  const still = missing();
  if (still !== null) {
    console.error(`setup: after npm ci, ${still}: package.json and package-lock.json disagree`);
    process.exit(1);
  }
}
