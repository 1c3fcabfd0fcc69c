// Package list reads the Lists that `kubectl get -o yaml` and `-o json`
// print (kind List, or a typed list such as DeploymentList) and builds
// them again around edited entries.
package list

import (
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// itemsField is the List's field that holds its entries.
const itemsField = "items"

// Items returns the entries of a List and true, or nil and false for any
// other item. An item is a List when its kind is List or ends in List
// (DeploymentList, PodList, a custom resource's RolloutList), its
// apiVersion is not a KRM function's own (config.kubernetes.io, whose
// ResourceList is a function's input, not resources), and it has an items
// field that is a sequence. The entries are the sequence's nodes, not
// copies; Items does not check that they are mappings.
func Items(item *yaml.RNode) ([]*yaml.Node, bool) {
	n := item.YNode()
	if n.Kind != yaml.MappingNode || !strings.HasSuffix(item.GetKind(), "List") ||
		strings.HasPrefix(item.GetApiVersion(), "config.kubernetes.io/") {
		return nil, false
	}
	seq := tree.Value(n, itemsField)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, false
	}
	return seq.Content, true
}

// Without returns a shallow copy of the List without its items field: what
// is left to check of the List itself.
func Without(item *yaml.RNode) *yaml.RNode {
	n := *item.YNode()
	n.Content = nil
	c := item.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value != itemsField {
			n.Content = append(n.Content, c[i], c[i+1])
		}
	}
	return yaml.NewRNode(&n)
}

// With returns the List with entries in place of its items: a new mapping
// whose metadata is a copy (so that the copy's annotations can change
// without changing the List's) and whose items sequence is a new node
// holding entries, with the sequence's style and comments. Every other
// field is the List's own node. The List itself is not changed.
func With(item *yaml.RNode, entries []*yaml.Node) *yaml.RNode {
	n := *item.YNode()
	n.Content = make([]*yaml.Node, len(n.Content))
	copy(n.Content, item.YNode().Content)
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case itemsField:
			seq := *n.Content[i+1]
			seq.Content = entries
			n.Content[i+1] = &seq
		case yaml.MetadataField:
			n.Content[i+1] = yaml.CopyYNode(n.Content[i+1])
		}
	}
	return yaml.NewRNode(&n)
}
