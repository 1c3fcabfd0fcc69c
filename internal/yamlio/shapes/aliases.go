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
	var a Aliases
	for i := range out {
		o, err := a.Keep(in[i], out[i])
		if err != nil {
			return i, err
		}
		out[i] = o
	}
	return 0, nil
}

// Aliases is KeepAliases one item at a time, in input order: Keep takes
// an item's input and output and returns the output to write. Until an
// item with anchors is written otherwise than it came, nothing is walked.
type Aliases struct {
	// seen are the items before the first such item, kept to read their
	// anchors then.
	seen            [][2]*yaml.RNode
	expanded        bool
	inDefs, outDefs map[string]definition
	n               int
}

// Keep returns the item to write for the next item (see KeepAliases).
func (a *Aliases) Keep(in, out *yaml.RNode) (*yaml.RNode, error) {
	if !a.expanded {
		if out == in || !anchored(in.YNode()) {
			a.seen = append(a.seen, [2]*yaml.RNode{in, out})
			a.n++
			return out, nil
		}
		a.expanded = true
		a.inDefs, a.outDefs = map[string]definition{}, map[string]definition{}
		for i, s := range a.seen {
			if _, err := a.keep(i, s[0], s[1]); err != nil {
				return nil, err
			}
		}
		a.seen = nil
	}
	a.n++
	return a.keep(a.n-1, in, out)
}

// keep reads item i's anchors and replaces its stale aliases.
func (a *Aliases) keep(i int, in, out *yaml.RNode) (*yaml.RNode, error) {
	stale := map[*yaml.Node]bool{}
	ordinal := 0
	if !anchored(out.YNode()) {
		visit(in.YNode(), func(n *yaml.Node) {
			if n.Anchor != "" {
				a.inDefs[n.Anchor] = definition{i, ordinal}
				ordinal++
			}
		})
		return out, nil
	}
	visit(out.YNode(), func(n *yaml.Node) {
		switch {
		case n.Kind == yaml.AliasNode:
			d, ok := a.inDefs[n.Value]
			if od, written := a.outDefs[n.Value]; !ok || !written || od != d {
				stale[n] = true
			}
		case n.Anchor != "":
			a.inDefs[n.Anchor] = definition{i, ordinal}
			a.outDefs[n.Anchor] = definition{i, ordinal}
			ordinal++
		}
	})
	if len(stale) == 0 {
		return out, nil
	}
	c, err := replaceAliases(out.YNode(), stale)
	if err != nil {
		return nil, err
	}
	return yaml.NewRNode(c), nil
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
