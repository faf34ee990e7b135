// The worker file for piscina and tinypool: the bodies of bench/tasks.mjs behind the one-argument
// signature those pools call (`pool.run(arg, { name })`), so both sides run the same code.
// Pool tasks cannot spawn tasks, so the fork-join tasks have no counterpart here.

import * as T from './tasks.mjs';

export function inc(x) {
  return T.inc(null, x);
}

export function fib(n) {
  return T.fib(null, n);
}

export function burn(iters) {
  return T.burn(null, iters);
}

export function hold(ms) {
  return T.hold(null, ms);
}

export function stamp() {
  return T.stamp(null);
}

export default inc;
