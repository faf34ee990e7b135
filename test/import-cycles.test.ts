// Neither core, nor the bindings around them, has an import cycle: each file of assembly/ and
// bindings/ imports one way only, so load order never matters, the bundler has nothing to warn
// about, and a reader can take the files bottom up. Type-only imports count too: `import type`
// is erased at run time, but a circle of types is still two files that cannot be read, changed
// or moved apart. A shared piece that two files need goes to a file of its own (as
// globrunqget.ts, gfstack.ts and ggrow.ts did, and base/description.ts, host/thread-options.ts
// and tasks/taskfn.ts later).
//
// The same holds one level up, between folders (the runtime's rooms, docs/DESIGN.md "The
// runtime's rooms"): the folders import one way, and the runtime never imports the piscina
// adapter (the adapter registers its calling convention with the runtime instead,
// threads/calling.ts).

import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every .ts file under dir (generated files included: they are imported like the others). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** Each import of a file: the file it names by a relative specifier, and whether it is
 *  type-only (`import type { .. }`, `export type { .. } from`; an import whose names are each
 *  marked `type` is also erased but counts as a value import here, as TypeScript keeps it under
 *  verbatimModuleSyntax). `import('./x.js')` expressions count as value imports. */
interface Edge { to: string; typeOnly: boolean }

function imports(file: string): Edge[] {
  const src = readFileSync(file, 'utf8');
  const statics = [...src.matchAll(/^\s*(?:import|export)\b([^;]*?)\bfrom\s*'(\.[^']+)'/gms)]
    .map((m) => ({ spec: m[2], typeOnly: /^\s*type\b/.test(m[1]) }));
  const dynamics = [...src.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => ({ spec: m[1], typeOnly: false }));
  return [...statics, ...dynamics]
    .map(({ spec, typeOnly }) => ({ to: resolve(dirname(file), spec.replace(/\.js$/, '')) + '.ts', typeOnly }))
    .filter((e) => existsSync(e.to)); // a specifier in a doc comment's example names no file
}

/** file -> the files it imports; withTypes: type-only imports count as arrows too. */
function importGraph(dirs: string[], withTypes: boolean): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const file of tsFiles(join(root, dir))) {
      graph.set(file, imports(file).filter((e) => withTypes || !e.typeOnly).map((e) => e.to));
    }
  }
  return graph;
}

/** The cycles of the graph, each as the list of nodes around it (from a depth-first search). */
function cycles(graph: Map<string, string[]>, name: (x: string) => string = (x) => relative(root, x)): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    path.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') found.push([...path.slice(path.indexOf(d)), d].map(name));
      else if (!state.has(d)) visit(d);
    }
    path.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

/** The folder a file counts in: each folder of bindings/runtime/ (its own files: the entries,
 *  'bindings/runtime'), bindings/piscina, bindings/codec, bindings/core (its TS twin included),
 *  assembly (its shared layout included), and 'bindings' for bindings/index.ts. */
function folderOf(file: string): string {
  const rel = relative(root, file).split('\\').join('/');
  const parts = rel.split('/');
  if (parts[0] === 'assembly') return 'assembly';
  if (parts[1] === 'runtime') return parts.length > 3 ? `bindings/runtime/${parts[2]}` : 'bindings/runtime';
  return parts.length > 2 ? `bindings/${parts[1]}` : 'bindings';
}

/** folder -> the folders its files import (type-only imports included); a folder's imports of
 *  itself are left out. */
function folderGraph(): Map<string, string[]> {
  const graph = new Map<string, Set<string>>();
  for (const [file, deps] of importGraph(['assembly', 'bindings'], true)) {
    const from = folderOf(file);
    const out = graph.get(from) ?? new Set<string>();
    for (const d of deps) if (folderOf(d) !== from) out.add(folderOf(d));
    graph.set(from, out);
  }
  return new Map([...graph].map(([k, v]) => [k, [...v].sort()]));
}

describe('import graph', () => {
  for (const dir of ['assembly', 'bindings']) {
    it(`${dir}/ has no import cycle`, () => {
      const graph = importGraph([dir], false);
      expect(graph.size).toBeGreaterThan(10);
      expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
    });

    it(`${dir}/ has no import cycle, counting type-only imports`, () => {
      const graph = importGraph([dir], true);
      expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
    });
  }

  it('type-only imports are read as arrows (the check above can see a type circle)', () => {
    const typeOnly = [...tsFiles(join(root, 'bindings'))].flatMap((f) => imports(f).filter((e) => e.typeOnly));
    expect(typeOnly.length).toBeGreaterThan(10);
    // A made-up pair of files that import each other's types only is a cycle to the check.
    const a = join(root, 'a.ts');
    const b = join(root, 'b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]])).map((c) => c.join(' -> '))).toEqual(['a.ts -> b.ts -> a.ts']);
  });
});

describe('folder graph', () => {
  const graph = folderGraph();

  it('names the runtime\'s rooms and its neighbours', () => {
    for (const f of ['bindings/runtime', 'bindings/runtime/threads', 'bindings/runtime/tasks', 'bindings/runtime/memory',
      'bindings/runtime/observe', 'bindings/piscina', 'bindings/codec', 'bindings/core']) {
      expect([...graph.keys()]).toContain(f);
    }
  });

  it('has no cycle between folders', () => {
    expect(cycles(graph, (x) => x).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('has no arrow from the runtime into the piscina adapter', () => {
    const wrong = [...graph].filter(([from]) => from.startsWith('bindings/runtime'))
      .flatMap(([from, to]) => to.filter((t) => t === 'bindings/piscina').map((t) => `${from} -> ${t}`));
    expect(wrong).toEqual([]);
  });

  it('has the arrow from the piscina adapter into the runtime (the check above reads arrows)', () => {
    expect(graph.get('bindings/piscina')?.some((t) => t.startsWith('bindings/runtime'))).toBe(true);
  });
});
