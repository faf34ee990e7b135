/work/wt/fork/bench/peers/rayon-fib/target/release/deps/either-ea7eafbbec0beedc.d: /usr/share/cargo/registry/either-1.6.1/src/lib.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libeither-ea7eafbbec0beedc.rlib: /usr/share/cargo/registry/either-1.6.1/src/lib.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libeither-ea7eafbbec0beedc.rmeta: /usr/share/cargo/registry/either-1.6.1/src/lib.rs

/usr/share/cargo/registry/either-1.6.1/src/lib.rs:
