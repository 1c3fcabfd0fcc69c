package driver_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
)

// editedBody is the body of a workload the default config edits, without its
// apiVersion and kind.
const editedBody = "metadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n      - name: linkerd-proxy\n"

// TestPlainStreamYAMLBreaks: a lone CR, NEL, LS and PS break lines for the
// parser wherever they are, so the plain stream may neither copy through a
// document they hide a kind in, nor leave out of a document's content
// what follows one in a comment before it, after its "---" or on its "..."
// line: each stream below is edited or refused, as the parser reads it.
func TestPlainStreamYAMLBreaks(t *testing.T) {
	for _, b := range []string{"\r", "\u0085", "\u2028", "\u2029"} {
		for name, c := range map[string]struct {
			in   string
			edit bool
		}{
			"kind between breaks": {"apiVersion: apps/v1\n" + editedBody + "# c" + b + "kind: Deployment" + b + "x: \"\nkind: ConfigMap\n# " + b + "\"\n", true},
			"kind twice":          {"apiVersion: apps/v1\nkind: ConfigMap\ndata:\n  a: x" + b + "kind: Deployment\n", false},
			"comment before":      {"# c" + b + "kind: Pod\napiVersion: apps/v1\nkind: Deployment\n" + editedBody, false},
			"after the marker":    {"--- # c" + b + "kind: Pod\napiVersion: apps/v1\nkind: Deployment\n" + editedBody, false},
			"on the end line":     {"apiVersion: v1\nkind: ConfigMap\n... # c" + b + "kind: Pod\napiVersion: apps/v1\nkind: Deployment\n" + editedBody, false},
		} {
			var out bytes.Buffer
			_, err := driver.PlainStream(nil, strings.NewReader(c.in), &out)
			switch {
			case err != nil && c.edit:
				t.Errorf("%s %q: %v", name, b, err)
			case err == nil && !c.edit:
				t.Errorf("%s %q: no error, the parser reads a kind twice or another document:\n%q", name, b, out.String())
			case err == nil && !strings.Contains(out.String(), "linkerd-await"):
				t.Errorf("%s %q: the Deployment is not edited:\n%q", name, b, out.String())
			}
		}
	}
}

// TestPlainStreamNamespaceAcrossReads: the Namespace pre-pass sees the word
// "Namespace" wherever it is in a line longer than the reader's buffer,
// across the cut between two reads too: the workload of a Namespace
// annotated to skip is left alone.
func TestPlainStreamNamespaceAcrossReads(t *testing.T) {
	const workload = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: pay}\nspec: {template: {spec: {containers: [{name: app}, {name: linkerd-proxy}]}}}\n"
	head := `{apiVersion: v1, metadata: {name: pay, annotations: {sidecar-lifecycle.dev/skip: "true", note: "`
	for _, at := range []int{1 << 16, 1<<16 - 1, 1<<16 - 4, 1<<16 - 8, 1<<16 + 1, 3 << 16} {
		// The word "Namespace" starts at at-4: the read ends inside it.
		pad := at - 4 - len(head) - len(`"}}, kind: `)
		ns := head + strings.Repeat("x", pad) + `"}}, kind: Namespace}` + "\n"
		if i := strings.Index(ns, "Namespace"); i != at-4 {
			t.Fatalf("the word is at %d", i)
		}
		in := "---\n" + workload + "---\n" + ns
		var out bytes.Buffer
		if _, err := driver.PlainStream(nil, strings.NewReader(in), &out); err != nil || out.String() != in {
			t.Errorf("word at %d: err %v; the skipped namespace's workload changed: %v", at-4, err, out.String() != in)
		}
	}
}
