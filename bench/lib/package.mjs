// The package as a user imports it, from the build (`npm run build`), and the bench's task module.
// `stealwork` and `stealwork/piscina` resolve (package.json "exports") to the bundles dist/index.js
// and dist/piscina.cjs, whose threads boot from the one-file dist/worker.js. The unbundled tree
// under dist/bindings/ is what the tests import; its threads load some 80 modules each, which
// made a thread start cost about twice the CPU time of the bundle's (bench/async.mjs, where
// piscina's default idleTimeout of 0 starts threads again and again). Benchmarks time the bundles.

async function load(file) {
  try {
    return await import(new URL(`../../dist/${file}`, import.meta.url).href);
  } catch (e) {
    throw new Error(`bench needs the build in dist/ (run npm run build first): ${e.message}`);
  }
}

/** `import('stealwork')`: the Scheduler and the rest of the main entry. */
export const loadStealwork = () => load('index.js');

/** `import('stealwork/piscina')`. */
export const loadPiscina = () => load('piscina.js');

/** bench/tasks.mjs: every export is a task, loaded in every worker. */
export const TASKS_URL = new URL('../tasks.mjs', import.meta.url);
