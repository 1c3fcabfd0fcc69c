// Package parallel is the ordered parallel map the streaming paths run
// items through: work on every core, results in input order, memory
// bounded by the items in flight.
package parallel

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
// first error of work or emit and returns it. A panic reaches the caller as
// it would from a plain loop: a panic in emit as it is; a panic in work,
// which happens on a goroutine of Map's where nothing could recover it, is
// raised again on the caller's goroutine, in item order, as a *WorkPanic
// that keeps the work's stack. Either way a bug stays a crash (the binary
// turns a crash into one line) and never reads as an error of the input.
// However Map ends, by returning or by a panic, it stops the work not yet
// started and waits for the work under way: every goroutine it started has
// ended when it returns.
func Map[T any](n, window int, work func(i int) (T, error), emit func(i int, v T) error) error {
	workers := runtime.GOMAXPROCS(0)
	if window < workers {
		window = workers
	}
	type result struct {
		v     T
		err   error
		panic *WorkPanic
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
				v, err, p := protect(j.i, work)
				j.out <- result{v, err, p}
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
		if r.panic != nil {
			panic(r.panic)
		}
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

// WorkPanic is a panic of Map's work function, raised again on the
// caller's goroutine.
type WorkPanic struct {
	// Item is the index the work panicked on.
	Item int
	// Value is what the work panicked with.
	Value any
	// Stack is the work goroutine's stack when it panicked.
	Stack []byte
}

// String says which item panicked, with what, and where.
func (p *WorkPanic) String() string {
	return fmt.Sprintf("item %d: panic: %v\n\n%s", p.Item, p.Value, p.Stack)
}

// protect calls work and returns its panic, if any, with the stack.
func protect[T any](i int, work func(int) (T, error)) (v T, err error, panicked *WorkPanic) {
	defer func() {
		if p := recover(); p != nil {
			panicked = &WorkPanic{Item: i, Value: p, Stack: debug.Stack()}
		}
	}()
	v, err = work(i)
	return v, err, nil
}
