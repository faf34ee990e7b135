// Tasks of bench/spin-pause.mjs: a task that does nothing (what a round trip costs is the
// scheduler's), and one that says whether this thread has Atomics.pause.
export function noop() {
  return 0;
}
export function pauseType() {
  return typeof Atomics.pause;
}
