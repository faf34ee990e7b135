// How a worker thread loads its task module: `import(url)`, except where the program runs under
// a require hook that owns the file's extension (ts-node's `-r ts-node/register`, tsx's CommonJS
// side, any `require.extensions` entry) and the file is CommonJS. There the hook's `require`
// loads it, as the main program's own `require` would: `import()` of such a file fails on Node
// 20 ("Unknown file extension .ts"), and on Node 22 and 24 it goes through Node's own type
// stripping instead of the hook, which reads the file as another module format or hands the
// hook already-stripped source. The hooks themselves reach the thread through its execArgv,
// which it inherits from the process (platform.ts workerExecArgv). DESIGN.md "Task modules in
// TypeScript".
//
// Called by the worker entry (worker.ts) only. Deno and Bun load TypeScript by themselves:
// there `import()` is all.

import { isNode, nodeModule } from './platform.js';

type NodeModule = typeof import('node:module');
type NodeFs = typeof import('node:fs');
type NodePath = typeof import('node:path');
type NodeUrl = typeof import('node:url');

/** The extensions Node's own loaders know; a require hook registered for one of these is not
 *  what decides how the file loads. */
const NATIVE = new Set(['.js', '.mjs', '.cjs', '.json', '.node', '.wasm']);

/** The `type` of the package.json nearest above `dir` ('commonjs' when none says), looked up as
 *  Node looks up a file's package scope (it stops at a node_modules folder). */
function packageType(dir: string): string {
  const { existsSync, readFileSync } = nodeModule<NodeFs>('node:fs');
  const { basename, dirname, join } = nodeModule<NodePath>('node:path');
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const type = (JSON.parse(readFileSync(file, 'utf8')) as { type?: unknown }).type;
        return type === 'module' ? 'module' : 'commonjs';
      } catch {
        return 'commonjs';
      }
    }
    const up = dirname(dir);
    if (up === dir || basename(dir) === 'node_modules') return 'commonjs';
    dir = up;
  }
}

/** True when `path` is a CommonJS module by Node's rules: .cts and .cjs are; .mts and .mjs are
 *  not; any other extension follows the nearest package.json's `type`. */
function isCommonJs(path: string, ext: string): boolean {
  if (ext === '.cts' || ext === '.cjs') return true;
  if (ext === '.mts' || ext === '.mjs') return false;
  return packageType(nodeModule<NodePath>('node:path').dirname(path)) === 'commonjs';
}

/** What a `require` of module.exports looks like to `import()`: TypeScript's compiled ES
 *  modules (`__esModule`) as they are; any other module.exports as the default export, its own
 *  enumerable properties as named exports (as Node's `import()` of CommonJS gives them). */
function asNamespace(exports: unknown): Record<string, unknown> {
  if (Object.prototype.toString.call(exports) === '[object Module]') return exports as Record<string, unknown>; // require(esm)
  if (exports !== null && (typeof exports === 'object' || typeof exports === 'function')) {
    if ((exports as { __esModule?: unknown }).__esModule === true) return exports as Record<string, unknown>;
    return { ...(exports as Record<string, unknown>), default: exports };
  }
  return { default: exports };
}

/** How `url` loads: through a require hook ('require' for a CommonJS file, 'import' then the
 *  hook's require for an ES module), or by import() alone ('import': not Node, not a file, a
 *  native extension, or no hook in place). A hook is in place when `require.extensions` has any
 *  extension Node's own loader does not (ts-node and tsx add '.ts'); the file's own extension
 *  need not be among them: Node hands an unregistered one (.cts, which no hook can register) to
 *  the '.js' entry, which those hooks replace too. */
function howToLoad(url: string): { way: 'import' } | { way: 'require' | 'import-then-require'; require: (id: string) => unknown; path: string } {
  if (!isNode || !url.startsWith('file:')) return { way: 'import' };
  const path = nodeModule<NodeUrl>('node:url').fileURLToPath(url);
  const ext = nodeModule<NodePath>('node:path').extname(path);
  if (NATIVE.has(ext)) return { way: 'import' };
  const require = nodeModule<NodeModule>('node:module').createRequire(url);
  if (!Object.keys(require.extensions).some((k) => !NATIVE.has(k))) return { way: 'import' };
  return { way: isCommonJs(path, ext) ? 'require' : 'import-then-require', require, path };
}

/**
 * Loads the task module at `url` (a URL string) and resolves with its namespace. Under a
 * require hook, a CommonJS file is required; an ES module is imported, and required through the
 * hook only when import() does not know its extension (the hook's ESM side is missing in this
 * thread: tsx on Node 20, whose module.register hooks workers do not get). That error comes
 * before any of the module runs, so nothing runs twice. Worker threads.
 */
export async function loadTaskModule(url: string): Promise<Record<string, unknown>> {
  const how = howToLoad(url);
  if (how.way === 'require') return asNamespace(how.require(how.path));
  try {
    return await import(url) as Record<string, unknown>;
  } catch (e) {
    if (how.way === 'import' || (e as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
    return asNamespace(how.require(how.path));
  }
}
