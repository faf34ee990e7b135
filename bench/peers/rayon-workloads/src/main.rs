// The real workloads of bench/workloads.mjs in Rust, sequential and with rayon (a pool of
// `threads`), the same algorithms as bench/kernels/ and peers/go-workloads: UTS T1/T3 with UTS's
// SHA-1 random number generator (a one-block SHA-1 written out), N-Queens, a merge sort of f64s,
// a Mandelbrot with skewed rows. rayon's forms: rayon::join per fork (merge sort, Mandelbrot),
// a parallel iterator over a row's placements (N-Queens) or a node's children (UTS per node),
// and rayon::scope with a spawn per chunk (UTS chunked).
//
//   rayon-workloads <workload> <size...> <seq|par|chunk|node> <threads> <reps>
//
// Runs once untimed (warm-up), then `reps` timed runs; prints "ms <time>" per run and
// "result <...>" once, as go-workloads does; bench/workloads.mjs reads them and checks the result.
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

// ---- SHA-1 of one block, UTS's rng ----------------------------------------------------------

fn compress(w: &mut [u32; 80]) -> [u32; 5] {
    for t in 16..80 {
        w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
    }
    const H: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
    let (mut a, mut b, mut c, mut d, mut e) = (H[0], H[1], H[2], H[3], H[4]);
    for (t, wt) in w.iter().enumerate() {
        let (f, k) = match t {
            0..=19 => ((b & c) | (!b & d), 0x5a827999),
            20..=39 => (b ^ c ^ d, 0x6ed9eba1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1bbcdc),
            _ => (b ^ c ^ d, 0xca62c1d6u32),
        };
        let x = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wt);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = x;
    }
    [H[0].wrapping_add(a), H[1].wrapping_add(b), H[2].wrapping_add(c), H[3].wrapping_add(d), H[4].wrapping_add(e)]
}

type State = [u32; 5];

fn root_state(seed: u32) -> State {
    let mut w = [0u32; 80];
    w[4] = seed;
    w[5] = 0x80000000;
    w[15] = 160;
    compress(&mut w)
}

fn spawn_state(s: &State, i: u32) -> State {
    let mut w = [0u32; 80];
    w[..5].copy_from_slice(s);
    w[5] = i;
    w[6] = 0x80000000;
    w[15] = 192;
    compress(&mut w)
}

// ---- UTS trees -------------------------------------------------------------------------------

struct Tree {
    geo: bool,
    b0: f64,
    q: f64,
    m: usize,
    gen_mx: usize,
    seed: u32,
}

fn tree(name: &str) -> Tree {
    match name {
        "T1" => Tree { geo: true, b0: 4.0, q: 0.0, m: 0, gen_mx: 10, seed: 19 },
        "T3" => Tree { geo: false, b0: 2000.0, q: 0.124875, m: 8, gen_mx: 0, seed: 42 },
        "S1" => Tree { geo: true, b0: 4.0, q: 0.0, m: 0, gen_mx: 6, seed: 19 },
        "S3" => Tree { geo: false, b0: 200.0, q: 0.124, m: 8, gen_mx: 0, seed: 42 },
        _ => panic!("no tree {}", name),
    }
}

impl Tree {
    fn num_children(&self, h: usize, s: &State) -> usize {
        let u = (s[4] & 0x7fffffff) as f64 / 2147483648.0;
        if !self.geo {
            if h == 0 {
                return self.b0.floor() as usize;
            }
            return if u < self.q { self.m } else { 0 };
        }
        let b = if h < self.gen_mx { self.b0 } else { 0.0 };
        let p = 1.0 / (1.0 + b);
        let n = ((1.0 - u).ln() / (1.0 - p).ln()).floor() as usize;
        n.min(100)
    }
}

#[derive(Clone, Copy)]
struct Node {
    s: State,
    h: usize,
}

#[derive(Clone, Copy, Default)]
struct Counts {
    nodes: u64,
    leaves: u64,
    depth: usize,
}

impl Counts {
    fn add(mut self, b: Counts) -> Counts {
        self.nodes += b.nodes;
        self.leaves += b.leaves;
        self.depth = self.depth.max(b.depth);
        self
    }
}

/// Visits the top of the stack: counts it and pushes its children.
fn visit(t: &Tree, stack: &mut Vec<Node>, c: &mut Counts) {
    let n = stack.pop().unwrap();
    c.nodes += 1;
    c.depth = c.depth.max(n.h);
    let k = t.num_children(n.h, &n.s);
    if k == 0 {
        c.leaves += 1;
    }
    for i in 0..k {
        stack.push(Node { s: spawn_state(&n.s, i as u32), h: n.h + 1 });
    }
}

