// The package as it ships, proved from the tarball: `npm pack`, install the tarball into a fresh
// folder outside the repository, then run a fork-join there from ESM and CommonJS in Node, from
// Deno with an npm: specifier and with a plain path, from Bun (both ways) where its binary is
// installed, and compile typed consumers with TypeScript 5.9 and 7 (correct calls pass, on the
// default libraries too, and from JSDoc-typed JavaScript; wrong ones fail; a piscina program's
// TypeScript both without @types/node and, in node-types/, with it).
//
//   npm run test:package        (after npm run build)
//
// Nothing here reaches a registry: the install is --offline (the package has no dependencies)
// and Deno is pointed at a closed local port for npm, so a resolution that tried to download
// would fail instead of passing by accident.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SHIPPED } from '../../scripts/pack-check.mjs';
import { reportSkip } from '../../scripts/test-status.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixture/', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);


let work;
let app;
let packed;

/** Runs a command; resolves with stdout, rejects with both streams on a non-zero exit. */
function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: 90_000, maxBuffer: 16 << 20, ...opts }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed (${err.code ?? err.signal}):\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The JSON line a consumer printed (the last line that parses). */
function report(stdout) {
  const lines = stdout.trim().split('\n').reverse();
  for (const l of lines) {
    try { return JSON.parse(l); } catch { /* not the report line */ }
  }
  throw new Error(`no report in output:\n${stdout}`);
}

/** The consumer loaded the package from the fresh folder's node_modules, through `file`. */
function assertInstalled(r, file, runtime) {
  assert.equal(r.ok, true);
  assert.equal(r.runtime, runtime);
  const installed = pathToFileURL(join(app, 'node_modules', 'stealwork', 'dist', file)).href;
  assert.equal(r.entry, installed, `${runtime} resolved the package to ${r.entry}`);
  assert.deepEqual(r.runs.map((x) => [x.backend, x.fibc]), [['wasm', 6765], ['js', 6765]]);
}

before(async () => {
  for (const f of ['dist/index.js', 'dist/index.cjs', 'dist/worker.js', 'dist/index.d.ts']) {
    assert.ok(existsSync(join(root, f)), `${f} is missing: run npm run build first`);
  }
  work = mkdtempSync(join(tmpdir(), 'stealwork-package-'));
  const out = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root });
  packed = JSON.parse(out.slice(out.indexOf('[')))[0];
  app = join(work, 'app');
  mkdirSync(app);
  cpSync(fixture, app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'stealwork-consumer', private: true, type: 'module' }, null, 2));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', join(work, packed.filename)], { cwd: app });
  // Only node-types/ sees @types/node (the repository's copy): the consumers above it have none.
  mkdirSync(join(app, 'node-types', 'node_modules', '@types'), { recursive: true });
  symlinkSync(join(root, 'node_modules', '@types', 'node'), join(app, 'node-types', 'node_modules', '@types', 'node'), 'dir');
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the bundles, the types and nothing else', () => {
  assert.deepEqual(packed.files.map((f) => f.path).sort(), [...SHIPPED].sort());
  const installed = readdirSync(join(app, 'node_modules', 'stealwork', 'dist')).sort();
  assert.deepEqual(installed, ['index.cjs', 'index.d.cts', 'index.d.ts', 'index.js', 'piscina.cjs', 'piscina.d.cts', 'piscina.d.ts', 'piscina.js', 'worker.js']);
});

for (const [file, entry] of [['piscina-app.mjs', 'piscina.js'], ['piscina-app.cjs', 'piscina.cjs']]) {
  test(`node: a piscina program with its import switched to stealwork/piscina (${file})`, async () => {
    const r = report(await run(process.execPath, [file], { cwd: app }));
    assert.deepEqual(r.sums, [101, 102, 103]);
    assert.deepEqual(r.scaled, { x: 40, isWorkerThread: true });
    assert.equal(r.completed, 4);
    assert.equal(r.entry, join(app, 'node_modules', 'stealwork', 'dist', entry));
  });
}

test('node: import from ESM', async () => {
  assertInstalled(report(await run(process.execPath, ['esm.mjs'], { cwd: app })), 'index.js', 'node');
});

test('node: require from CommonJS (the worker stays ESM)', async () => {
  assertInstalled(report(await run(process.execPath, ['cjs.cjs'], { cwd: app })), 'index.cjs', 'node');
});

const denoEnv = () => ({
  ...process.env,
  DENO_DIR: join(work, 'deno-dir'),
  DENO_NO_UPDATE_CHECK: '1',
  NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/', // a closed port: any download attempt fails
});

test('deno: npm: specifier, resolved from node_modules', async () => {
  const out = await run(bin('deno'), ['run', '--allow-read', '--no-prompt', 'deno-npm.mjs'], { cwd: app, env: denoEnv() });
  assertInstalled(report(out), 'index.js', 'deno');
});

