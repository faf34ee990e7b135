// Clocks and statistics over repetitions, and the seeded generator shuffles and trees repeat
// with. Any thread may call these.

export const now = () => performance.now();
/** Wall-clock milliseconds comparable across threads (each thread has its own timeOrigin). */
export const wallNow = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** The q-quantile (0..1) by the nearest-rank method. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The geometric mean of positive numbers (NaN if any is not). */
export function geomean(xs) {
  if (xs.length === 0 || xs.some((x) => !(x > 0))) return NaN;
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}

/** A seeded 32-bit generator (xorshift32), so shuffles and trees repeat run to run. */
export function rng(seed) {
  let x = (seed >>> 0) || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

export function shuffle(xs, seed) {
  const r = rng(seed);
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}
