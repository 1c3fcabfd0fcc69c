package driver

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
)

// aliasGroup is what the streaming path's writer keeps of the items of a
// group (see yamlio.Layout.Group) written so far: each as parsed and as
// the run writes it. Items parsed together may share anchors (the
// splitter joins an item that uses an anchor to the item that defines
// it); an alias whose anchor was in an item the run wrote expanded is
// replaced as the whole-list path replaces it (see shapes.KeepAliases).
type aliasGroup struct {
	first   int
	in, out []*yaml.RNode
}

// keep returns the text to write for item i of a group, parsed as input,
// which the run writes as node, encoded as text: text, or the encoding of
// the copy of node whose aliases KeepAliases replaced. An item it cannot
// replace them in sends the list to the whole-list path, which fails
// that item.
func (g *aliasGroup) keep(in *yamlio.Input, i int, input, node *yaml.RNode, text []byte) ([]byte, error) {
	if first, _ := in.Layout.Group(i); i == first || g.first != first {
		*g = aliasGroup{first: first}
	}
	g.in, g.out = append(g.in, input), append(g.out, node)
	k := len(g.out) - 1
	if _, err := shapes.KeepAliases(g.in, g.out); err != nil {
		return nil, &declined{fmt.Sprintf("items[%d]: %v", i, err)}
	}
	if g.out[k] == node {
		return text, nil
	}
	return entryText(g.out[k])
}
