// Neither core, nor the bindings around them, has an import cycle: each file of assembly/ and
// bindings/ imports one way only, so load order never matters and the bundler has nothing to
// warn about. A shared piece that two files need goes to a file of its own (as globrunqget.ts,
// gfstack.ts and ggrow.ts did).

import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every .ts file under dir (generated files included: they are imported like the others). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** file -> the files it imports by a relative specifier at run time (`import type` is erased, so
 *  a type-only import makes no cycle). */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(join(root, dir))) {
    const src = readFileSync(file, 'utf8');
    const deps = [...src.matchAll(/^\s*(?:import|export)\b([^;]*?)\bfrom\s*'(\.[^']+)'/gms)]
      .filter((m) => !/^\s*type\b/.test(m[1]))
      .map((m) => resolve(dirname(file), m[2].replace(/\.js$/, '')) + '.ts');
    graph.set(file, deps);
  }
  return graph;
}

/** The cycles of the graph, each as the list of files around it (from a depth-first search). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    path.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') found.push([...path.slice(path.indexOf(d)), d].map((x) => relative(root, x)));
      else if (!state.has(d)) visit(d);
    }
    path.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe('import graph', () => {
  for (const dir of ['assembly', 'bindings']) {
    it(`${dir}/ has no import cycle`, () => {
      const graph = importGraph(dir);
      expect(graph.size).toBeGreaterThan(10);
      expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
    });
  }
});
