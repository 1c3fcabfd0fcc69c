package shapes

import "sigs.k8s.io/kustomize/kyaml/yaml"

// definition names one anchor of the input: the item and the anchor's
// place among that item's anchors, in document order.
type definition struct{ item, ordinal int }

// KeepAliases makes the aliases of a list of items written one after the
// other mean what they meant in the input. in holds the input items, out
// the items to write: each either in the input's shape (the same node, or
// a copy that keeps its anchors and aliases), expanded by Expand, with no
// anchor and no alias left, or a List whose entries are each one or the
// other. An alias in an item of the input's shape whose
// anchor was in an expanded item (or whose name a later anchor of an
// expanded item took over) would refer to nothing, or to another node: it
// is replaced, in a copy of its item, by a copy of what it referred to.
// out is updated in place. On an error, index is the item that could not
// be expanded.
func KeepAliases(in, out []*yaml.RNode) (index int, err error) {
	if !anyExpanded(in, out) {
		return 0, nil
	}
	inDefs, outDefs := map[string]definition{}, map[string]definition{}
	for i := range out {
		stale := map[*yaml.Node]bool{}
		ordinal := 0
		if !anchored(out[i].YNode()) {
			visit(in[i].YNode(), func(n *yaml.Node) {
				if n.Anchor != "" {
					inDefs[n.Anchor] = definition{i, ordinal}
					ordinal++
				}
			})
			continue
		}
		visit(out[i].YNode(), func(n *yaml.Node) {
			switch {
			case n.Kind == yaml.AliasNode:
				d, ok := inDefs[n.Value]
				if od, written := outDefs[n.Value]; !ok || !written || od != d {
					stale[n] = true
				}
			case n.Anchor != "":
				inDefs[n.Anchor] = definition{i, ordinal}
				outDefs[n.Anchor] = definition{i, ordinal}
				ordinal++
			}
		})
		if len(stale) == 0 {
			continue
		}
		c, err := replaceAliases(out[i].YNode(), stale)
		if err != nil {
			return i, err
		}
		out[i] = yaml.NewRNode(c)
	}
	return 0, nil
}

// anyExpanded reports whether an item with anchors is written otherwise
// than it came: expanded, or a List with an entry expanded and anchors
// left in others. Only then can an alias of another item go stale.
func anyExpanded(in, out []*yaml.RNode) bool {
	for i := range out {
		if out[i] != in[i] && anchored(in[i].YNode()) {
			return true
		}
	}
	return false
}

// anchored reports whether the tree holds an anchor or an alias.
func anchored(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if anchored(c) {
			return true
		}
	}
	return false
}

// visit calls f on every node in document order; aliases are not followed.
func visit(n *yaml.Node, f func(*yaml.Node)) {
	f(n)
	for _, c := range n.Content {
		visit(c, f)
	}
}

// replaceAliases copies the tree, with the stale aliases expanded.
func replaceAliases(n *yaml.Node, stale map[*yaml.Node]bool) (*yaml.Node, error) {
	if stale[n] {
		return Expand(n)
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, child := range n.Content {
		cc, err := replaceAliases(child, stale)
		if err != nil {
			return nil, err
		}
		c.Content[i] = cc
	}
	return &c, nil
}
