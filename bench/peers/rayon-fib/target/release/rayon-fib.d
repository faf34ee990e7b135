/work/wt/fork/bench/peers/rayon-fib/target/release/rayon-fib: /work/wt/fork/bench/peers/rayon-fib/src/main.rs
