package preset_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset/internal/gentable/tables"
)

// acmeEntry is the test entry transformer/config's TestExtraEntry adds to
// the catalog.
const acmeEntry = "../../transformer/config/testdata/catalog/acme-proxy.yaml"

// TestExtraEntryTables: a sidecar added to the catalog as one more file
// (transformer/config's TestExtraEntry runs it) cites its sources, and the
// generated tables list it: no Go file names it.
func TestExtraEntryTables(t *testing.T) {
	data, err := os.ReadFile(acmeEntry)
	if err != nil {
		t.Fatal(err)
	}
	acme, err := preset.ReadEntry(data)
	if err != nil {
		t.Fatal(err)
	}
	if errs := acme.Check(); len(errs) > 0 {
		t.Fatalf("%s: %v", acmeEntry, errs)
	}
	checkSources(t, []preset.Entry{acme})
	entries := append(slices.Clone(preset.Builtin()), acme)
	slices.SortFunc(entries, func(a, b preset.Entry) int { return strings.Compare(a.Name, b.Name) })
	catalog, err := tables.Catalog(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `acme-proxy` | Acme proxy |", "## `acme-proxy`", "`example/acme-proxy@v1.2.0 cmd/proxy/wait.go`"} {
		if !strings.Contains(catalog, want) {
			t.Errorf("docs/catalog.md as generated lacks %q", want)
		}
	}
	if !strings.Contains(tables.Table(entries), "| `acme-proxy` |") {
		t.Errorf("the README table as generated lacks acme-proxy")
	}
}
