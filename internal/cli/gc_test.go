package cli

import (
	"runtime/debug"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/webhook"
)

// TestTuneGC: the binary, and the webhook verb in its place, raise the
// collector's target unless GOGC or GOMEMLIMIT is set, in which case they
// leave both settings alone.
func TestTuneGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	const otherPercent, otherLimit = 150, 1 << 40
	for _, tc := range []struct {
		name string
		tune func(func(string) string)
		env  map[string]string
		// The settings it makes; 0 when it leaves them alone.
		percent int
		limit   int64
	}{
		{"no setting", tuneGC, nil, gcPercent, gcLimit},
		{"GOGC", tuneGC, map[string]string{"GOGC": "50"}, 0, 0},
		{"GOMEMLIMIT", tuneGC, map[string]string{"GOMEMLIMIT": "1GiB"}, 0, 0},
		{"webhook", webhook.TuneCollector, nil, webhook.GCPercent, webhook.GCLimit},
		{"webhook GOGC", webhook.TuneCollector, map[string]string{"GOGC": "50"}, 0, 0},
		{"webhook GOMEMLIMIT", webhook.TuneCollector, map[string]string{"GOMEMLIMIT": "1GiB"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(otherPercent)
			debug.SetMemoryLimit(otherLimit)
			tc.tune(func(k string) string { return tc.env[k] })
			gotPercent, gotLimit := debug.SetGCPercent(otherPercent), debug.SetMemoryLimit(-1)
			wantPercent, wantLimit := otherPercent, int64(otherLimit)
			if tc.percent != 0 {
				wantPercent, wantLimit = tc.percent, tc.limit
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
