// The package as a user imports it, from the build (`npm run build`), and the bench's task module.

export async function loadStealwork() {
  try {
    return await import('../../dist/bindings/index.js');
  } catch (e) {
    throw new Error(`bench needs the build in dist/ (run npm run build first): ${e.message}`);
  }
}

/** bench/tasks.mjs: every export is a task, loaded in every worker. */
export const TASKS_URL = new URL('../tasks.mjs', import.meta.url);
