// Preloaded with --require by bench/spin-pause.mjs to run the scheduler without the spin-wait
// hint: Node runs --require preloads in every worker thread too (not --import ones), and the park
// ladder looks Atomics.pause up when its module loads, after this.
delete Atomics.pause;
