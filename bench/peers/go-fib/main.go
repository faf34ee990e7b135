// A goroutine per call: fib(n) with GOMAXPROCS = threads, `reps` timed runs after one warm-up.
// Prints "ms <time>" per run and "result <fib(n)>"; bench/fork.mjs reads them.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	var b int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { b = fib(n - 2); wg.Done() }()
	a := fib(n - 1)
	wg.Wait()
	return a + b
}

func main() {
	arg := func(i int) int { v, err := strconv.Atoi(os.Args[i]); if err != nil { panic(err) }; return v }
	n, reps, threads := arg(1), arg(2), arg(3)
	runtime.GOMAXPROCS(threads)
	r := fib(n)
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		r = fib(n)
		fmt.Printf("ms %f\n", float64(time.Since(t0).Nanoseconds())/1e6)
	}
	fmt.Printf("result %d\n", r)
}
