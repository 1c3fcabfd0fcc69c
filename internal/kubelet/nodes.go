package kubelet

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Node is a Node of the input and the version of its kubelet.
type Node struct {
	// Name is the Node's name.
	Name string
	// Version is status.nodeInfo.kubeletVersion as the Node gives it
	// (v1.34.1, v1.30.4+k3s1, v1.29.10-eks-59bf375).
	Version string
	// Minor is the version's minor: 34 for v1.34.1.
	Minor int
}

// kubeletVersion matches a kubelet's version with what distributions add
// after the patch (+k3s1, -eks-59bf375, -gke.1203001).
var kubeletVersion = regexp.MustCompile(`^v?1\.([0-9]{1,4})(\.[0-9]+)?([-+].*)?$`)

// IsNode reports whether the item is a v1 Node.
func IsNode(item *yaml.RNode) bool {
	return item.GetKind() == "Node" && item.GetApiVersion() == "v1"
}

// ReadNode reads a Node item's kubelet version; an error, which does not
// name the Node, when it gives none that reads as a Kubernetes 1.N version.
func ReadNode(item *yaml.RNode) (Node, error) {
	n := Node{Name: item.GetName()}
	v, err := item.Pipe(yaml.Lookup("status", "nodeInfo", "kubeletVersion"))
	if err != nil || v == nil || v.YNode().Kind != yaml.ScalarNode {
		return n, fmt.Errorf("it has no status.nodeInfo.kubeletVersion")
	}
	n.Version = v.YNode().Value
	m := kubeletVersion.FindStringSubmatch(n.Version)
	if m == nil {
		return n, fmt.Errorf("status.nodeInfo.kubeletVersion %q is not a Kubernetes 1.N version", n.Version)
	}
	n.Minor, _ = strconv.Atoi(m[1]) // at most 4 digits
	return n, nil
}

// String is the Node's name and kubelet version: "node-a (v1.28.15)".
func (n Node) String() string { return fmt.Sprintf("%q (%s)", n.Name, n.Version) }

// Nodes are the Nodes of an input.
type Nodes []Node

// Oldest returns the Node with the oldest kubelet (the first of them in
// name order), and false when there are none.
func (ns Nodes) Oldest() (Node, bool) {
	if len(ns) == 0 {
		return Node{}, false
	}
	return slices.MinFunc(ns, func(a, b Node) int {
		if a.Minor != b.Minor {
			return a.Minor - b.Minor
		}
		return strings.Compare(a.Name, b.Name)
	}), true
}

// Below returns the Nodes whose kubelet is older than 1.minor, by name.
func (ns Nodes) Below(minor int) Nodes {
	var out Nodes
	for _, n := range ns {
		if n.Minor < minor {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// namedNodes is how many Nodes a message names before it counts the rest.
const namedNodes = 3

// Names names the first Nodes and counts the others: `"a" (v1.28.15),
// "b" (v1.28.3) and 4 more`.
func (ns Nodes) Names() string {
	var names []string
	for i, n := range ns {
		if i == namedNodes {
			return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(ns)-namedNodes)
		}
		names = append(names, n.String())
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// Count is "1 Node" or "n Nodes".
func (ns Nodes) Count() string {
	if len(ns) == 1 {
		return "1 Node"
	}
	return fmt.Sprintf("%d Nodes", len(ns))
}

// OldestMinor is the minor of the oldest kubelet; ns must not be empty.
func (ns Nodes) OldestMinor() int {
	n, _ := ns.Oldest()
	return n.Minor
}
