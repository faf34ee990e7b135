/work/wt/fork/bench/peers/rayon-fib/target/release/deps/cfg_if-4090551beb0850cf.d: /usr/share/cargo/registry/cfg-if-1.0.0/src/lib.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libcfg_if-4090551beb0850cf.rlib: /usr/share/cargo/registry/cfg-if-1.0.0/src/lib.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libcfg_if-4090551beb0850cf.rmeta: /usr/share/cargo/registry/cfg-if-1.0.0/src/lib.rs

/usr/share/cargo/registry/cfg-if-1.0.0/src/lib.rs:
