package yamlio

import (
	"io"
	"strings"
	"testing"
)

// TestDecodeOne: one document parses; none is io.EOF; two are
// ErrMoreDocuments; a parser error is one line.
func TestDecodeOne(t *testing.T) {
	if doc, err := DecodeOne(strings.NewReader("# head\na: 1\n")); err != nil || len(doc.Content) != 1 {
		t.Errorf("one document: %v", err)
	}
	if _, err := DecodeOne(strings.NewReader("# only a comment\n\n")); err != io.EOF {
		t.Errorf("no document: %v, want io.EOF", err)
	}
	if _, err := DecodeOne(strings.NewReader("a: 1\n---\nb: 2\n")); err != ErrMoreDocuments {
		t.Errorf("two documents: %v, want ErrMoreDocuments", err)
	}
	_, err := DecodeOne(strings.NewReader("a: [\nb: {\n"))
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad YAML: %q, want a one-line error", err)
	}
}
