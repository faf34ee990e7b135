/work/wt/fork/bench/peers/rayon-fib/target/release/deps/scopeguard-ff8862bc399b60ff.d: /usr/share/cargo/registry/scopeguard-1.1.0/src/lib.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libscopeguard-ff8862bc399b60ff.rlib: /usr/share/cargo/registry/scopeguard-1.1.0/src/lib.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libscopeguard-ff8862bc399b60ff.rmeta: /usr/share/cargo/registry/scopeguard-1.1.0/src/lib.rs

/usr/share/cargo/registry/scopeguard-1.1.0/src/lib.rs:
