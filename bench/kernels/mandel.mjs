// Mandelbrot set escape counts over [-2, 0.5] x [-1.25, 1.25], one int per pixel, at most
// `maxIter` iterations a pixel. Rows are skewed: a row through the set costs maxIter for each
// of its interior pixels, a row far above it a few iterations a pixel. Any thread may call it.

/** Computes rows y0..y1-1 of a w x h image into `out` (row-major); returns their iteration sum. */
export function rows(out, w, h, y0, y1, maxIter) {
  let sum = 0;
  for (let y = y0; y < y1; y++) {
    const ci = -1.25 + (2.5 * y) / h;
    for (let x = 0; x < w; x++) {
      const cr = -2 + (2.5 * x) / w;
      let zr = 0, zi = 0, i = 0;
      while (i < maxIter) {
        const zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4) break;
        zi = 2 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        i++;
      }
      out[y * w + x] = i;
      sum += i;
    }
  }
  return sum;
}
