package driver

import (
	"fmt"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
)

// yamlBreaks are the line breaks yaml.v3 knows besides LF and CRLF: a lone
// CR, NEL (U+0085), LS (U+2028) and PS (U+2029). It breaks a line at each
// of them in every context: in a comment, a plain or quoted scalar, a
// block scalar and between tokens.
var yamlBreaks = []string{"\r", "\u0085", "\u2028", "\u2029"}

// yamlEscapes are escapes of a double-quoted scalar: one of every class
// yaml.v3 reads (a character, a code of 2, 4 or 8 hex digits, a line
// break), and some it refuses ("\/", "\q", a short code).
var yamlEscapes = []string{`\0`, `\a`, `\b`, `\t`, "\\\t", `\n`, `\v`, `\f`, `\r`, `\e`, `\ `, `\"`, `\'`, `\\`, `\N`, `\_`, `\L`, `\P`,
	`\x41`, `\xe9`, `\u00e9`, `\u2028`, `\U0001F600`, "\\\n  ", `\/`, `\q`, `\x4`, `\u12`}

// scalarClasses are values for a key at column 0 or 2 that carry every
// line break of YAML in a plain, quoted and block scalar and in a
// comment, every escape class in a double-quoted scalar, and the values
// the writer writes otherwise than they came ("<<", "~", "null", a quoted
// empty string, "[]", "{}" as annotations): the fuzz targets' seeds for
// what the scans must decline or read as the parser does.
func scalarClasses() []string {
	values := []string{"<<", "~", "null", "''", "[]", "{}"}
	for _, b := range append([]string{"\n", "\r\n"}, yamlBreaks...) {
		values = append(values, "x"+b+"kind: Pod", "x # c"+b+"kind: Pod", "'x"+b+"y'", `"x`+b+`y"`, "|\n      x"+b+"kind: Pod")
	}
	for _, e := range yamlEscapes {
		values = append(values, `"x`+e+`y"`)
	}
	return values
}

// TestScanDeclinesYAMLBreaks: scan.Scan reads no document that holds one
// of yamlBreaks, and ScanItem no item. Each document below reads otherwise
// when the break is taken for an ordinary character: a kind the parser
// reads twice, a kind in what looks like a comment, and a Deployment whose
// kind sits between two breaks where the scan would read a ConfigMap.
func TestScanDeclinesYAMLBreaks(t *testing.T) {
	for _, b := range yamlBreaks {
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
