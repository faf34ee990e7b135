// Task modules and piscina worker files in TypeScript, loaded the ways their authors run them:
// ts-node (`-r ts-node/register`, and its ESM loader), tsx (`--import tsx`) and Node's type
// stripping, on Node 20, 22, 24 and 26 (test/engines/engines.mjs brings the 22, 24 and 26
// binaries from the npm registry on first use); Deno and Bun load TypeScript by themselves.
//
// Each piscina program (test/fixtures/ts-programs/) runs twice, under piscina and with its
// import switched to stealwork/piscina: the same output and exit code. The Scheduler programs
// run on stealwork alone and must print their result. Every run is a child process that must
// exit by itself; one still running at its deadline is a hang, and fails.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES, prepare } from './engines/engines.mjs';
import { reportSkip } from '../scripts/test-status.mjs';
import { programFolder, ROOT, runProgram, shown, type Outcome } from './helpers/programs.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'ts-programs');

/** How a program is started under one TypeScript loader, on a Node of `major.minor` (null:
 *  that loader does not apply there). */
interface Loader { name: string; flags(node: { major: number; minor: number }): string[] | null }

const LOADERS: Record<string, Loader> = {
  tsNodeRequire: { name: 'ts-node (-r ts-node/register)', flags: () => ['-r', 'ts-node/register'] },
  tsNodeEsm: { name: 'ts-node (--loader ts-node/esm)', flags: () => ['--loader', 'ts-node/esm'] },
  tsx: { name: 'tsx (--import tsx)', flags: () => ['--import', 'tsx'] },
  // Node 22.6 added the flag; 23.6 turned it on by default.
  stripTypes: {
    name: 'type stripping',
    flags: (n) => (n.major < 22 || (n.major === 22 && n.minor < 6) ? null : n.major > 23 || (n.major === 23 && n.minor >= 6) ? [] : ['--experimental-strip-types']),
  },
};

/** A program: its folder, its module type, its main file, the loaders to run it under, and what
 *  it prints. `piscina`: it is a piscina program, compared with its switched copy. */
interface Program { app: string; type: 'commonjs' | 'module'; main: string; loaders: Loader[]; prints: string; piscina: boolean }

const PROGRAMS: Program[] = [
  { app: 'piscina-cjs', type: 'commonjs', main: 'main.ts', loaders: [LOADERS.tsNodeRequire, LOADERS.tsx], prints: 'sum 5 product 6\n', piscina: true },
  { app: 'piscina-cjs', type: 'commonjs', main: 'main.cts', loaders: [LOADERS.tsNodeRequire, LOADERS.stripTypes], prints: 'sum 5 product 6\n', piscina: true },
  { app: 'piscina-esm', type: 'module', main: 'main.ts', loaders: [LOADERS.tsNodeEsm, LOADERS.tsx, LOADERS.stripTypes], prints: 'sum 5 product 6 progress 1,2,3\n', piscina: true },
  { app: 'sched-esm', type: 'module', main: 'main.ts', loaders: [LOADERS.tsNodeEsm, LOADERS.tsx, LOADERS.stripTypes], prints: 'fib 610\n', piscina: false },
  { app: 'sched-cjs', type: 'commonjs', main: 'main.cts', loaders: [LOADERS.tsNodeRequire, LOADERS.stripTypes], prints: 'fib 610\n', piscina: false },
];

/** The folders, made once per app and library (a switched copy for the piscina programs). */
const folders = new Map<string, { dir: string; dispose(): void }>();
function folder(p: Program, lib: 'piscina' | 'stealwork/piscina'): string {
  const key = `${p.app}\0${lib}`;
  let f = folders.get(key);
  if (f === undefined) {
    f = programFolder(join(FIXTURES, p.app), { type: p.type, lib });
    folders.set(key, f);
  }
  return f.dir;
}
afterAll(() => { for (const f of folders.values()) f.dispose(); });

/** The Node engines of test/engines/engines.mjs, their binaries made ready (installed from the
 *  npm registry on first use) before the tests. */
const NODE_ENGINES: Array<{ version: string }> = ENGINES.filter((e: { kind: string }) => e.kind === 'node');
const bins = new Map<string, string>();
beforeAll(async () => {
  for (const engine of NODE_ENGINES) bins.set(engine.version, (await prepare(engine)).command('')[0]);
}, 900_000);

const DEADLINE = 150_000;

for (const p of PROGRAMS) {
  for (const loader of p.loaders) {
    for (const { version } of NODE_ENGINES) {
      const [major, minor] = version.split('.').map(Number);
      const flags = loader.flags({ major, minor });
      if (flags === null) continue; // the loader does not exist on this Node
      test(`${p.app}/${p.main} under ${loader.name}, Node ${version}${p.piscina ? ': piscina and stealwork/piscina alike' : ''}`, async () => {
        const run = (lib: 'piscina' | 'stealwork/piscina'): Promise<Outcome> => runProgram(bins.get(version)!, [...flags, p.main], folder(p, lib), DEADLINE);
        if (!p.piscina) {
          const ours = await run('stealwork/piscina');
          expect(shown(ours), ours.stderr).toEqual({ code: 0, stdout: p.prints });
          return;
        }
        const [real, ours] = await Promise.all([run('piscina'), run('stealwork/piscina')]);
        expect(shown(real), `piscina itself: ${real.stderr}`).toEqual({ code: 0, stdout: p.prints });
        expect(shown(ours), ours.stderr).toEqual(shown(real));
      }, 2 * DEADLINE);
    }
  }
}

describe('runtimes that load TypeScript by themselves', () => {
  const sched = PROGRAMS.find((p) => p.app === 'sched-esm')!;

  test('Deno runs a Scheduler on a .ts task module', async () => {
    const deno = join(ROOT, 'node_modules', '.bin', 'deno');
    const dir = folder(sched, 'stealwork/piscina');
    const env = { ...process.env, DENO_DIR: join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/' };
    const out = await runProgram(deno, ['run', '--allow-read', sched.main], dir, DEADLINE, env);
    expect(shown(out), out.stderr).toEqual({ code: 0, stdout: sched.prints });
  }, 2 * DEADLINE);

  test('Bun runs a Scheduler on a .ts task module', async (ctx) => {
    const bun = join(ROOT, 'node_modules', '.bin', 'bun');
    const version = existsSync(bun) ? await runProgram(bun, ['--version'], ROOT, 60_000) : null;
    if (version === null || version.code !== 0) {
      const why = 'node_modules/.bin/bun is absent or does not run (its postinstall script did not run)';
      reportSkip('bun', why);
      ctx.skip(why);
      return;
    }
    const dir = folder(sched, 'stealwork/piscina');
    const out = await runProgram(bun, [sched.main], dir, DEADLINE);
    expect(shown(out), out.stderr).toEqual({ code: 0, stdout: sched.prints });
  }, 2 * DEADLINE);
});
