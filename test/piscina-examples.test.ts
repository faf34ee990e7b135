// piscina's documented examples (its README and its examples/ folder, as our own small copies in
// test/fixtures/piscina-examples/), each run as a program under piscina and again with its
// 'piscina' import switched to 'stealwork/piscina' (test/helpers/programs.ts): the same output
// and exit code. The programs never close their pools, as piscina's examples do not: a program
// that does not exit by itself is a hang, and fails.
//
// Where stealwork differs on purpose (docs/piscina.md), the example says what
// stealwork prints instead, and the difference is the README's.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { programFolder, ROOT, runProgram, shown } from './helpers/programs.js';
import { ENGINES, prepare } from './engines/engines.mjs';

const EXAMPLES = join(ROOT, 'test', 'fixtures', 'piscina-examples');

interface Example {
  name: string;
  type: 'commonjs' | 'module';
  /** The command line after `node` (the main file, and the loader for TypeScript). */
  args: string[];
  /** What piscina's run prints. */
  prints: string;
  /** What stealwork/piscina prints instead, on purpose (docs/piscina.md). */
  differs?: { prints: string; why: string };
}

const EXAMPLES_RUN: Example[] = [
  { name: 'simple', type: 'commonjs', args: ['main.js'], prints: '10\n' },
  { name: 'simple-async', type: 'commonjs', args: ['main.js'], prints: '10\n' },
  { name: 'es-module', type: 'module', args: ['main.mjs'], prints: '10\n' },
  { name: 'one-file-many-handlers', type: 'commonjs', args: ['main.js'], prints: '[ 5, 6, 5 ]\n' },
  { name: 'one-file-many-handlers-esm', type: 'module', args: ['main.mjs'], prints: '[ 5, 6 ]\n' },
  { name: 'dispatcher', type: 'commonjs', args: ['main.js'], prints: '[ 10, -2 ]\n' },
  { name: 'cancel', type: 'commonjs', args: ['main.js'], prints: 'The task was canceled: AbortError\n' },
  { name: 'cancel-with-emitter', type: 'commonjs', args: ['main.js'], prints: 'The task was canceled: AbortError\n' },
  { name: 'cancel-on-timeout', type: 'commonjs', args: ['main.js'], prints: 'The task timed out: AbortError The task has been aborted\n' },
  { name: 'without-extension', type: 'commonjs', args: ['main.js'], prints: 'loaded with no extension\n' },
  { name: 'ready-later', type: 'commonjs', args: ['main.js'], prints: 'CommonJS, initialized: 3\nESM, initialized: 3\n' },
  {
    name: 'messages', type: 'commonjs', args: ['main.js'],
    prints: "Messages received from the worker: [ { step: 1, of: 3 }, { step: 2, of: 3 }, { step: 3, of: 3 } ]\nresult: done\n",
  },
  { name: 'move', type: 'commonjs', args: ['main.js'], prints: 'sent is now 0 long; got 10 bytes, filled with 2\n' },
  { name: 'worker-options', type: 'commonjs', args: ['main.js'], prints: "{\n  sum: 10,\n  argv: [ 'a', 'b', 'c' ],\n  execArgv: [ '--no-warnings' ],\n  env: { A: '123' },\n  workerData: 'ABC'\n}\n" },
  { name: 'resource-limits', type: 'commonjs', args: ['main.js'], prints: 'Worker terminated due to resource limits\n' },
  {
    name: 'broadcast', type: 'commonjs', args: ['main.js'],
    prints: "[\n  'thread 1 received from: Main thread message',\n  'thread 2 received from: Main thread message'\n]\n",
  },
  { name: 'custom-queue', type: 'commonjs', args: ['main.js'], prints: '[\n  1, 2, 3, 4,\n  5, 6, 7, 8\n]\n' },
  { name: 'backpressure', type: 'commonjs', args: ['main.js'], prints: 'done: 200 tasks, 490 characters\n' },
  { name: 'typescript', type: 'commonjs', args: ['-r', 'ts-node/register', 'main.ts'], prints: '3\n' },
  {
    name: 'two-files', type: 'commonjs', args: ['main.js'], prints: '[ 5, 6 ]\n',
    differs: {
      prints: 'TypeError: stealwork/piscina runs one task file per pool: this pool runs ./add.js, not ./multiply.js\n',
      why: 'one task file per pool',
    },
  },
  {
    name: 'message-port', type: 'commonjs', args: ['main.js'], prints: 'hello from the worker pool\n',
    differs: {
      prints: 'TypeError: transferList[0] must be an ArrayBuffer (shared memory holds the copy; a MessagePort cannot move there), got MessagePort\n',
      why: 'values and transferList: ArrayBuffers only, no MessagePorts',
    },
  },
];

const folders: Array<{ dispose(): void }> = [];
afterAll(() => { for (const f of folders) f.dispose(); });

/** The example's folder for `lib`: the program as written, its import switched for stealwork. */
function folder(e: Example, lib: 'piscina' | 'stealwork/piscina'): string {
  const f = programFolder(join(EXAMPLES, e.name), { type: e.type, lib });
  folders.push(f);
  return f.dir;
}

const DEADLINE = 90_000;

/** Node 20, 22, 24 and 26 (test/engines/engines.mjs brings the 22, 24 and 26 binaries from the
 *  npm registry on first use): every example runs on each. */
const NODE_ENGINES: Array<{ version: string }> = ENGINES.filter((e: { kind: string }) => e.kind === 'node');
const bins = new Map<string, string>();
beforeAll(async () => {
  for (const engine of NODE_ENGINES) bins.set(engine.version, (await prepare(engine)).command('')[0]);
}, 900_000);

test('every example folder is run here', () => {
  const dirs = readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  expect(EXAMPLES_RUN.map((e) => e.name).sort()).toEqual(dirs);
});

for (const e of EXAMPLES_RUN) for (const { version } of NODE_ENGINES) {
  test(`${e.name}, Node ${version}: ${e.differs ? `piscina's output, and stealwork/piscina's on purpose (${e.differs.why})` : 'the same under piscina and stealwork/piscina'}`, async () => {
    const node = bins.get(version)!;
    const [real, ours] = await Promise.all([
      runProgram(node, e.args, folder(e, 'piscina'), DEADLINE),
      runProgram(node, e.args, folder(e, 'stealwork/piscina'), DEADLINE),
    ]);
    expect(shown(real), `piscina itself: ${real.stderr}`).toEqual({ code: 0, stdout: e.prints });
    if (e.differs) expect(shown(ours), ours.stderr).toEqual({ code: 0, stdout: e.differs.prints });
    else expect(shown(ours), ours.stderr).toEqual(shown(real));
  }, 2 * DEADLINE);
}
