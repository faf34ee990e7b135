// rayon's par_iter on bench/par.mjs's workloads, on a pool of `threads` (0: sequential, no pool),
// `reps` timed runs after one warm-up. Prints "ms <time>" per run and "result <...>".
//   sum  <n>: the sum of a Vec<f64> of n elements (i * 0.5), par_iter().sum()
//   map  <n>: (0..n).into_par_iter().map(hash).collect::<Vec<i32>>(); the result is the sum
//   spin <items> <iters>: items of `iters` rounds of hash each, par_iter().map().collect()
use rayon::prelude::*;
use std::time::Instant;

/// bench/par-tasks.mjs `hash`, bit for bit.
fn hash(x: i64, rounds: i32) -> i32 {
    let mut h = x as i32;
    for k in 0..rounds {
        h = ((h ^ ((h as u32) >> 15) as i32).wrapping_mul(0x2c1b3c6d)).wrapping_add(k);
    }
    h
}

fn run(work: &str, n: usize, iters: i32, par: bool, data: &[f64]) -> String {
    match work {
        "sum" => {
            let s: f64 = if par { data.par_iter().sum() } else { data.iter().sum() };
            format!("{}", s)
        }
        "map" => {
            let v: Vec<i32> = if par {
                (0..n as i64).into_par_iter().map(|i| hash(i, 32)).collect()
            } else {
                (0..n as i64).map(|i| hash(i, 32)).collect()
            };
            format!("{}", v.iter().map(|&x| x as i64).sum::<i64>())
        }
        "spin" => {
            let v: Vec<i32> = if par {
                (0..n as i64).into_par_iter().map(|i| hash(i, iters)).collect()
            } else {
                (0..n as i64).map(|i| hash(i, iters)).collect()
            };
            format!("{}", v.iter().map(|&x| x as i64).sum::<i64>())
        }
        _ => panic!("work: sum | map | spin"),
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let work = a[0].as_str();
    let n: usize = a[1].parse().unwrap();
    let iters: i32 = a[2].parse().unwrap();
    let threads: usize = a[3].parse().unwrap();
    let reps: usize = a[4].parse().unwrap();
    let data: Vec<f64> = if work == "sum" { (0..n).map(|i| i as f64 * 0.5).collect() } else { Vec::new() };
    let par = threads > 0;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().unwrap();
    let mut r = pool.install(|| run(work, n, iters, par, &data));
    for _ in 0..reps {
        let t0 = Instant::now();
        r = pool.install(|| run(work, n, iters, par, &data));
        println!("ms {}", t0.elapsed().as_secs_f64() * 1000.0);
    }
    println!("result {}", r);
}
