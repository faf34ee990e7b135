// The real workloads of bench/workloads.mjs in Go, sequential and parallel (goroutines,
// GOMAXPROCS = threads), the same algorithms as bench/kernels/: UTS T1/T3 with UTS's SHA-1
// random number generator (a one-block SHA-1 written out, as UTS's portable C one is, not
// crypto/sha1's assembly), N-Queens, a merge sort of float64s, a Mandelbrot with skewed rows.
//
//	go-workloads <workload> <size...> <seq|par|node> <threads> <reps>
//
// Runs once untimed (warm-up), then `reps` timed runs; prints "ms <time>" per run and
// "result <...>" once; bench/workloads.mjs reads them and checks the result.
package main

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"
)

// ---- SHA-1 of one block, UTS's rng ----------------------------------------------------------

func rotl(x uint32, n uint) uint32 { return x<<n | x>>(32-n) }

func compress(w *[80]uint32) [5]uint32 {
	for t := 16; t < 80; t++ {
		w[t] = rotl(w[t-3]^w[t-8]^w[t-14]^w[t-16], 1)
	}
	const h0, h1, h2, h3, h4 = 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
	a, b, c, d, e := uint32(h0), uint32(h1), uint32(h2), uint32(h3), uint32(h4)
	// Four loops, one per round function (no branch per round).
	t := 0
	for ; t < 20; t++ {
		x := rotl(a, 5) + ((b & c) | (^b & d)) + e + 0x5a827999 + w[t]
		e, d, c, b, a = d, c, rotl(b, 30), a, x
	}
	for ; t < 40; t++ {
		x := rotl(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[t]
		e, d, c, b, a = d, c, rotl(b, 30), a, x
	}
	for ; t < 60; t++ {
		x := rotl(a, 5) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[t]
		e, d, c, b, a = d, c, rotl(b, 30), a, x
	}
	for ; t < 80; t++ {
		x := rotl(a, 5) + (b ^ c ^ d) + e + 0xca62c1d6 + w[t]
		e, d, c, b, a = d, c, rotl(b, 30), a, x
	}
	return [5]uint32{h0 + a, h1 + b, h2 + c, h3 + d, h4 + e}
}

type state [5]uint32

func rootState(seed uint32) state {
	var w [80]uint32
	w[4], w[5], w[15] = seed, 0x80000000, 160
	return compress(&w)
}

func spawn(s state, i uint32) state {
	var w [80]uint32
	copy(w[:5], s[:])
	w[5], w[6], w[15] = i, 0x80000000, 192
	return compress(&w)
}

// ---- UTS trees ---------------------------------------------------------------------------

type tree struct {
	geo      bool
	b0, q    float64
	m, genMx int
	seed     uint32
}

var trees = map[string]tree{
	"T1": {geo: true, b0: 4, genMx: 10, seed: 19},
	"T3": {b0: 2000, q: 0.124875, m: 8, seed: 42},
	"S1": {geo: true, b0: 4, genMx: 6, seed: 19},
	"S3": {b0: 200, q: 0.124, m: 8, seed: 42},
}

func (t *tree) numChildren(h int, s state) int {
	u := float64(s[4]&0x7fffffff) / 2147483648
	if !t.geo {
		if h == 0 {
			return int(math.Floor(t.b0))
		}
		if u < t.q {
			return t.m
		}
		return 0
	}
	b := 0.0
	if h < t.genMx {
		b = t.b0
	}
	p := 1 / (1 + b)
	n := int(math.Floor(math.Log(1-u) / math.Log(1-p)))
	if n > 100 {
		n = 100
	}
	return n
}

type node struct {
	s state
	h int
}

type counts struct{ nodes, leaves, depth int }

func (a *counts) add(b counts) {
	a.nodes += b.nodes
	a.leaves += b.leaves
	if b.depth > a.depth {
		a.depth = b.depth
	}
}

func walk(t *tree, stack []node) counts {
	var c counts
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c.nodes++
		if n.h > c.depth {
			c.depth = n.h
		}
		k := t.numChildren(n.h, n.s)
		if k == 0 {
			c.leaves++
		}
		for i := 0; i < k; i++ {
			stack = append(stack, node{spawn(n.s, uint32(i)), n.h + 1})
		}
	}
	return c
}

