package scan_test

import (
	"fmt"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/yamltest"
)

// TestScanDeclinesYAMLBreaks: scan.Scan reads no document that holds one
// of yamltest.Breaks, and ScanItem no item. Each document below reads otherwise
// when the break is taken for an ordinary character: a kind the parser
// reads twice, a kind in what looks like a comment, and a Deployment whose
// kind sits between two breaks where the scan would read a ConfigMap.
func TestScanDeclinesYAMLBreaks(t *testing.T) {
	for _, b := range yamltest.Breaks {
		for _, doc := range []string{
			"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: x" + b + "kind: Pod\n",
			"apiVersion: v1\nkind: ConfigMap # c" + b + "metadata: 1\n",
			"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n    x" + b + "kind: Pod\n",
			"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x" + b + "y'\n",
			"apiVersion: apps/v1\n# c" + b + "kind: Deployment" + b + "x: \"\nkind: ConfigMap\n# " + b + "\"\n",
		} {
			if s, ok := scan.Scan([]byte(doc)); ok {
				t.Errorf("Scan reads %+v in %q", s, doc)
			}
			checkScan(t, doc)
			item := "- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: x" + b + "y\n"
			if s, ok := scan.ScanItem([]byte(item)); ok {
				t.Errorf("ScanItem reads %+v in %q", s, item)
			}
		}
	}
}

// TestScanEscapes: Scan reads a double-quoted scalar only when the parser
// takes its escape, for every ASCII character after the backslash ("\/",
// which JSON has, among them).
func TestScanEscapes(t *testing.T) {
	for c := byte(0x20); c < 0x7f; c++ {
		doc := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\\%cy\"\n", c)
		checkScan(t, doc)
	}
	if _, ok := scan.Scan([]byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\\/y\"\n")); ok {
		t.Error(`Scan reads the "\/" escape, which the parser refuses`)
	}
}

// TestScanItemMergeValue: a plain "<<" value parses to a merge tag, which
// the writer writes "!!merge <<": ScanItem does not read it as text the
// writer writes.
func TestScanItemMergeValue(t *testing.T) {
	for _, item := range []string{
		"- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: <<\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a:\n    - <<\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: [<<]\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: {b: <<}\n",
	} {
		checkScanItem(t, item)
	}
}

// TestScanItemDroppedAnnotations: kio.ByteWriter drops metadata.annotations
// whatever its value but a mapping or sequence with entries; ScanItem
// reads none of those values as text the writer writes.
func TestScanItemDroppedAnnotations(t *testing.T) {
	for _, value := range []string{"~", "null", "Null", "''", `""`, "a", "[]", "{}", "1", "false", "|\n      x"} {
		item := "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations: " + value + "\n  data:\n    a: b\n"
		checkScanItem(t, item)
		if _, ok := scan.ScanItem([]byte(item)); ok {
			t.Errorf("ScanItem reads annotations %s", value)
		}
	}
}

// TestScanReads: Scan reads the top-level apiVersion and kind of a
// document in its subset, and declines one outside it; ScanItem reads an
// item's the same way.
func TestScanReads(t *testing.T) {
	for _, c := range []struct {
		doc              string
		apiVersion, kind string
		ok               bool
	}{
		{configMap, "v1", "ConfigMap", true},
		{"kind: Secret # c\napiVersion: v1\ndata:\n  a: |\n    kind: Pod\n", "v1", "Secret", true},
		{"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 1\n  a: 2\n", "", "", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: a\n", "", "", false},
		{"apiVersion: v1\nkind: ConfigMap\nx: &a 1\n", "", "", false},
		{`{"apiVersion": "v1", "kind": "ConfigMap"}` + "\n", "", "", false},
	} {
		s, ok := scan.Scan([]byte(c.doc))
		if ok != c.ok || s.APIVersion != c.apiVersion || s.Kind != c.kind {
			t.Errorf("Scan = %+v, %v; want %q %q, %v:\n%s", s, ok, c.apiVersion, c.kind, c.ok, c.doc)
		}
	}
	s, ok := scan.ScanItem([]byte("- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n"))
	if !ok || s.APIVersion != "apps/v1" || s.Kind != "Deployment" {
		t.Errorf("ScanItem = %+v, %v", s, ok)
	}
	if s, ok := scan.ScanItem([]byte("- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: \"\\x41\"\n")); ok {
		t.Errorf("ScanItem reads an item with an escape, which the writer writes otherwise: %+v", s)
	}
}
