//go:build bench

package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFollowLiveHeap: after a collection that finds more than 3/4 of the
// base limit live, the soft limit is three times the live heap; once someone
// else sets the limit, it is left alone. It waits on the collector and sets
// the process's memory limit, so `make bench` runs it (build tag bench).
func TestFollowLiveHeap(t *testing.T) {
	limit := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(limit)
	const base = 64 << 20
	debug.SetMemoryLimit(base)
	followLiveHeap(base)
	kept := make([]byte, 100<<20)
	for i := range kept {
		kept[i] = 1
	}
	if !waitFor(func() bool { return debug.SetMemoryLimit(-1) >= 300<<20 }) {
		t.Fatalf("with 100 MiB live the limit is %d, want at least 300 MiB", debug.SetMemoryLimit(-1))
	}
	runtime.KeepAlive(kept)
	const other = 1 << 40
	debug.SetMemoryLimit(other)
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != other {
		t.Errorf("the limit another setting chose changed to %d", got)
	}
}

// waitFor collects garbage until ok or a few seconds pass.
func waitFor(ok func() bool) bool {
	for range 100 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		if ok() {
			return true
		}
	}
	return false
}
