// TypeScript users get checking: `Scheduler<typeof import('./tasks.js')>` type-checks task names,
// arguments and results on the main thread, and `TaskContext<typeof import('./tasks.js')>` does
// inside the tasks, in TypeScript and in JSDoc. test/types/ holds correct calls and calls that
// must not compile; the README's and the guide's examples must compile under strict too.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

/** tsc's error lines for a project (empty: it compiles). */
function tsc(args: string[]): string[] {
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', ...args], { cwd: root, encoding: 'utf8' });
    return [];
  } catch (e) {
    return String((e as { stdout?: string }).stdout ?? e).split('\n').filter((l) => /error TS\d+/.test(l));
  }
}

/** The fenced blocks of `lang` in a markdown file, between the heading `from` and the next
 *  heading of its level. */
function blocks(file: string, from: string, lang: string): string[] {
  const md = readFileSync(join(root, file), 'utf8');
  const start = md.indexOf(`\n${from}\n`);
  expect(start, `${file} has "${from}"`).toBeGreaterThan(0);
  const level = from.split(' ')[0];
  const end = md.indexOf(`\n${level} `, start + 1);
  const section = md.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

/** Compiles JavaScript files under `// @ts-check`, strict, in a folder of test/ (so that
 *  `stealwork` resolves to this package, by its own name), with `main` the task module's
 *  other half; returns tsc's errors. */
function checkJs(name: string, files: Record<string, string>): string[] {
  const dir = join(root, 'test', `${name}.generated`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    for (const [f, src] of Object.entries(files)) writeFileSync(join(dir, f), f.endsWith('.ts') || src.startsWith('// @ts-check') ? src : `// @ts-check\n${src}`);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2024', 'DOM'], types: ['node'],
        strict: true, noEmit: true, skipLibCheck: true, allowJs: true, checkJs: true },
      files: Object.keys(files),
    }));
    return tsc(['-p', join(dir, 'tsconfig.json')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('types', () => {
  it('task names, argument and result types are checked', () => {
    expect(tsc(['-p', 'test/types/tsconfig.json'])).toEqual([]);
  }, 60000);

  it('a wrong call is a compile error, on the main thread and inside a task', () => {
    // Guard against a checker that accepts everything: without the directives, each marked
    // line fails, in every file (the copies sit beside test/types/ so relative imports hold).
    const dir = join(root, 'test', 'types-stripped.generated');
    rmSync(dir, { recursive: true, force: true });
    cpSync(join(root, 'test', 'types'), dir, { recursive: true });
    const marked = new Map<string, number>();
    try {
      for (const f of readdirSync(dir)) {
        if (!/\.(ts|mjs)$/.test(f)) continue;
        const src = readFileSync(join(dir, f), 'utf8');
        marked.set(f, src.split('\n').filter((l) => l.includes('@ts-expect-error')).length);
        writeFileSync(join(dir, f), src.replace(/\/\/ @ts-expect-error.*$/gm, ''));
      }
      const errors = tsc(['-p', join(dir, 'tsconfig.json')]);
      const perFile = (f: string): number => errors.filter((l) => l.includes(`/${f}(`)).length;
      expect(Object.fromEntries([...marked.keys()].map((f) => [f, perFile(f)]))).toEqual(Object.fromEntries(marked));
      expect(marked.get('usage.ts')).toBe(15);
      expect(marked.get('typed-tasks.ts')).toBe(10);
      expect(marked.get('typed-tasks-jsdoc.mjs')).toBe(3);
      expect(errors.length).toBe([...marked.values()].reduce((a, b) => a + b, 0));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60000);

  it("the README's example compiles under // @ts-check and strict, its tasks typed by their module", () => {
    const [tasks, main] = blocks('README.md', '## Use', 'js');
    expect(tasks).toContain("TaskContext<typeof import('./tasks.mjs')>");
    expect(checkJs('readme', { 'tasks.mjs': tasks, 'main.mjs': main })).toEqual([]);
    // The check has teeth: a misspelt name inside a task, and a wrong result, fail it.
    expect(checkJs('readme', { 'tasks.mjs': tasks.replace("ctx.spawn('fib', n - 2)", "ctx.spawn('fibb', n - 2)"), 'main.mjs': main }).join('\n')).toMatch(/fibb/);
    expect(checkJs('readme', { 'tasks.mjs': tasks.replace('return a + b;', "return a + b + '';"), 'main.mjs': main })).not.toEqual([]);
  }, 60000);

  it("the guide's JSDoc example compiles under strict, its tasks typed by their module", () => {
    const [tasks, main] = blocks('docs/guide.md', '## Types, CommonJS and JSDoc', 'js');
    expect(tasks).toContain("TaskContext<typeof import('./tasks.mjs')>");
    // The guide's main.mjs shows one wrong call on purpose, marked `// error:`.
    const wrong = main.split('\n').filter((l) => l.includes('// error:')).length;
    expect(wrong).toBe(1);
    const errors = checkJs('guide', { 'tasks.mjs': tasks, 'main.mjs': main });
    expect(errors.length, errors.join('\n')).toBe(wrong);
    expect(errors[0]).toMatch(/main\.mjs\(\d+,\d+\): error TS2345/);
    expect(checkJs('guide', { 'tasks.mjs': tasks.replace("ctx.spawn('fibc', n - 2)", "ctx.spawn('fibc', 'n')"), 'main.mjs': main }).length).toBe(wrong + 1);
  }, 60000);

  it("the guide's TypeScript task module: its two wrong calls inside a task, and nothing else, fail", () => {
    const [tasks] = blocks('docs/guide.md', '## Types, CommonJS and JSDoc', 'ts');
    const marked = tasks.split('\n').flatMap((l, i) => (l.includes('// error:') ? [i + 1] : []));
    expect(marked.length).toBe(2);
    const errors = checkJs('guide-ts', { 'tasks.ts': tasks });
    expect(errors.map((l) => Number(/tasks\.ts\((\d+),/.exec(l)?.[1])), errors.join('\n')).toEqual(marked);
  }, 60000);
});
