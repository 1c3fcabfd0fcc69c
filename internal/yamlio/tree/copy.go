package tree

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Copy is rn.Copy(), a deep copy of the node tree (an alias still points
// where the original's does), made with two allocations, one for the nodes
// and one for their content lists, rather than two a node.
func Copy(rn *yaml.RNode) *yaml.RNode {
	if rn == nil || rn.Document() == nil {
		return rn.Copy()
	}
	n := rn.Document()
	nodes, children := count(n)
	c := copier{nodes: make([]yaml.Node, nodes), children: make([]*yaml.Node, children)}
	return yaml.NewRNode(c.copy(n))
}

// count is the number of nodes in the tree and of their content entries.
func count(n *yaml.Node) (nodes, children int) {
	nodes, children = 1, len(n.Content)
	for _, c := range n.Content {
		a, b := count(c)
		nodes, children = nodes+a, children+b
	}
	return nodes, children
}

// copier hands out the nodes and content entries of a copy.
type copier struct {
	nodes    []yaml.Node
	children []*yaml.Node
}

func (c *copier) copy(n *yaml.Node) *yaml.Node {
	out := &c.nodes[0]
	c.nodes = c.nodes[1:]
	*out = *n
	if len(n.Content) > 0 {
		out.Content = c.children[:len(n.Content):len(n.Content)]
		c.children = c.children[len(n.Content):]
		for i, child := range n.Content {
			out.Content[i] = c.copy(child)
		}
	}
	return out
}
