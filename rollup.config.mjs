// Bundles the package that ships: what tsc compiled from bindings/ into dist/bindings/ becomes
//
//   dist/index.js     ESM entry (Node, Deno, browsers, Bun), with the Wasm core embedded
//   dist/index.cjs    CommonJS entry for require('stealwork'): the same, as one CommonJS file
//   dist/worker.js    ESM worker entry: every M thread runs it, whichever entry started it (from
//                     bindings/worker.ts: the runtime's worker with stealwork/piscina's calling
//                     convention registered)
//   dist/index.d.ts   the public types in one file, and dist/index.d.cts, the same for require
//   dist/piscina.cjs  stealwork/piscina for require: piscina's Piscina class over the scheduler
//                     (Node); module.exports is the class, as piscina's is
//   dist/piscina.js   the same for import: a wrapper over piscina.cjs (default: the class; named:
//                     its statics), as piscina's own esm-wrapper, so both give one class
//   dist/piscina.d.ts its types, and dist/piscina.d.cts, the same as `export = Piscina` (module.exports
//                     is the class: scripts/declarations-cjs.mjs)
//
//   npm run build:dist     (after tsc: the lead's `npm run build` runs both)
//
// Each bundle stands alone (no shared chunk; piscina.js is a wrapper, not a bundle): a bundler
// that copies `worker.js` as an asset, as they do for `new URL('./worker.js',
// import.meta.url)`, copies a worker that works. The worker does not carry the Wasm bytes: it
// gets the compiled module from the main thread, and tree-shaking drops the embedded strings it
// never reads.
//
// The engine finds its worker as `new URL('./worker.js', import.meta.url)`: from dist/index.js
// that is dist/worker.js; in the CommonJS build rollup turns import.meta.url into the file URL
// of dist/index.cjs, the same folder, the same worker. The piscina entry names its own worker the
// same way (bindings/piscina/worker.ts unbundled), and from dist/piscina.cjs it is dist/worker.js
// too. Unbundled (dist/bindings/), the engine's is the runtime's own worker.js beside it, which
// registers no adapter.

import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dts } from 'rollup-plugin-dts';
import { exportEquals } from './scripts/declarations-cjs.mjs';

const from = 'dist/bindings';

/** Warnings that mean a broken bundle fail the build; the rest are printed. */
const FATAL = new Set(['UNRESOLVED_IMPORT', 'MISSING_EXPORT', 'MISSING_GLOBAL_NAME', 'FILE_NAME_CONFLICT', 'MIXED_EXPORTS']);
function strict(warning, warn) {
  if (FATAL.has(warning.code)) throw new Error(`rollup: ${warning.code}: ${warning.message}`);
  warn(warning);
}

/** Writes the bundled declarations a second time as .d.cts for TypeScript's require resolution. */
function declarationsForRequire(name) {
  return {
    name: 'stealwork-declarations-for-require',
    async writeBundle() {
      await copyFile(`dist/${name}.d.ts`, `dist/${name}.d.cts`);
    },
  };
}

/** Writes dist/NAME.d.cts for a CommonJS entry whose module.exports is class `className`:
 *  `export = className` where the .d.ts has a default export (scripts/declarations-cjs.mjs). */
function declarationsForExportEquals(name, className) {
  return {
    name: 'stealwork-declarations-export-equals',
    async writeBundle() {
      const text = await readFile(`dist/${name}.d.ts`, 'utf8');
      await writeFile(`dist/${name}.d.cts`, exportEquals(text, className, `dist/${name}.d.ts`));
    },
  };
}

/** Writes dist/piscina.js over the CommonJS bundle just written: `import Piscina from` and
 *  `require()` give the same class (no second copy whose instances fail an instanceof), and the
 *  named exports are the class's statics, read from the bundle itself so none is forgotten. */
function esmWrapper() {
  return {
    name: 'stealwork-piscina-esm-wrapper',
    async writeBundle() {
      const require = createRequire(import.meta.url);
      const file = require.resolve('./dist/piscina.cjs');
      delete require.cache[file];
      const Piscina = require(file);
      const names = Object.getOwnPropertyNames(Piscina).filter((k) => !['length', 'name', 'prototype'].includes(k)).sort();
      const lines = [
        '// stealwork/piscina for import: the CommonJS bundle\'s class and its statics (rollup.config.mjs).',
        "import mod from './piscina.cjs';",
        '',
        'export default mod;',
        ...names.map((k) => `export const ${k} = mod.${k};`),
        '',
      ];
      await writeFile('dist/piscina.js', lines.join('\n'));
    },
  };
}

export default [
  {
    input: `${from}/index.js`,
    output: { file: 'dist/index.js', format: 'es', generatedCode: 'es2015' },
    onwarn: strict,
  },
  {
    input: `${from}/worker.js`,
    // The worker imports and exports nothing (node: built-ins come through
    // process.getBuiltinModule), so nothing in its text says it is an ES module; tools that guess
    // a file's format from its text (publint) took its error messages' prose ("the module
    // exports ...") for CommonJS. An empty export makes it an ES module by syntax.
    output: { file: 'dist/worker.js', format: 'es', generatedCode: 'es2015', footer: 'export {};' },
    onwarn: strict,
  },
  {
    input: `${from}/index.js`,
    output: { file: 'dist/index.cjs', format: 'cjs', exports: 'named', generatedCode: 'es2015' },
    onwarn: strict,
  },
  {
    input: `${from}/index.d.ts`,
    output: { file: 'dist/index.d.ts', format: 'es' },
    plugins: [dts(), declarationsForRequire('index')],
    onwarn: strict,
  },
  {
    input: `${from}/piscina/cjs.js`,
    output: { file: 'dist/piscina.cjs', format: 'cjs', exports: 'default', generatedCode: 'es2015' },
    plugins: [esmWrapper()],
    onwarn: strict,
  },
  {
    input: `${from}/piscina/index.d.ts`,
    output: { file: 'dist/piscina.d.ts', format: 'es' },
    plugins: [dts(), declarationsForExportEquals('piscina', 'Piscina')],
    onwarn: strict,
  },
];
