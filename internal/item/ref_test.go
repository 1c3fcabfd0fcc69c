package item

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestRefAsGetMeta: Ref reads every item of the golden inputs, and items
// whose metadata is odd, as a ref of kyaml's GetMeta would.
func TestRefAsGetMeta(t *testing.T) {
	var items []*yaml.RNode
	files, _ := filepath.Glob("../driver/testdata/*/items.yaml")
	if len(files) < 50 {
		t.Fatalf("%d golden inputs", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
		if err != nil {
			continue // a golden input of bad YAML
		}
		items = append(items, nodes...)
	}
	for _, s := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n  annotations: {config.kubernetes.io/path: x, config.kubernetes.io/index: '2'}\n",
		"kind: Pod\nmetadata: null\n", "kind: Pod\nmetadata: x\n", "kind: Pod\nmetadata: {}\n", "apiVersion: ''\nkind: []\n",
		"metadata:\n  annotations: [a, b]\n  namespace: ~\n", "metadata:\n  annotations: x\n  name: {a: 1}\n",
		"metadata:\n  annotations:\n    config.kubernetes.io/path: ~\n    internal.config.kubernetes.io/path: p\n    config.kubernetes.io/origin: |\n      path: o.yaml\n",
		"metadata:\n  annotations:\n    config.kubernetes.io/index: '1'\n    config.kubernetes.io/index: '3'\n    config.kubernetes.io/path: q\n",
		"null\n", "[1]\n",
	} {
		n, err := yaml.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, n, yaml.NewRNode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n.YNode()}}))
	}
	for _, item := range items {
		meta, _ := item.GetMeta()
		wantRef, wantFile := RefOf(meta)
		gotRef, gotFile := Ref(item)
		if !reflect.DeepEqual(gotRef, wantRef) || !reflect.DeepEqual(gotFile, wantFile) {
			s, _ := item.String()
			t.Errorf("%s: Ref %+v %+v, GetMeta's %+v %+v", s, gotRef, gotFile, wantRef, wantFile)
		}
	}
	t.Logf("%d items", len(items))
}
