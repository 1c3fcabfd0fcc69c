package cli

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Garbage collector settings of the binary.
const (
	// gcPercent replaces the default GOGC=100. The streaming paths' live
	// heap is a few MiB (the items in flight and the spools' memory), so
	// with the default the collector runs every few MiB of allocation:
	// about 160 times for 1,000 workloads, some 12% of the CPU. With 200
	// and the limit below, 1,000 workloads take a third less CPU time,
	// 10,000 about 10% less.
	gcPercent = 200
	// gcLimit is a soft memory limit that keeps the larger heap goal from
	// growing past what the paths need (three spools of
	// spool.MemoryLimit and the items in flight), whatever the input size:
	// 10,000 workloads peak under 100 MiB. With 32 items in flight, at 88
	// MiB it costs no measurable CPU time against 96 MiB; with 64 in
	// flight, 80 MiB cost a fifth more.
	gcLimit = 88 << 20
)

// tuneGC sets the collector's target for the process, unless GOGC or
// GOMEMLIMIT in the environment (read with getenv) says otherwise. It is
// the binary's setting: the library leaves the collector of a program that
// embeds it alone.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(gcLimit)
	followLiveHeap(gcLimit)
}

// followLiveHeap keeps the soft memory limit at three times the live heap
// (the heap GOGC=200 aims at) once that outgrows 3/4 of base (limitFor),
// after every collection, for as long as the limit is the one it set. What a run keeps per item (each
// workload's labels and owners for the closing checks, about 1 KB) grows
// with the list: past the fixed limit, the collector would run back to
// back (a list of 446,600 workloads took 17 minutes instead of 2).
func followLiveHeap(base int64) {
	set := base
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) {
			if debug.SetMemoryLimit(-1) != set {
				return // the limit is someone else's now
			}
			set = limitFor(base, liveHeap())
			debug.SetMemoryLimit(set)
			arm()
		})
	}
	arm()
}

// gcCycle is garbage as soon as it is made: its finalizer runs after the
// next collection.
type gcCycle struct{ _ [16]byte }

// limitFor is the soft memory limit for a live heap: base up to 3/4 of it
// live, then three times the live heap. The live heap a collection
// reports includes what became garbage while it ran, so it jumps about:
// below 3/4 the limit stays, and with it the streaming paths' peak.
func limitFor(base, live int64) int64 {
	if 4*live <= 3*base {
		return base
	}
	return 3 * live
}

// liveHeap is the heap the last collection found live, in bytes.
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}
