package tables

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// root is the repository's root, from this package's directory.
const root = "../../../../.."

// TestPagesCurrent: README.md, docs/catalog.md and docs/configuration.md
// hold the tables the catalog and the config's defaults render.
func TestPagesCurrent(t *testing.T) {
	pages, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		have, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, p.Text) {
			t.Errorf("%s: a generated table differs from the catalog or the config's defaults: run make catalog-table", p.Path)
		}
	}
}

// TestReplace: only the text between the markers changes; a page without
// them, or with two, is an error.
func TestReplace(t *testing.T) {
	page := "intro\n" + Begin + "\nold\n" + End + "\nrest\n"
	got, err := Replace(page, Begin, End, "new\n")
	if want := "intro\n" + Begin + "\n\nnew\n\n" + End + "\nrest\n"; err != nil || got != want {
		t.Errorf("Replace = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"intro\n", Begin + "\n", page + page} {
		if _, err := Replace(bad, Begin, End, "new\n"); err == nil {
			t.Errorf("Replace(%q) gives no error", bad)
		}
	}
}

// TestCells: a "|" in a cell is escaped, so that every row has the
// header's columns.
func TestCells(t *testing.T) {
	e := preset.Entry{Name: "x", Title: "a | b", Containers: []preset.Named{{Name: "c"}}}
	table := Table([]preset.Entry{e})
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if !strings.Contains(lines[2], `a \| b`) {
		t.Errorf("row %q: the | is not escaped", lines[2])
	}
	want := strings.Count(lines[0], "|")
	if got := strings.Count(lines[2], "|") - strings.Count(lines[2], `\|`); got != want {
		t.Errorf("row %q has %d column bars, the header %d", lines[2], got, want)
	}
}

// TestCite: each source key becomes its repository at its version; a part
// without a key goes on with the citation before it; an unknown key is an error.
func TestCite(t *testing.T) {
	sources := map[string]preset.Source{"a": {Repository: "o/a", Version: "v1"}, "b": {Repository: "o/b", Version: "abc"}}
	got, err := cite(sources, "a x.go (one; two); b y.go")
	if want := "`o/a@v1 x.go (one; two)`; `o/b@abc y.go`"; err != nil || got != want {
		t.Errorf("cite = %q, %v; want %q", got, err, want)
	}
	if _, err := cite(sources, "c z.go"); err == nil {
		t.Error("an unknown key gives no error")
	}
}

// TestDefaults: each preset's row says what Load fills in and which values
// it takes: annotate for an injector the function annotates for, and
// healthCheck only where the entry switches the endpoint on.
func TestDefaults(t *testing.T) {
	table, err := Defaults([]string{"linkerd", "envoy", "cloud-sql-proxy", preset.None})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `linkerd` | `linkerd-proxy` | `annotate` (or `skip`, `fail`) | not taken | `[\"/bin/sleep\"]` |",
		"| `envoy` | `envoy` | `skip` (or `fail`) | not taken |",
		"| `cloud-sql-proxy` | `cloud-sql-proxy` | `skip` (or `fail`) | `enable` (or `require`) | none: the sleep action only |",
		"| `none` | none: give one | `skip` (or `fail`) |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the defaults table has no row %q:\n%s", want, table)
		}
	}
}