fn walk(t: &Tree, mut stack: Vec<Node>) -> Counts {
    let mut c = Counts::default();
    while !stack.is_empty() {
        visit(t, &mut stack, &mut c);
    }
    c
}

/// A node's children through a parallel iterator (rayon splits them in halves, by join).
fn uts_node(t: &Tree, n: Node) -> Counts {
    let k = t.num_children(n.h, &n.s);
    if k == 0 {
        return Counts { nodes: 1, leaves: 1, depth: n.h };
    }
    let r = (0..k as u32)
        .into_par_iter()
        .map(|i| uts_node(t, Node { s: spawn_state(&n.s, i), h: n.h + 1 }))
        .reduce(Counts::default, Counts::add);
    Counts { nodes: r.nodes + 1, ..r }
}

/// UTS's chunked form, as the JS task and Go's: every `chunk` nodes the oldest half of the stack
/// goes to a spawn of the scope, which waits for them all.
fn uts_chunk(t: &Tree, stack: Vec<Node>, chunk: u64) -> Counts {
    let given = Mutex::new(Counts::default());
    let mut c = Counts::default();
    rayon::scope(|sc| {
        let mut stack = stack;
        while !stack.is_empty() {
            visit(t, &mut stack, &mut c);
            if c.nodes % chunk == 0 && stack.len() > 1 {
                let give: Vec<Node> = stack.drain(..stack.len() / 2).collect();
                let given = &given;
                sc.spawn(move |_| {
                    let r = uts_chunk(t, give, chunk);
                    let mut g = given.lock().unwrap();
                    *g = g.add(r);
                });
            }
        }
    });
    c.add(given.into_inner().unwrap())
}

// ---- N-Queens --------------------------------------------------------------------------------

fn queens(n: u32, row: u32, cols: u32, left: u32, right: u32) -> u64 {
    if row == n {
        return 1;
    }
    let all = (1u32 << n) - 1;
    let mut free = all & !(cols | left | right);
    let mut s = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        s += queens(n, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1);
    }
    s
}

fn queens_par(n: u32, row: u32, cols: u32, left: u32, right: u32, cut: u32) -> u64 {
    if row >= cut {
        return queens(n, row, cols, left, right);
    }
    let all = (1u32 << n) - 1;
    let mut free = all & !(cols | left | right);
    let mut bits = Vec::new();
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        bits.push(bit);
    }
    bits.par_iter()
        .map(|&bit| queens_par(n, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1, cut))
        .sum()
}

// ---- merge sort ------------------------------------------------------------------------------

fn insertion(x: &mut [f64]) {
    for i in 1..x.len() {
        let v = x[i];
        let mut j = i;
        while j > 0 && x[j - 1] > v {
            x[j] = x[j - 1];
            j -= 1;
        }
        x[j] = v;
    }
}

fn merge(src: &[f64], dst: &mut [f64], mid: usize) {
    let (mut i, mut j, mut k) = (0, mid, 0);
    let hi = src.len();
    while i < mid && j < hi {
        if src[j] < src[i] {
            dst[k] = src[j];
            j += 1;
        } else {
            dst[k] = src[i];
            i += 1;
        }
        k += 1;
    }
    let rest = mid - i;
    dst[k..k + rest].copy_from_slice(&src[i..mid]);
    dst[k + rest..].copy_from_slice(&src[j..hi]);
}

/// Sorts a (to_b false) or a's elements into b (to_b true); a and b are the same range of the
/// two arrays, so the halves split both at the same index. Forks the first half above `cut`.
fn msort(a: &mut [f64], b: &mut [f64], to_b: bool, cut: usize) {
    let len = a.len();
    if len <= 32 {
        if to_b {
            b.copy_from_slice(a);
            insertion(b);
        } else {
            insertion(a);
        }
        return;
    }
    let mid = len / 2;
    {
        let (a0, a1) = a.split_at_mut(mid);
        let (b0, b1) = b.split_at_mut(mid);
        if len > cut {
            rayon::join(|| msort(a0, b0, !to_b, cut), || msort(a1, b1, !to_b, cut));
        } else {
            msort(a0, b0, !to_b, cut);
            msort(a1, b1, !to_b, cut);
        }
    }
    if to_b {
        merge(a, b, mid);
    } else {
        merge(b, a, mid);
    }
}

fn fill_random(out: &mut [f64]) {
    let mut x: u32 = 12345;
    for (i, o) in out.iter_mut().enumerate() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *o = x as f64 / 4294967296.0 + (i & 1023) as f64 / 4294967296.0 / 1024.0;
    }
}

