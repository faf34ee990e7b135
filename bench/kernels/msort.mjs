// Merge sort of float64s (top-down, two buffers, insertion sort below 32 elements), the kernel
// of the merge-sort workload. `a` holds the input range and receives the sorted output; `b` is
// scratch of the same length. The ranges of two calls that run at once never overlap. Any
// thread may call these.

const SMALL = 32;

function insertion(x, lo, hi) {
  for (let i = lo + 1; i < hi; i++) {
    const v = x[i];
    let j = i - 1;
    while (j >= lo && x[j] > v) { x[j + 1] = x[j]; j--; }
    x[j + 1] = v;
  }
}

/** Merges the sorted runs src[lo..mid) and src[mid..hi) into dst[lo..hi). */
export function merge(src, dst, lo, mid, hi) {
  let i = lo, j = mid, k = lo;
  while (i < mid && j < hi) dst[k++] = src[j] < src[i] ? src[j++] : src[i++];
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
}

/** Sorts a[lo..hi) into a (toB false) or into b (toB true), a's range as the input either way. */
export function sort(a, b, lo, hi, toB) {
  if (hi - lo <= SMALL) {
    if (toB) {
      for (let i = lo; i < hi; i++) b[i] = a[i];
      insertion(b, lo, hi);
    } else insertion(a, lo, hi);
    return;
  }
  const mid = (lo + hi) >>> 1;
  // The halves land in the other buffer, so the merge writes where the result belongs.
  sort(a, b, lo, mid, !toB);
  sort(a, b, mid, hi, !toB);
  if (toB) merge(a, b, lo, mid, hi);
  else merge(b, a, lo, mid, hi);
}

/** n float64s in [0, 1) from a seeded xorshift32 (repeatable run to run), into `out`. */
export function fillRandom(out, seed = 12345) {
  let x = seed >>> 0 || 1;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = x / 4294967296 + (i & 1023) / 4294967296 / 1024;
  }
  return out;
}
