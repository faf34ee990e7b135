// The scheduler suite's workload sizes, full and quick; the pools suite runs the workloads it
// shares with it at the same sizes.

/** UTS's q in the scheduler suite's tree: 8 children with probability q, 8q = 0.99. */
export const UTS_Q = 0.99 / 8;

export function sizes(quick) {
  return quick
    ? {
      fibc: 21, values: 20, fibcut: [29, 17], tiny: 10_000, skewed: 200, burst: { holds: 16, holdMs: 10, bursts: 4, per: 25, gapMs: 5 },
      uts: { seed: 1, b0: 200, rounds: 128, chunk: 256 }, wake: { samples: 15, gapMs: 10 }, warmMs: 50,
    }
    : {
      fibc: 27, values: 24, fibcut: [35, 20], tiny: 200_000, skewed: 2000, burst: { holds: 16, holdMs: 50, bursts: 10, per: 100, gapMs: 10 },
      uts: { seed: 7, b0: 2000, rounds: 128, chunk: 256 }, wake: { samples: 100, gapMs: 20 },
      // The coarse rows (fibcut, UTS) run each variant untimed for this long first (interleave).
      warmMs: 400,
    };
}
