/work/wt/fork/bench/peers/rayon-fib/target/release/deps/autocfg-b16b35dfd3cf4728.d: /usr/share/cargo/registry/autocfg-1.1.0/src/lib.rs /usr/share/cargo/registry/autocfg-1.1.0/src/error.rs /usr/share/cargo/registry/autocfg-1.1.0/src/version.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libautocfg-b16b35dfd3cf4728.rlib: /usr/share/cargo/registry/autocfg-1.1.0/src/lib.rs /usr/share/cargo/registry/autocfg-1.1.0/src/error.rs /usr/share/cargo/registry/autocfg-1.1.0/src/version.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libautocfg-b16b35dfd3cf4728.rmeta: /usr/share/cargo/registry/autocfg-1.1.0/src/lib.rs /usr/share/cargo/registry/autocfg-1.1.0/src/error.rs /usr/share/cargo/registry/autocfg-1.1.0/src/version.rs

/usr/share/cargo/registry/autocfg-1.1.0/src/lib.rs:
/usr/share/cargo/registry/autocfg-1.1.0/src/error.rs:
/usr/share/cargo/registry/autocfg-1.1.0/src/version.rs:
