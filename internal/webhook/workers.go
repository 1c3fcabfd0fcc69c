package webhook

import "time"

// workerIdle is how long a worker waits for another review before it ends.
const workerIdle = time.Minute

// workers run reviews on goroutines kept between reviews: a review's
// recursion grows a new goroutine's stack several times, a kept one's
// stack has grown already. A review no idle worker takes gets a new one,
// so a review that runs past its deadline holds up no other.
type workers struct{ jobs chan func() }

func newWorkers() *workers { return &workers{jobs: make(chan func())} }

// run runs f on an idle worker, or on a new one.
func (w *workers) run(f func()) {
	select {
	case w.jobs <- f:
	default:
		go w.work(f)
	}
}

// work runs f, then what run hands it, until it has been idle for
// workerIdle.
func (w *workers) work(f func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		f()
		idle.Reset(workerIdle)
		select {
		case f = <-w.jobs:
		case <-idle.C:
			return
		}
	}
}
