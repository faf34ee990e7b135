import { defineConfig } from 'vitest/config';

// Tests live in test/**/*.test.ts. The forks pool runs each file in a child process, whose main
// thread may start worker_threads and Atomics.wait (core-threads.test.ts does both). No test
// asserts on wall-clock speed; the timeout only bounds a hang.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
