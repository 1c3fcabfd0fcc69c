package stream

import (
	"strings"
	"testing"
)

// TestReadDocuments: documents split at "---" lines; a marker line with
// nothing but a comment is a separator, one with content belongs to the
// document; "---x" and an indented "---" are not markers.
func TestReadDocuments(t *testing.T) {
	for _, tc := range []struct {
		name, in   string
		seps, docs []string
	}{
		{"no marker", "a: 1\n", []string{""}, []string{"a: 1\n"}},
		{"empty", "", []string{""}, []string{""}},
		{"leading marker", "---\na: 1\n---\nb: 2\n", []string{"---\n", "---\n"}, []string{"a: 1\n", "b: 2\n"}},
		{"text before the first marker", "# head\na: 1\n--- # two\nb: 2", []string{"", "--- # two\n"}, []string{"# head\na: 1\n", "b: 2"}},
		{"content on the marker line", "--- |\n  text\n---\t\r\nb: 2\r\n", []string{"", "---\t\r\n"}, []string{"--- |\n  text\n", "b: 2\r\n"}},
		{"not markers", "a: |\n  ---\n---x: 1\n", []string{""}, []string{"a: |\n  ---\n---x: 1\n"}},
		{"empty documents", "---\n---\n", []string{"---\n", "---\n"}, []string{"", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadDocuments(strings.NewReader(tc.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.Len() != len(tc.docs) {
				t.Fatalf("%d documents, want %d", d.Len(), len(tc.docs))
			}
			for i := range tc.docs {
				sep, _ := d.Separator(i)
				body, _ := d.Body(i)
				if string(sep) != tc.seps[i] || string(body) != tc.docs[i] {
					t.Errorf("document %d: separator %q body %q, want %q %q", i, sep, body, tc.seps[i], tc.docs[i])
				}
			}
		})
	}
}

// TestReadDocumentsMarked: Mark is asked about every line and each document
// is listed once.
func TestReadDocumentsMarked(t *testing.T) {
	in := "kind: Namespace\nname: Namespace\n---\nkind: Pod\n---\nkind: Namespace\n"
	d, err := ReadDocuments(strings.NewReader(in), Options{Mark: func(l []byte) bool { return strings.Contains(string(l), "Namespace") }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := d.Marked; len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("marked %v, want [0 2]", got)
	}
}
