// Lints the tarball `npm publish` would upload with the two tools package consumers' problems are
// usually found with, offline:
//
//   npm run pack:lint        (after npm run build)
//
// - publint (--strict: a warning fails too): package.json's fields against the files they name,
//   each file's module format against how its extension and "type" make Node read it, the
//   order of export conditions;
// - @arethetypeswrong/cli (attw): for every entry point, the types TypeScript finds under each
//   module resolution (node10, node16 from CommonJS, node16 from ESM, bundler) against what the
//   JavaScript there really exports (a `default` the CommonJS module does not have, an ES module
//   typed as CommonJS, no types at all).
//
// The entry ./worker is left out of attw's check: it is the script every scheduler thread runs
// (rollup.config.mjs), which imports and exports nothing; no program imports it for an API, so it
// has no types, and a require() of it is not a use it has. publint still checks it.
//
// What these do not cover stays in scripts/pack-check.mjs (the exact file list, the README's
// links, no runtime dependencies, self-contained bundles, the embedded Wasm cores).
// Nothing here reaches a registry: attw's lookup of DefinitelyTyped's @types is turned off.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);

/** Entry points attw does not check, each with why (the header says more). */
const ATTW_EXCLUDED = { './worker': 'the threads\' entry script: no exports, no types' };

/** Packs the package into a fresh folder; returns the tarball's path. */
function pack(dir) {
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
  return join(dir, JSON.parse(out.slice(out.indexOf('[')))[0].filename);
}

/** Runs a linter's CLI with its output shown; returns whether it passed. */
function lint(name, argv) {
  console.log(`pack:lint: ${name}`);
  const r = spawnSync(argv[0], argv.slice(1), { cwd: root, stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
  if (r.error) throw new Error(`${name}: ${argv[0]} did not start (${r.error.message}); npm ci installs it`);
  return r.status === 0;
}

const dir = mkdtempSync(join(tmpdir(), 'stealwork-pack-lint-'));
const failed = [];
try {
  const tarball = pack(dir);
  if (!lint('publint', [bin('publint'), 'run', '--strict', '--pack', 'false', tarball])) failed.push('publint');
  const excluded = Object.keys(ATTW_EXCLUDED);
  if (!lint(`attw (${excluded.map((e) => `${e} left out: ${ATTW_EXCLUDED[e]}`).join('; ')})`, [
    bin('attw'), tarball, '--no-definitely-typed', '--no-color', '--format', 'table-flipped', '--exclude-entrypoints', ...excluded,
  ])) failed.push('attw');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed.length) {
  console.error(`pack:lint failed: ${failed.join(', ')} reported problems (above)`);
  process.exit(1);
}
console.log('pack:lint: ok (publint, attw)');
