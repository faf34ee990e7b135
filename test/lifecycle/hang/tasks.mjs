// A task module whose top-level await never settles (test/lifecycle-errors.test.ts): a
// thread loading it never says ready.
await new Promise(() => {});

export function never(ctx) {
  return 0;
}
