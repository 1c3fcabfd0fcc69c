package krmtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// CheckLog checks that a log's messages (or its findings') are one per
// want, each containing the want's parts (separated by "...") in order.
func CheckLog[T string | report.Finding](t testing.TB, what string, entries []T, want []string) {
	t.Helper()
	got := make([]string, len(entries))
	for i, e := range entries {
		got[i] = fmt.Sprint(e)
	}
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
