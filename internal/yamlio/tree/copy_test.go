package tree_test

import (
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// TestCopy checks that Copy gives the tree rn.Copy gives, shares no node
// or content list with the original, and keeps aliases pointing where
// they did.
func TestCopy(t *testing.T) {
	rn := yaml.MustParse(`# head
a: &x
  b: [1, 2, {c: d}] # line
  e: ""
f: *x
g:
- h
- - i
  - {}
# foot
`)
	for _, in := range []*yaml.RNode{rn, yaml.NewRNode(rn.YNode()), yaml.NewRNode(rn.YNode().Content[1])} {
		got := tree.Copy(in)
		if !reflect.DeepEqual(got.Document(), in.Copy().Document()) {
			t.Fatalf("Copy gave\n%s\nrn.Copy\n%s", got.MustString(), in.MustString())
		}
		originals := map[*yaml.Node]bool{}
		var walk func(n *yaml.Node, f func(*yaml.Node))
		walk = func(n *yaml.Node, f func(*yaml.Node)) {
			f(n)
			for _, c := range n.Content {
				walk(c, f)
			}
		}
		walk(in.Document(), func(n *yaml.Node) { originals[n] = true })
		walk(got.Document(), func(n *yaml.Node) {
			if originals[n] {
				t.Fatalf("the copy shares the node %q", n.Value)
			}
			if n.Kind == yaml.AliasNode && !originals[n.Alias] {
				t.Fatalf("the copy's alias points elsewhere than the original's")
			}
		})
		got.YNode().Content[0].Value = "changed"
		if in.YNode().Content[0].Value == "changed" {
			t.Fatal("a change to the copy reached the original")
		}
	}
	if tree.Copy(nil) != nil {
		t.Error("Copy(nil) is not nil")
	}
}
