/work/wt/fork/bench/peers/rayon-fib/target/release/deps/rayon_fib-d684883b6af15778.d: src/main.rs

/work/wt/fork/bench/peers/rayon-fib/target/release/deps/rayon_fib-d684883b6af15778: src/main.rs

src/main.rs:
