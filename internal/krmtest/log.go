package krmtest

import (
	"strings"
	"testing"
)

// CheckLog checks that a log has one entry per want, each containing the
// want's parts (separated by "...") in order.
func CheckLog(t testing.TB, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %q, want %d matching %q", what, got, len(want), want)
		return
	}
	for i := range want {
		rest := got[i]
		for _, part := range strings.Split(want[i], "...") {
			j := strings.Index(rest, part)
			if j < 0 {
				t.Errorf("%s[%d] = %q, want it to contain %q", what, i, got[i], strings.Split(want[i], "..."))
				break
			}
			rest = rest[j+len(part):]
		}
	}
}
