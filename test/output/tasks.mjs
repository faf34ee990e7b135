// Tasks of the output programs (test/output/*): each prints numbered lines and returns.
import process from 'node:process';

/** Prints n lines "tag i" on stdout with console.log, synchronously. */
export function print(ctx, tag, n) {
  for (let i = 0; i < n; i++) console.log(`${tag} ${i}`);
  return n;
}

/** Prints n lines "tag i" on stream ('out': process.stdout.write, 'err': console.error),
 *  then waits on the shared word until the other thread has printed too (both at once). */
export function both(ctx, tag, stream, n, word) {
  const i32 = new Int32Array(word);
  Atomics.add(i32, 0, 1);
  while (Atomics.load(i32, 0) < 2) Atomics.wait(i32, 0, Atomics.load(i32, 0), 1); // the other one started
  for (let i = 0; i < n; i++) {
    if (stream === 'out') process.stdout.write(`${tag} ${i}\n`);
    else console.error(`${tag} ${i}`);
  }
  return n;
}

/** Prints n lines, then runs until it is killed. */
export function printThenSpin(ctx, tag, n, word) {
  for (let i = 0; i < n; i++) console.log(`${tag} ${i}`);
  Atomics.store(new Int32Array(word), 0, 1);
  Atomics.notify(new Int32Array(word), 0);
  for (;;) { /* until killed */ }
}