// utsNode: a goroutine per child but the last (walked by a plain call), joined by a WaitGroup.
func utsNode(t *tree, n node) counts {
	k := t.numChildren(n.h, n.s)
	if k == 0 {
		return counts{1, 1, n.h}
	}
	res := make([]counts, k)
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := 0; i < k-1; i++ {
		go func(i int) { res[i] = utsNode(t, node{spawn(n.s, uint32(i)), n.h + 1}); wg.Done() }(i)
	}
	r := utsNode(t, node{spawn(n.s, uint32(k-1)), n.h + 1})
	wg.Wait()
	for i := 0; i < k-1; i++ {
		r.add(res[i])
	}
	r.nodes++
	return r
}

// utsChunk: UTS's chunked form, as the JS task: every `chunk` nodes the oldest half of the
// stack goes to a new goroutine. The goroutines' counts go to `given` under mu, never to c,
// which this goroutine alone updates, unlocked, and merges with `given` after the wait.
func utsChunk(t *tree, stack []node, chunk int) counts {
	var c, given counts
	var mu sync.Mutex
	var wg sync.WaitGroup
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c.nodes++
		if n.h > c.depth {
			c.depth = n.h
		}
		k := t.numChildren(n.h, n.s)
		if k == 0 {
			c.leaves++
		}
		for i := 0; i < k; i++ {
			stack = append(stack, node{spawn(n.s, uint32(i)), n.h + 1})
		}
		if c.nodes%chunk == 0 && len(stack) > 1 {
			half := len(stack) / 2
			give := append([]node(nil), stack[:half]...)
			stack = append(stack[:0], stack[half:]...)
			wg.Add(1)
			go func() {
				r := utsChunk(t, give, chunk)
				mu.Lock()
				given.add(r)
				mu.Unlock()
				wg.Done()
			}()
		}
	}
	wg.Wait()
	c.add(given)
	return c
}

// ---- N-Queens --------------------------------------------------------------------------------

func queens(n, row int, cols, left, right uint32) int {
	if row == n {
		return 1
	}
	all := uint32(1)<<n - 1
	free := all &^ (cols | left | right)
	s := 0
	for free != 0 {
		bit := free & -free
		free ^= bit
		s += queens(n, row+1, cols|bit, ((left|bit)<<1)&all, (right|bit)>>1)
	}
	return s
}

func queensPar(n, row int, cols, left, right uint32, cut int) int {
	if row >= cut {
		return queens(n, row, cols, left, right)
	}
	all := uint32(1)<<n - 1
	free := all &^ (cols | left | right)
	// res is sized before any goroutine starts: growing it by append while they write into it
	// would lose their results (a data race).
	res := make([]int, bits.OnesCount32(free))
	var wg sync.WaitGroup
	for i := 0; free != 0; i++ {
		bit := free & -free
		free ^= bit
		wg.Add(1)
		go func(i int, c, l, r uint32) { res[i] = queensPar(n, row+1, c, l, r, cut); wg.Done() }(i, cols|bit, ((left|bit)<<1)&all, (right|bit)>>1)
	}
	wg.Wait()
	s := 0
	for _, x := range res {
		s += x
	}
	return s
}

// ---- merge sort ------------------------------------------------------------------------------

func insertion(x []float64, lo, hi int) {
	for i := lo + 1; i < hi; i++ {
		v := x[i]
		j := i - 1
		for j >= lo && x[j] > v {
			x[j+1] = x[j]
			j--
		}
		x[j+1] = v
	}
}

func merge(src, dst []float64, lo, mid, hi int) {
	i, j, k := lo, mid, lo
	for i < mid && j < hi {
		if src[j] < src[i] {
			dst[k] = src[j]
			j++
		} else {
			dst[k] = src[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], src[i:mid])
	copy(dst[k:], src[j:hi])
}

func msort(a, b []float64, lo, hi int, toB bool, cut int) {
	if hi-lo <= 32 {
		if toB {
			copy(b[lo:hi], a[lo:hi])
			insertion(b, lo, hi)
		} else {
			insertion(a, lo, hi)
		}
		return
	}
	mid := (lo + hi) / 2
	if hi-lo > cut {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { msort(a, b, lo, mid, !toB, cut); wg.Done() }()
		msort(a, b, mid, hi, !toB, cut)
		wg.Wait()
	} else {
		msort(a, b, lo, mid, !toB, cut)
		msort(a, b, mid, hi, !toB, cut)
	}
	if toB {
		merge(a, b, lo, mid, hi)
	} else {
		merge(b, a, lo, mid, hi)
	}
}

func fillRandom(out []float64) {
	x := uint32(12345)
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = float64(x)/4294967296 + float64(i&1023)/4294967296/1024
	}
}

