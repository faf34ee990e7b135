// Tasks of test/thread-limit/program.mjs.
export function hold(ctx, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end);
  return ms;
}
