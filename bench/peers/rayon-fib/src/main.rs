// rayon::join per call: fib(n) on a pool of `threads`, `reps` timed runs after one warm-up.
// Prints "ms <time>" per run and "result <fib(n)>"; bench/fork.mjs reads them.
use std::time::Instant;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("numeric arguments: n reps threads")).collect();
    let (n, reps, threads) = (args[0], args[1], args[2] as usize);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let mut r = pool.install(|| fib(n));
    for _ in 0..reps {
        let t0 = Instant::now();
        r = pool.install(|| fib(n));
        println!("ms {}", t0.elapsed().as_secs_f64() * 1000.0);
    }
    println!("result {}", r);
}