test('deno: plain path import', async () => {
  const out = await run(bin('deno'), ['run', '--allow-read', '--no-prompt', 'deno-path.mjs'], { cwd: app, env: denoEnv() });
  assertInstalled(report(out), 'index.js', 'deno');
});

/** Why Bun cannot run here, or null: the bun devDependency's binary arrives by its postinstall
 *  script, so an install without scripts leaves a placeholder. Bun is tried, not required. */
let bunMissing;
let bunReported = false;
async function bunProblem() {
  if (bunMissing !== undefined) return bunMissing;
  if (!existsSync(bin('bun'))) bunMissing = 'node_modules/.bin/bun is absent (the bun devDependency is not installed)';
  else {
    try {
      await run(bin('bun'), ['--version']);
      bunMissing = null;
    } catch {
      bunMissing = 'node_modules/.bin/bun does not run (its postinstall script, which puts the binary in place, did not run)';
    }
  }
  if (bunMissing !== null && !bunReported) {
    bunReported = true;
    reportSkip('bun', bunMissing);
  }
  return bunMissing;
}

for (const [file, entry] of [['esm.mjs', 'index.js'], ['cjs.cjs', 'index.cjs']]) {
  test(`bun: ${file === 'esm.mjs' ? 'import from ESM' : 'require from CommonJS'}`, async (t) => {
    const why = await bunProblem();
    if (why !== null) {
      console.log(`bun skipped: ${why}`);
      t.skip(why);
      return;
    }
    assertInstalled(report(await run(bin('bun'), [file], { cwd: app })), entry, 'bun');
  });
}

/** The TypeScript compilers the types must satisfy: the pinned 5.9 that builds the package, and
 *  7 (the native compiler, `npm i -D typescript` today), installed as the typescript7 alias. */
const COMPILERS = [['5.9', 'typescript'], ['7', 'typescript7']].map(([v, dir]) => {
  const pkg = JSON.parse(readFileSync(join(root, 'node_modules', dir, 'package.json'), 'utf8'));
  assert.ok(pkg.version.startsWith(`${v}.`), `node_modules/${dir} is TypeScript ${pkg.version}, not ${v}`);
  return { version: pkg.version, cli: join(root, 'node_modules', dir, 'bin', 'tsc') };
});

/** tsc over the fresh folder; returns the error lines (empty when it compiles). */
async function tsc(compiler, args) {
  try {
    await run(process.execPath, [compiler.cli, ...args], { cwd: app });
    return [];
  } catch (e) {
    return String(e.message).split('\n').filter((l) => /error TS\d+/.test(l));
  }
}

for (const compiler of COMPILERS) {
  const ts = `typescript ${compiler.version}`;

  test(`${ts}: a typed task module and correct calls compile (ESM and CommonJS, lib check on)`, async () => {
    assert.deepEqual(await tsc(compiler, ['-p', 'tsconfig.json']), []);
  });

  test(`${ts}: default libraries, no @types/node, strict, lib check on: a join's result is its function's`, async () => {
    assert.deepEqual(await tsc(compiler, ['-p', 'tsconfig.defaults.json']), []);
  });

  test(`${ts}: a piscina program with @types/node: the pool is an EventEmitter to once() and on(), piscina 4 members too`, async () => {
    assert.deepEqual(await tsc(compiler, ['-p', join('node-types', 'tsconfig.json')]), []);
  });

  // TypeScript 7 no longer has the node10 resolution; 5.9 still reads typesVersions with it.
  if (compiler.version.startsWith('5.')) {
    test(`${ts}: moduleResolution node10 (no exports map read): stealwork/piscina finds its types`, async () => {
      assert.deepEqual(await tsc(compiler, ['-p', 'tsconfig.node10.json']), []);
    });
  }

  test(`${ts}: a JavaScript task module typed by JSDoc, checked with checkJs`, async () => {
    assert.deepEqual(await tsc(compiler, ['-p', 'tsconfig.jsdoc.json']), []);
  });

  test(`${ts}: a wrong task name, argument or result type is a compile error`, async () => {
    const src = readFileSync(join(app, 'wrong.ts'), 'utf8').split('\n');
    const marked = src.flatMap((l, i) => (/\S.*\/\/ error:/.test(l) && !l.trimStart().startsWith('//') ? [i + 1] : []));
    assert.equal(marked.length, 6);
    const errors = await tsc(compiler, ['-p', 'tsconfig.wrong.json']);
    const lines = [...new Set(errors.map((l) => Number(/wrong\.ts\((\d+),/.exec(l)?.[1])))].sort((a, b) => a - b);
    assert.deepEqual(lines, marked, `errors:\n${errors.join('\n')}`);
    assert.ok(errors.every((l) => l.startsWith('wrong.ts(')), `errors outside wrong.ts:\n${errors.join('\n')}`);
  });
}
