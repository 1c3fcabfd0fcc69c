package fn

import "runtime/debug"

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
	// stream.MemoryLimit and the items in flight), whatever the input size:
	// 10,000 workloads peak under 100 MiB. At 80 MiB the collector runs
	// often enough to cost a fifth more CPU time; at 96 MiB it costs none
	// measurable.
	gcLimit = 96 << 20
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
}
