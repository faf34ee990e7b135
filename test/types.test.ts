// TypeScript users get checking: `Scheduler<typeof import('./tasks.js')>` type-checks task names,
// arguments and results. test/types/usage.ts holds correct calls and calls that must not compile.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('types', () => {
  it('task names, argument and result types are checked', () => {
    let out = '';
    try {
      execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'test/types/tsconfig.json'], { cwd: root, encoding: 'utf8' });
    } catch (e) {
      out = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(out).toBe('');
  }, 60000);

  it('a wrong call is a compile error', () => {
    // Guard against a checker that accepts everything: without the directives, each marked line fails.
    const src = readFileSync(join(root, 'test/types/usage.ts'), 'utf8');
    const marked = src.split('\n').filter((l) => l.includes('@ts-expect-error')).length;
    const stripped = join(root, 'test/types/stripped.generated.ts');
    writeFileSync(stripped, src.replace(/\/\/ @ts-expect-error.*$/gm, ''));
    let out = '';
    try {
      execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '--strict', '--module', 'NodeNext',
        '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--skipLibCheck', '--types', 'node',
        '--lib', 'ES2024,DOM,esnext.disposable', stripped], { cwd: root, encoding: 'utf8' });
    } catch (e) {
      out = String((e as { stdout?: string }).stdout ?? e);
    } finally {
      rmSync(stripped, { force: true });
    }
    const errors = out.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(marked).toBe(14);
    expect(errors.length).toBe(marked);
  }, 60000);
});
