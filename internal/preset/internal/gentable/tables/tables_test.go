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

// TestPagesCurrent: README.md and docs/catalog.md hold the tables the
// catalog renders.
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
			t.Errorf("%s: the catalog table differs from the catalog: run make catalog-table", p.Path)
		}
	}
}

// TestReplace: only the text between the markers changes; a page without
// them, or with two, is an error.
func TestReplace(t *testing.T) {
	page := "intro\n" + Begin + "\nold\n" + End + "\nrest\n"
	got, err := Replace(page, "new\n")
	if want := "intro\n" + Begin + "\n\nnew\n\n" + End + "\nrest\n"; err != nil || got != want {
		t.Errorf("Replace = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"intro\n", Begin + "\n", page + page} {
		if _, err := Replace(bad, "new\n"); err == nil {
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
