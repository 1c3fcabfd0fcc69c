package stream

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Garbage collector settings while a streaming run is in progress.
const (
	// gcPercent replaces the default GOGC=100. The streaming path's live heap
	// is a few MiB (the items in flight and the spools' memory), so with the
	// default the collector runs every few MiB of allocation: about 160
	// times for 1,000 workloads, some 12% of the CPU. With 200 and the limit
	// below, 1,000 workloads take a third less CPU time, 10,000 about 10%
	// less.
	gcPercent = 200
	// gcLimit is a soft memory limit that keeps the larger heap goal from
	// growing past what the path needs (three spools of MemoryLimit and the
	// items in flight), whatever the input size.
	gcLimit = 192 << 20
	// gcTuneBelow: a program whose heap is already this large is left alone;
	// the limit would make its collector run too often.
	gcTuneBelow = 64 << 20
)

var gcTuning struct {
	sync.Mutex
	users   int
	percent int
	limit   int64
}

// TuneGC raises the collector's target while a streaming run is in
// progress, and returns the function that restores the settings when the
// last run ends. It changes nothing when GOGC or GOMEMLIMIT is set in the
// environment, when a memory limit is already set, or when the program's
// heap is already large.
func TuneGC() (restore func()) {
	gcTuning.Lock()
	defer gcTuning.Unlock()
	if gcTuning.users == 0 {
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || heapBytes() > gcTuneBelow {
			return func() {}
		}
		if limit := debug.SetMemoryLimit(-1); limit != 1<<63-1 {
			return func() {}
		}
		gcTuning.percent = debug.SetGCPercent(gcPercent)
		gcTuning.limit = debug.SetMemoryLimit(gcLimit)
	}
	gcTuning.users++
	return func() {
		gcTuning.Lock()
		defer gcTuning.Unlock()
		if gcTuning.users--; gcTuning.users == 0 {
			debug.SetGCPercent(gcTuning.percent)
			debug.SetMemoryLimit(gcTuning.limit)
		}
	}
}

// heapBytes is the memory held by heap objects, live or not yet swept.
func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
