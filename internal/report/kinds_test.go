package report_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestKindsDocumented: docs/results.md lists every kind of finding, in
// order, and no other.
func TestKindsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []report.Kind
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllSubmatch(b, -1) {
		documented = append(documented, report.Kind(m[1]))
	}
	if !slices.Equal(documented, report.Kinds()) {
		t.Errorf("docs/results.md lists the kinds %q, want %q", documented, report.Kinds())
	}
}
