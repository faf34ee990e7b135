// What it costs to prove a small array is exactly its elements (issue 30; DESIGN.md "Small
// values", items 3, 4 and 8): the check the small values' fast path makes before it writes a
// tuple such as [n, 1, depth] without the general codec. Standalone (no import of the package),
// so it runs as it is on every engine:
//
//   node bench/exactness.mjs [--rounds N]
//   deno run bench/exactness.mjs        bun bench/exactness.mjs
//
// structuredClone copies an array's own enumerable string-keyed properties: every index it has
// and any named one (`a.total = 3`), and leaves a hole a hole. So a fast path that writes only
// `length` and the elements must first prove the array has no hole and no named property. Each
// candidate test below runs over the same fresh 3-number arrays as a task's results are (made
// in the loop, as `sumt` makes them), and is also run on the arrays that must fail it; a test
// that passes one of those is marked "inexact": it would lose a property or a hole.
//
// The figure per test is the fastest of N rounds of 200,000 arrays, in ns per array, with the
// array's own allocation ("make the array only") subtracted in the last column. On a shared
// machine most rounds are stretched by preemption; the fastest is the cost.

const ROUNDS = (() => {
  const argv = globalThis.process?.argv ?? globalThis.Deno?.args ?? [];
  const i = argv.indexOf('--rounds');
  return i >= 0 ? Number(argv[i + 1]) : 15;
})();
const PER_ROUND = 200_000;

/** Arrays every exact test must reject: the fast path would not write them as structuredClone. */
function mustFail() {
  const named = [1, 2, 3];
  named.total = 6;
  const holey = [1, , 3]; // eslint-disable-line no-sparse-arrays
  const deleted = [1, 2, 3];
  delete deleted[1];
  const short = [1, 2, 3];
  short.length = 4; // a trailing hole
  return { 'a named property': named, 'a hole': holey, 'a deleted index': deleted, 'a trailing hole': short };
}

const INDEX = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15'];
const hasOwn = Object.hasOwn;
const descriptor = Object.getOwnPropertyDescriptor;

/** Each candidate: (a, n = a.length) => true when a may take the fast path. */
const TESTS = {
  'make the array only': () => true,
  'Object.keys, count and last key (the one in use)': (a, n) => {
    const k = Object.keys(a);
    return k.length === n && (n === 0 || k[n - 1] === INDEX[n - 1]);
  },
  'Object.getOwnPropertyNames, count': (a, n) => Object.getOwnPropertyNames(a).length === n + 1,
  'Reflect.ownKeys, count': (a, n) => Reflect.ownKeys(a).length === n + 1,
  'Object.values, count': (a, n) => Object.values(a).length === n,
  'for-in, count': (a, n) => {
    let c = 0;
    for (const k in a) c++; // eslint-disable-line no-unused-vars
    return c === n;
  },
  'Object.hasOwn of every index': (a, n) => {
    for (let i = 0; i < n; i++) if (!hasOwn(a, i)) return false;
    return true;
  },
  'the last index\'s descriptor': (a, n) => n === 0 || descriptor(a, n - 1) !== undefined,
};

function now() {
  return performance.now();
}

/** The fastest round's ns per array for test f over fresh [i, 1, i & 7] arrays. */
function time(f) {
  let best = Infinity;
  let sink = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = now();
    for (let i = 0; i < PER_ROUND; i++) {
      const a = [i, 1, i & 7];
      if (f(a, a.length)) sink += a[2];
    }
    best = Math.min(best, ((now() - t0) * 1e6) / PER_ROUND);
  }
  if (sink < 0) console.log(sink); // keeps the loop's work observable
  return best;
}

const engine = globalThis.Deno ? `deno ${Deno.version.deno} (V8 ${Deno.version.v8})`
  : globalThis.Bun ? `bun ${Bun.version} (JavaScriptCore)`
    : `node ${process.version} (V8 ${process.versions.v8})`;
console.log(`bench/exactness: ${engine}, fastest of ${ROUNDS} rounds of ${PER_ROUND.toLocaleString('en-US')} fresh 3-number arrays`);
const bad = mustFail();
const rows = [];
for (const [name, f] of Object.entries(TESTS)) {
  const missed = Object.entries(bad).filter(([, a]) => f(a, a.length)).map(([what]) => what);
  rows.push({ name, ns: time(f), missed });
}
const base = rows[0].ns;
const w = Math.max(...rows.map((r) => r.name.length));
console.log(`  ${'test'.padEnd(w)}  ns/array  beyond making it  exact?`);
for (const r of rows) {
  const exact = r.name === 'make the array only' ? '' : r.missed.length === 0 ? 'yes' : `no: passes ${r.missed.join(', ')}`;
  console.log(`  ${r.name.padEnd(w)}  ${r.ns.toFixed(1).padStart(8)}  ${(r.ns - base).toFixed(1).padStart(16)}  ${exact}`);
}