// ---- Mandelbrot ------------------------------------------------------------------------------

/// Rows y0 .. y0 + out.len() / w of the picture; out holds exactly those rows.
fn rows(out: &mut [i32], w: usize, h: usize, y0: usize, max_iter: i32) -> u64 {
    let mut sum = 0u64;
    for (dy, line) in out.chunks_mut(w).enumerate() {
        let ci = -1.25 + 2.5 * (y0 + dy) as f64 / h as f64;
        for (x, px) in line.iter_mut().enumerate() {
            let cr = -2.0 + 2.5 * x as f64 / w as f64;
            let (mut zr, mut zi, mut i) = (0.0f64, 0.0f64, 0);
            while i < max_iter {
                let (zr2, zi2) = (zr * zr, zi * zi);
                if zr2 + zi2 > 4.0 {
                    break;
                }
                zi = 2.0 * zr * zi + ci;
                zr = zr2 - zi2 + cr;
                i += 1;
            }
            *px = i;
            sum += i as u64;
        }
    }
    sum
}

fn mandel_par(out: &mut [i32], w: usize, h: usize, y0: usize, y1: usize, max_iter: i32, grain: usize) -> u64 {
    if y1 - y0 <= grain {
        return rows(out, w, h, y0, max_iter);
    }
    let mid = (y0 + y1) / 2;
    let (top, bottom) = out.split_at_mut((mid - y0) * w);
    let (a, b) = rayon::join(
        || mandel_par(top, w, h, y0, mid, max_iter, grain),
        || mandel_par(bottom, w, h, mid, y1, max_iter, grain),
    );
    a + b
}

// ---- main ------------------------------------------------------------------------------------

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let num = |s: &str| -> usize { s.parse().unwrap_or_else(|_| panic!("not a number: {}", s)) };
    let mode = a[a.len() - 3].clone();
    let (threads, reps) = (num(&a[a.len() - 2]), num(&a[a.len() - 1]));
    // UTS T3 per node nests a parallel iterator per level, 1,572 levels deep: rayon's default
    // 2 MiB thread stack overflows there (the process dies on SIGSEGV), so the pool's threads
    // get 256 MiB of stack, only reserved until used.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(256 << 20).build().unwrap();
    let seq = mode == "seq";
    let mut run: Box<dyn FnMut() -> String + Send> = match a[0].as_str() {
        "uts" => {
            // uts <tree> <chunk> mode threads reps
            let t = tree(&a[1]);
            let chunk = num(&a[2]) as u64;
            Box::new(move || {
                let root = Node { s: root_state(t.seed), h: 0 };
                let c = match mode.as_str() {
                    "seq" => walk(&t, vec![root]),
                    "node" => uts_node(&t, root),
                    _ => uts_chunk(&t, vec![root], chunk),
                };
                format!("{} {} {}", c.nodes, c.leaves, c.depth)
            })
        }
        "queens" => {
            // queens <n> <cut> mode threads reps
            let (n, cut) = (num(&a[1]) as u32, num(&a[2]) as u32);
            Box::new(move || (if seq { queens(n, 0, 0, 0, 0) } else { queens_par(n, 0, 0, 0, 0, cut) }).to_string())
        }
        "msort" => {
            // msort <n> <cut> mode threads reps
            let (n, cut) = (num(&a[1]), num(&a[2]));
            let (mut x, mut y) = (vec![0f64; n], vec![0f64; n]);
            Box::new(move || {
                fill_random(&mut x);
                msort(&mut x, &mut y, false, if seq { n } else { cut });
                if x.windows(2).any(|p| p[0] > p[1]) {
                    return "unsorted".to_string();
                }
                format!("sorted {:.6}", x.iter().sum::<f64>())
            })
        }
        "mandel" => {
            // mandel <w> <maxIter> <grain> mode threads reps
            let (w, max_iter, grain) = (num(&a[1]), num(&a[2]) as i32, num(&a[3]));
            let mut out = vec![0i32; w * w];
            Box::new(move || {
                let s = if seq { rows(&mut out, w, w, 0, max_iter) } else { mandel_par(&mut out, w, w, 0, w, max_iter, grain) };
                s.to_string()
            })
        }
        other => panic!("no workload {}", other),
    };
    // Every run inside the pool: the sequential code too, so both run on a pool thread.
    let mut r = pool.install(&mut run); // the warm-up
    for _ in 0..reps {
        let t0 = Instant::now();
        r = pool.install(&mut run);
        println!("ms {}", t0.elapsed().as_secs_f64() * 1000.0);
    }
    println!("result {}", r);
}
