/work/wt/fork/bench/peers/rayon-fib/target/release/deps/crossbeam_deque-cd1a99d063ec1d39.d: /usr/share/cargo/registry/crossbeam-deque-0.8.1/src/lib.rs /usr/share/cargo/registry/crossbeam-deque-0.8.1/src/deque.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libcrossbeam_deque-cd1a99d063ec1d39.rlib: /usr/share/cargo/registry/crossbeam-deque-0.8.1/src/lib.rs /usr/share/cargo/registry/crossbeam-deque-0.8.1/src/deque.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libcrossbeam_deque-cd1a99d063ec1d39.rmeta: /usr/share/cargo/registry/crossbeam-deque-0.8.1/src/lib.rs /usr/share/cargo/registry/crossbeam-deque-0.8.1/src/deque.rs

/usr/share/cargo/registry/crossbeam-deque-0.8.1/src/lib.rs:
/usr/share/cargo/registry/crossbeam-deque-0.8.1/src/deque.rs:
