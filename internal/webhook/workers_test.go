package webhook

import (
	"testing"
	"time"
)

// TestWorkersNeverWait: a review that does not end holds up no other, and
// reviews one after another are all run.
func TestWorkersNeverWait(t *testing.T) {
	w := newWorkers()
	stuck, release := make(chan struct{}), make(chan struct{})
	w.run(func() { close(stuck); <-release })
	<-stuck
	for i := range 3 {
		done := make(chan struct{})
		w.run(func() { close(done) })
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("review %d waited behind one that does not end", i)
		}
	}
	close(release)
}
