package tree_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// TestLookupAgreesWithKyaml holds Lookup to rn.Pipe(yaml.Lookup(...)) on
// every path through a document with nulls, aliases, lists, odd keys and
// scalars on the way.
func TestLookupAgreesWithKyaml(t *testing.T) {
	doc := yaml.MustParse(`
a:
  b:
    c: 1
    d: null
    e:
  list:
  - name: x
    v: 1
  - name: y
  "0": zero
  "-": dash
  " s": spaced
  "+1": plus
  99999999999999999999: big
  anchor: &m {k: v}
  alias: *m
  scalar: text
  dup: first
  dup: second
`)
	parts := []string{"a", "b", "c", "d", "e", "f", "list", "0", "1", "-", "[name=y]", "v", "name", " s", "s", "+1", "99999999999999999999", "anchor", "alias", "k", "scalar", "dup", "", "*"}
	var paths [][]string
	for _, p1 := range parts {
		paths = append(paths, []string{p1})
		for _, p2 := range parts {
			paths = append(paths, []string{p1, p2})
			for _, p3 := range []string{"c", "k", "v", "name", "0"} {
				paths = append(paths, []string{p1, p2, p3})
			}
		}
	}
	paths = append(paths, nil)
	for _, rn := range []*yaml.RNode{doc, nil, yaml.NewRNode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc.YNode()}})} {
		for _, path := range paths {
			want, wantErr := rn.Pipe(yaml.Lookup(path...))
			got, gotErr := tree.Lookup(rn, path...)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%q: error %v, kyaml %v", path, gotErr, wantErr)
			}
			if want.YNode() != got.YNode() {
				t.Fatalf("%q: found %v, kyaml %v", path, got.YNode(), want.YNode())
			}
		}
	}
}
