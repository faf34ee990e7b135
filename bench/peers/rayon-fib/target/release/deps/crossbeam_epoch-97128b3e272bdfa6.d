/work/wt/fork/bench/peers/rayon-fib/target/release/deps/crossbeam_epoch-97128b3e272bdfa6.d: /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/lib.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/atomic.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/collector.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/deferred.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/epoch.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/guard.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/internal.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/mod.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/list.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/once_lock.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/queue.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/default.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libcrossbeam_epoch-97128b3e272bdfa6.rlib: /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/lib.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/atomic.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/collector.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/deferred.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/epoch.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/guard.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/internal.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/mod.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/list.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/once_lock.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/queue.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/default.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libcrossbeam_epoch-97128b3e272bdfa6.rmeta: /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/lib.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/atomic.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/collector.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/deferred.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/epoch.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/guard.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/internal.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/mod.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/list.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/once_lock.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/queue.rs /usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/default.rs

/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/lib.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/atomic.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/collector.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/deferred.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/epoch.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/guard.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/internal.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/mod.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/list.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/once_lock.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/sync/queue.rs:
/usr/share/cargo/registry/crossbeam-epoch-0.9.13/src/default.rs:
