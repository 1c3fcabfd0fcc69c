package stream

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Map calls work(i) for every i in [0, n) on runtime.GOMAXPROCS(0)
// goroutines and emit(i, v) with its value on the calling goroutine, in
// order of i. At most window values are computed ahead of the one emit
// waits for, so memory is bounded by the items in flight. Map stops at the
// first error of work or emit and returns it; a panic in work is returned as
// an error.
func Map[T any](n, window int, work func(i int) (T, error), emit func(i int, v T) error) error {
	workers := runtime.GOMAXPROCS(0)
	if window < workers {
		window = workers
	}
	type result struct {
		v   T
		err error
	}
	type job struct {
		i   int
		out chan result
	}
	var stop atomic.Bool
	jobs := make(chan job)
	pending := make(chan chan result, window)
	go func() {
		defer close(jobs)
		defer close(pending)
		for i := 0; i < n && !stop.Load(); i++ {
			out := make(chan result, 1)
			pending <- out
			jobs <- job{i, out}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if stop.Load() {
					j.out <- result{}
					continue
				}
				v, err := protect(j.i, work)
				j.out <- result{v, err}
			}
		}()
	}
	var err error
	i := 0
	for out := range pending {
		r := <-out
		if err == nil {
			err = r.err
			if err == nil {
				err = emit(i, r.v)
			}
			if err != nil {
				stop.Store(true)
			}
		}
		i++
	}
	wg.Wait()
	return err
}

// protect calls work, turning a panic into an error.
func protect[T any](i int, work func(int) (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("item %d: panic: %v\n%s", i, p, debug.Stack())
		}
	}()
	return work(i)
}
