package cli

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: the binary raises the collector's target unless GOGC or
// GOMEMLIMIT is set, in which case it leaves both settings alone.
func TestTuneGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	const otherPercent, otherLimit = 150, 1 << 40
	for _, tc := range []struct {
		name      string
		env       map[string]string
		wantTuned bool
	}{
		{"no setting", nil, true},
		{"GOGC", map[string]string{"GOGC": "50"}, false},
		{"GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "1GiB"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(otherPercent)
			debug.SetMemoryLimit(otherLimit)
			tuneGC(func(k string) string { return tc.env[k] })
			gotPercent, gotLimit := debug.SetGCPercent(otherPercent), debug.SetMemoryLimit(-1)
			wantPercent, wantLimit := otherPercent, int64(otherLimit)
			if tc.wantTuned {
				wantPercent, wantLimit = gcPercent, gcLimit
			}
			if gotPercent != wantPercent || gotLimit != wantLimit {
				t.Errorf("GOGC %d, limit %d; want %d, %d", gotPercent, gotLimit, wantPercent, wantLimit)
			}
		})
	}
}

// TestLimitFor: the limit is the base up to 3/4 of it live, then three
// times the live heap. That the collector follows it is TestFollowLiveHeap
// (gc_bench_test.go), which `make bench` runs: it sleeps between
// collections and sets the process's memory limit.
func TestLimitFor(t *testing.T) {
	for _, tc := range []struct{ base, live, want int64 }{
		{96, 0, 96}, {96, 48, 96}, {96, 72, 96}, {96, 73, 219}, {96, 500, 1500},
	} {
		if got := limitFor(tc.base, tc.live); got != tc.want {
			t.Errorf("limitFor(%d, %d) = %d, want %d", tc.base, tc.live, got, tc.want)
		}
	}
}
