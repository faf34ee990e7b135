/work/wt/fork/bench/peers/rayon-fib/target/release/deps/num_cpus-cbc537a9124f5760.d: /usr/share/cargo/registry/num_cpus-1.14.0/src/lib.rs /usr/share/cargo/registry/num_cpus-1.14.0/src/linux.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libnum_cpus-cbc537a9124f5760.rlib: /usr/share/cargo/registry/num_cpus-1.14.0/src/lib.rs /usr/share/cargo/registry/num_cpus-1.14.0/src/linux.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libnum_cpus-cbc537a9124f5760.rmeta: /usr/share/cargo/registry/num_cpus-1.14.0/src/lib.rs /usr/share/cargo/registry/num_cpus-1.14.0/src/linux.rs

/usr/share/cargo/registry/num_cpus-1.14.0/src/lib.rs:
/usr/share/cargo/registry/num_cpus-1.14.0/src/linux.rs:
