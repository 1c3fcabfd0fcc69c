package emit_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
)

// TestEncodedPiecesMatchByteWriter: an item parsed from a list's text and
// encoded, inside a list, reads as kio.ByteWriter writes it.
func TestEncodedPiecesMatchByteWriter(t *testing.T) {
	item, err := yamlio.ParseItem([]byte("- # head\n  kind: Pod\n  metadata: {name: p, annotations: {}}\n  spec:\n    containers:\n    - name: a # line\n"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := emit.ItemText(item)
	if err != nil {
		t.Fatal(err)
	}
	if want := "- # head\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: a # line\n"; string(text) != want {
		t.Errorf("ItemText = %q, want %q", text, want)
	}
	var out bytes.Buffer
	if _, err := (emit.List{Items: bytes.NewReader(text), Count: 1, Results: strings.NewReader("- message: m\n")}).WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	want := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + string(text) + "results:\n- message: m\n"
	if out.String() != want {
		t.Errorf("List = %q, want %q", out.String(), want)
	}
	var _ io.WriterTo = emit.List{}
}
