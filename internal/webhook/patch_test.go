package webhook

import (
	"os"
	"path/filepath"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

// TestWebhookPatchOverCorpus: for every item the driver's golden cases
// edit (items.yaml against expected.yaml), the patch from the one to the
// other, applied with another JSON Patch implementation, gives the
// expected item; an item left as it was gives no patch.
func TestWebhookPatchOverCorpus(t *testing.T) {
	cases, err := filepath.Glob("../driver/testdata/*/items.yaml")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	edited := 0
	for _, in := range cases {
		from, to := readItems(t, in), readItems(t, filepath.Join(filepath.Dir(in), "expected.yaml"))
		if to == nil || len(from) != len(to) {
			continue
		}
		for i := range from {
			a, errA := yamlio.AppendJSON(nil, from[i].YNode())
			b, errB := yamlio.AppendJSON(nil, to[i].YNode())
			if errA != nil || errB != nil || duplicateKey(from[i].YNode()) {
				continue // not JSON: no admitted object is so
			}
			p, err := jsonPatch(from[i].YNode(), to[i].YNode())
			if err != nil {
				t.Fatalf("%s item %d: %v", in, i, err)
			}
			if p == nil {
				if !jsonpatch.Equal(a, b) {
					t.Errorf("%s item %d: no patch for a changed item", in, i)
				}
				continue
			}
			edited++
			ops, err := jsonpatch.DecodePatch(p)
			if err != nil {
				t.Fatalf("%s item %d: %v\n%s", in, i, err, p)
			}
			got, err := ops.Apply(a)
			if err != nil {
				t.Fatalf("%s item %d: %v\n%s", in, i, err, p)
			}
			if !jsonpatch.Equal(got, b) {
				t.Errorf("%s item %d: patched\n%s\nwant\n%s", in, i, got, b)
			}
		}
	}
	if edited < 20 {
		t.Errorf("only %d edited items: the corpus proves little", edited)
	}
}

// readItems reads a golden case's ResourceList items, nil when the file
// is missing or not a ResourceList.
func readItems(t *testing.T, path string) []*yaml.RNode {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	items, err := (&kio.ByteReader{Reader: f}).Read()
	if err != nil {
		return nil
	}
	return items
}

// duplicateKey reports whether a mapping at or under n has a key twice.
func duplicateKey(n *yaml.Node) bool {
	if n.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if seen[n.Content[i].Value] {
				return true
			}
			seen[n.Content[i].Value] = true
		}
	}
	for _, c := range n.Content {
		if duplicateKey(c) {
			return true
		}
	}
	return false
}

// TestPatchMovesReorderedItems: a list of the same named items in another
// order is put in order with "move" operations and its items are then
// compared; a list whose names repeat or change is replaced whole.
func TestPatchMovesReorderedItems(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{`{"c":[{"name":"app","image":"a"},{"name":"proxy","image":"p"}]}`,
			`{"c":[{"name":"proxy","image":"p","x":1},{"name":"app","image":"a"}]}`,
			`[{"op":"move","from":"/c/1","path":"/c/0"},{"op":"add","path":"/c/0/x","value":1}]`},
		{`{"c":[{"name":"a"},{"name":"b"},{"name":"c"}]}`,
			`{"c":[{"name":"c"},{"name":"a"},{"name":"b"}]}`,
			`[{"op":"move","from":"/c/2","path":"/c/0"}]`},
		{`{"c":[{"name":"a"},{"name":"a"}]}`, `{"c":[{"name":"a","x":1},{"name":"a"}]}`,
			`[{"op":"add","path":"/c/0/x","value":1}]`},
		{`{"c":[{"name":"a"},{"name":"b"}]}`, `{"c":[{"name":"b"},{"name":"c"}]}`,
			`[{"op":"replace","path":"/c","value":[{"name":"b"},{"name":"c"}]}]`},
		{`{"c":[{"name":"a"},{"name":"a"},{"name":"b"}]}`, `{"c":[{"name":"b"},{"name":"a"},{"name":"a"}]}`,
			`[{"op":"replace","path":"/c","value":[{"name":"b"},{"name":"a"},{"name":"a"}]}]`},
	} {
		from, err := yamlio.DecodeJSON([]byte(tc.from))
		if err != nil {
			t.Fatal(err)
		}
		to, err := yamlio.DecodeJSON([]byte(tc.to))
		if err != nil {
			t.Fatal(err)
		}
		p, err := jsonPatch(from, to)
		if err != nil || string(p) != tc.want {
			t.Errorf("%s to %s: %s (%v), want %s", tc.from, tc.to, p, err, tc.want)
			continue
		}
		ops, err := jsonpatch.DecodePatch(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ops.Apply([]byte(tc.from))
		if err != nil || !jsonpatch.Equal(got, []byte(tc.to)) {
			t.Errorf("%s patched with %s: %s (%v), want %s", tc.from, p, got, err, tc.to)
		}
	}
}
