package report_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestKindsDocumented: docs/results.md lists every kind of finding, in
// order, and no other, each with its anchor (a report's help link) and
// the kind's Description.
func TestKindsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []report.Kind
	for _, m := range regexp.MustCompile("(?m)^\\| <a id=\"kind-([a-z-]+)\"></a>`([a-z-]+)` \\| (.*) \\|$").FindAllSubmatch(b, -1) {
		kind := report.Kind(m[2])
		documented = append(documented, kind)
		if string(m[1]) != string(kind) || string(m[3]) != kind.Description() || kind.Title() == "" {
			t.Errorf("docs/results.md: the row of %s has the anchor kind-%s and the text %q; want kind-%s and %q, and a title", kind, m[1], m[3], kind, kind.Description())
		}
	}
	if !slices.Equal(documented, report.Kinds()) {
		t.Errorf("docs/results.md lists the kinds %q, want %q", documented, report.Kinds())
	}
}
