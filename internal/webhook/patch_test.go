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
