package fn

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
