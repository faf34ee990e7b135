// Timers longer than the platform's: setTimeout holds its delay in a signed 32-bit integer, so
// a delay of 2^31 ms (24.8 days) or more fires after 1 ms (Node prints TimeoutOverflowWarning;
// browsers and Deno do the same without a word). A long delay is a chain of shorter timers.

/** The longest delay one setTimeout keeps: 2^31 - 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once, `ms` milliseconds from now (any finite ms >= 0), through a chain of timers of
 * at most MAX_TIMER_MS each: a link that fires early re-arms for what is left by `clock`.
 * Returns the cancel function. Main thread (the engine's task timeouts).
 */
export function longTimeout(fn: () => void, ms: number, clock: () => number = () => performance.now()): () => void {
  const end = clock() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (delay: number): void => {
    timer = setTimeout(() => {
      const left = end - clock();
      if (left > 0) arm(left);
      else { timer = undefined; fn(); }
    }, Math.min(delay, MAX_TIMER_MS));
  };
  arm(ms);
  return () => { if (timer !== undefined) clearTimeout(timer); timer = undefined; };
}
