// The README's "Use" example is real: its two code blocks are, byte for byte, examples/readme/
// tasks.mjs and main.mjs, the files the engine matrix (test/engines/run.mjs) runs on every engine.
// Edit both together.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The ```js blocks of the README's "## Use" section, in order. */
function useBlocks(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('\n## Use\n');
  expect(start, 'README.md has a "## Use" section').toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
}

describe('README "Use" example', () => {
  it('its first two blocks are examples/readme/tasks.mjs and main.mjs', () => {
    const blocks = useBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(blocks[0]).toBe(read('examples/readme/tasks.mjs'));
    expect(blocks[1]).toBe(read('examples/readme/main.mjs'));
  });
});
