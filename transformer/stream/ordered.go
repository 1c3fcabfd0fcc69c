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
// an error, since it happens on a goroutine of Map's where nothing could
// recover it. A panic in emit happens on the caller's goroutine and goes on
// to the caller unchanged, with its stack, as it would from a plain loop:
// a caller that recovers it (the streaming path falls back to the
// whole-list path) sees the panic, not an error that looks like the
// input's. However Map ends, by returning or by a panic of emit, it stops
// the work not yet started and waits for the work under way: every
// goroutine it started has ended when it returns.
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
	var wg sync.WaitGroup
	jobs := make(chan job)
	// pending holds each job's out in order of i, put there before the job
	// goes to a worker, so that every out in it gets its result.
	pending := make(chan chan result, window)
	wg.Go(func() {
		defer close(jobs)
		defer close(pending)
		for i := 0; i < n && !stop.Load(); i++ {
			out := make(chan result, 1)
			pending <- out
			jobs <- job{i, out}
		}
	})
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for j := range jobs {
				if stop.Load() {
					j.out <- result{}
					continue
				}
				v, err := protect(j.i, work)
				j.out <- result{v, err}
			}
		})
	}
	defer func() {
		// Also when emit panics: the producer stops at its next item, and
		// draining pending unblocks it and collects the work under way.
		stop.Store(true)
		for out := range pending {
			<-out
		}
		wg.Wait()
	}()
	i := 0
	for out := range pending {
		r := <-out
		if r.err != nil {
			return r.err
		}
		if err := emit(i, r.v); err != nil {
			return err
		}
		i++
	}
	return nil
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
