// The twin stays mechanical (issue #16 item 5): a file of the Wasm core (assembly/) and its
// namesake in the TypeScript twin (bindings/core/ts/) declare the same functions. DRIFT lists
// the differences still left, per file; the test fails on a new difference, and on a listed one
// that is gone (shrink the list with the rename).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const AS = path.resolve(__dirname, '../assembly');
const TS = path.resolve(__dirname, '../bindings/core/ts');

/** Function names declared at the top level of a source file. */
function functions(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  return [...src.matchAll(/^(?:@inline )?(?:export )?function (\w+)/gm)].map((m) => m[1]).sort();
}

/** Files only one side has, and why. */
const ONLY_WASM = ['abort.ts', 'bounds.ts', 'thread.ts']; // the abort path, the instance's bounds (the twin's views refresh themselves), the thread's own words
const ONLY_TS: string[] = [];

/** Remaining drift: `wasm` names only the Wasm file declares, `ts` only the twin's. */
const DRIFT: Record<string, { wasm: string[]; ts: string[] }> = {
  'classq.ts': { wasm: ['qHead', 'qSize', 'qTail'], ts: [] },
  'forkq.ts': { wasm: ['slot'], ts: [] },
  'gfree.ts': { wasm: ['clearG', 'gfPopLocal', 'gfPushLocal'], ts: ['gClear'] },
  'gfstack.ts': { wasm: ['gfPopGlobal', 'gfPushBatch', 'gfPushGlobal', 'headG', 'headVersion', 'packHead'], ts: ['gfStackPop', 'gfStackPush', 'gfStackPushChain', 'pack'] },
  'ggrow.ts': { wasm: ['growTable'], ts: ['gGrow'] },
  'globrunq.ts': { wasm: ['globrunqGetBatch'], ts: ['globrunqDetach', 'globrunqSize'] },
  'globrunqget.ts': { wasm: ['runqPutBatchTail'], ts: ['globrunqRequeue'] },
  'gtable.ts': { wasm: [], ts: ['badTransition', 'gLink', 'gSetLink', 'gWord'] },
  'idle.ts': { wasm: [], ts: ['mIdleAny', 'pidleAny'] },
  'init.ts': { wasm: [], ts: ['checkInt'] },
  'lock.ts': { wasm: ['lock', 'unlock'], ts: ['lockWord', 'unlockWord'] },
  'mem.ts': { wasm: ['counterAdd', 'mAddr', 'pAddr'], ts: ['cover', 'mWord', 'ncoprimes', 'pCounters', 'pF64', 'pOps', 'pWord'] },
  'runq.ts': { wasm: ['runqGetNext', 'runqGetRing', 'slot'], ts: ['backoff'] },
  'sched.ts': { wasm: ['becomeSpinning', 'resetSpinning', 'workAnywhere'], ts: ['workVisible'] },
};

describe('the twin declares the functions of the Wasm core, file by file', () => {
  const asFiles = fs.readdirSync(AS).filter((f) => f.endsWith('.ts') && f !== 'index.ts').sort();
  const tsFiles = fs.readdirSync(TS).filter((f) => f.endsWith('.ts') && f !== 'index.ts').sort(); // index.ts: each side's exports

  it('the same files, but for the listed ones', () => {
    expect(asFiles.filter((f) => !tsFiles.includes(f))).toEqual(ONLY_WASM);
    expect(tsFiles.filter((f) => !asFiles.includes(f))).toEqual(ONLY_TS);
  });

  for (const file of asFiles.filter((f) => tsFiles.includes(f))) {
    it(file, () => {
      const a = functions(path.join(AS, file));
      const t = functions(path.join(TS, file));
      const drift = {
        wasm: a.filter((n) => !t.includes(n)),
        ts: t.filter((n) => !a.includes(n)),
      };
      expect(drift).toEqual(DRIFT[file] ?? { wasm: [], ts: [] });
    });
  }
});
