package yamlio

import (
	"bytes"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
)

// TestOutput: what an Output is written, past its memory limit, comes out
// as emit.List writes the same pieces, after a Reset only what followed it,
// and WriteTo writes the items alone.
func TestOutput(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	item, results := []byte("- apiVersion: v1\n  kind: ConfigMap\n"), []byte("- message: m\n  severity: info\n")
	o := NewOutput(8)
	defer o.Close()
	for _, p := range [][]byte{[]byte("- dropped: 1\n"), item} {
		if _, err := o.Write(p); err != nil {
			t.Fatal(err)
		}
		if _, err := o.WriteResults(p); err != nil {
			t.Fatal(err)
		}
		if p[2] == 'd' {
			o.Reset()
		}
	}
	if _, err := o.WriteResults(results); err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	var got, want, items bytes.Buffer
	if _, err := o.WriteList(&got, 1, nil); err != nil {
		t.Fatal(err)
	}
	both := append(append([]byte{}, item...), results...)
	if _, err := (emit.List{Items: bytes.NewReader(item), Count: 1, Results: bytes.NewReader(both)}).WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("WriteList wrote\n%s\nwant\n%s", got.String(), want.String())
	}
	if _, err := o.WriteTo(&items); err != nil || items.String() != string(item) {
		t.Errorf("WriteTo wrote %q, %v; want %q", items.String(), err, item)
	}
}