// ---- Mandelbrot --------------------------------------------------------------------------

func rows(out []int32, w, h, y0, y1, maxIter int) int {
	sum := 0
	for y := y0; y < y1; y++ {
		ci := -1.25 + 2.5*float64(y)/float64(h)
		for x := 0; x < w; x++ {
			cr := -2 + 2.5*float64(x)/float64(w)
			zr, zi, i := 0.0, 0.0, 0
			for i < maxIter {
				zr2, zi2 := zr*zr, zi*zi
				if zr2+zi2 > 4 {
					break
				}
				zi = 2*zr*zi + ci
				zr = zr2 - zi2 + cr
				i++
			}
			out[y*w+x] = int32(i)
			sum += i
		}
	}
	return sum
}

func mandelPar(out []int32, w, h, y0, y1, maxIter, grain int) int {
	if y1-y0 <= grain {
		return rows(out, w, h, y0, y1, maxIter)
	}
	mid := (y0 + y1) / 2
	var top int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { top = mandelPar(out, w, h, y0, mid, maxIter, grain); wg.Done() }()
	s := mandelPar(out, w, h, mid, y1, maxIter, grain)
	wg.Wait()
	return s + top
}

// ---- main ------------------------------------------------------------------------------------

func main() {
	a := os.Args[1:]
	num := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			panic(err)
		}
		return v
	}
	mode := a[len(a)-3]
	threads, reps := num(a[len(a)-2]), num(a[len(a)-1])
	runtime.GOMAXPROCS(threads)
	var run func() string
	switch a[0] {
	case "uts": // uts <tree> <chunk> mode threads reps
		t, ok := trees[a[1]]
		if !ok {
			panic("no tree " + a[1])
		}
		chunk := num(a[2])
		run = func() string {
			root := node{rootState(t.seed), 0}
			var c counts
			switch mode {
			case "seq":
				c = walk(&t, []node{root})
			case "node":
				c = utsNode(&t, root)
			default:
				c = utsChunk(&t, []node{root}, chunk)
			}
			return fmt.Sprintf("%d %d %d", c.nodes, c.leaves, c.depth)
		}
	case "queens": // queens <n> <cut> mode threads reps
		n, cut := num(a[1]), num(a[2])
		run = func() string {
			if mode == "seq" {
				return strconv.Itoa(queens(n, 0, 0, 0, 0))
			}
			return strconv.Itoa(queensPar(n, 0, 0, 0, 0, cut))
		}
	case "msort": // msort <n> <cut> mode threads reps
		n, cut := num(a[1]), num(a[2])
		x, y := make([]float64, n), make([]float64, n)
		run = func() string {
			fillRandom(x)
			if mode == "seq" {
				msort(x, y, 0, n, false, n)
			} else {
				msort(x, y, 0, n, false, cut)
			}
			if !sort.Float64sAreSorted(x) {
				return "unsorted"
			}
			s := 0.0
			for _, v := range x {
				s += v
			}
			return fmt.Sprintf("sorted %.6f", s)
		}
	case "mandel": // mandel <w> <maxIter> <grain> mode threads reps
		w, maxIter, grain := num(a[1]), num(a[2]), num(a[3])
		out := make([]int32, w*w)
		run = func() string {
			if mode == "seq" {
				return strconv.Itoa(rows(out, w, w, 0, w, maxIter))
			}
			return strconv.Itoa(mandelPar(out, w, w, 0, w, maxIter, grain))
		}
	default:
		panic("no workload " + a[0])
	}
	r := run() // the warm-up
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		r = run()
		fmt.Printf("ms %f\n", float64(time.Since(t0).Nanoseconds())/1e6)
	}
	fmt.Printf("result %s\n", r)
}
