/work/wt/fork/bench/peers/rayon-fib/target/release/deps/memoffset-ece04001e79812df.d: /usr/share/cargo/registry/memoffset-0.6.5/src/lib.rs /usr/share/cargo/registry/memoffset-0.6.5/src/raw_field.rs /usr/share/cargo/registry/memoffset-0.6.5/src/offset_of.rs /usr/share/cargo/registry/memoffset-0.6.5/src/span_of.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libmemoffset-ece04001e79812df.rlib: /usr/share/cargo/registry/memoffset-0.6.5/src/lib.rs /usr/share/cargo/registry/memoffset-0.6.5/src/raw_field.rs /usr/share/cargo/registry/memoffset-0.6.5/src/offset_of.rs /usr/share/cargo/registry/memoffset-0.6.5/src/span_of.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/libmemoffset-ece04001e79812df.rmeta: /usr/share/cargo/registry/memoffset-0.6.5/src/lib.rs /usr/share/cargo/registry/memoffset-0.6.5/src/raw_field.rs /usr/share/cargo/registry/memoffset-0.6.5/src/offset_of.rs /usr/share/cargo/registry/memoffset-0.6.5/src/span_of.rs

/usr/share/cargo/registry/memoffset-0.6.5/src/lib.rs:
/usr/share/cargo/registry/memoffset-0.6.5/src/raw_field.rs:
/usr/share/cargo/registry/memoffset-0.6.5/src/offset_of.rs:
/usr/share/cargo/registry/memoffset-0.6.5/src/span_of.rs:
