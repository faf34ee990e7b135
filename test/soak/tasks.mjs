// Tasks for the soak run: random trees mixing sync joins, async awaits and timers. Every node
// marks its id in a shared array, so the driver can check each ran exactly once.

function rand(s) {
  return (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
}

/** Node `id` of a tree: marks itself, then spawns up to 3 children (ids 3id+1..3id+3 < n).
 *  Node `kill` (-1: none) ends its worker thread instead (chaos: the scheduler must survive). */
export function node(ctx, marks, id, n, seed, kill = -1) {
  Atomics.add(new Int32Array(marks), id, 1);
  if (id === kill) process.exit(1);
  const r = rand(seed ^ id);
  const kids = [];
  for (let k = 1; k <= 3; k++) {
    const c = 3 * id + k;
    if (c < n && (r >>> k) % 4 !== 0) kids.push(c);
  }
  if (kids.length === 0) return 1;
  if (r % 3 === 0) return awaitKids(ctx, marks, kids, n, seed, r, kill);
  return ctx.join('count', ...kids.map((c) => ctx.spawn('node', marks, c, n, seed, kill)));
}

async function awaitKids(ctx, marks, kids, n, seed, r, kill) {
  if (r % 5 === 0) await new Promise((res) => setTimeout(res, r % 3));
  if (ctx.cancelled) return 1;
  const counts = await Promise.all(kids.map((c) => ctx.spawn('node', marks, c, n, seed, kill)));
  return 1 + counts.reduce((a, b) => a + b, 0);
}

export function count(ctx, ...xs) {
  let s = 1;
  for (const x of xs) s += x;
  return s;
}

/** Runs synchronously for ms (a kill: true root with a shorter timeout ends its thread). */
export function hog(ctx, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* busy */ }
  return 'hog ran out';
}
