package fn

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
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

// TestFollowLiveHeap: after a collection that finds more than 3/4 of the
// base limit live, the soft limit is three times the live heap; once someone
// else sets the limit, it is left alone.
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

func TestLimitFor(t *testing.T) {
	for _, tc := range []struct{ base, live, want int64 }{
		{96, 0, 96}, {96, 48, 96}, {96, 72, 96}, {96, 73, 219}, {96, 500, 1500},
	} {
		if got := limitFor(tc.base, tc.live); got != tc.want {
			t.Errorf("limitFor(%d, %d) = %d, want %d", tc.base, tc.live, got, tc.want)
		}
	}
}
