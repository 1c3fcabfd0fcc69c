package explain

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// listItems returns the items with each List replaced by its items, in
// order: the function reads a kind: List, and a typed list such as
// DeploymentList (kubectl get -o yaml), as the resources it holds. An
// entry of a List that is not a mapping is no resource and is left out.
func listItems(items []*yaml.RNode) []*yaml.RNode {
	var out []*yaml.RNode
	for _, item := range items {
		entries := listEntries(item)
		if entries == nil {
			out = append(out, item)
			continue
		}
		for _, n := range entries.Content {
			if n.Kind == yaml.MappingNode {
				out = append(out, yaml.NewRNode(n))
			}
		}
	}
	return out
}

// listEntries returns the items sequence of a List, or nil for any other
// item.
func listEntries(item *yaml.RNode) *yaml.Node {
	if !strings.HasSuffix(item.GetKind(), "List") {
		return nil
	}
	f := item.Field("items")
	if f == nil || f.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	return f.Value.YNode()
}
