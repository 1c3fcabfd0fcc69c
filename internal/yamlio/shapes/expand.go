package shapes

import (
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Expand returns a copy of the tree with every alias replaced by a copy of
// the node it refers to, every merge key resolved and every anchor removed:
// the tree means what it meant, and it can be edited and written anywhere
// without an alias landing before its anchor. n itself is not changed.
//
// A merge key ("<<: *base", "<<: [*a, *b]") is replaced, where it stands,
// by the entries of its mappings that the mapping does not set itself;
// with several mappings the earlier one wins, as YAML's merge key says.
// The copy of an alias keeps the alias's comments, not those of the node it
// refers to, which stay where that node is. The copy may be at most ten
// times the size of the tree, plus 10000 nodes, so that nested aliases
// cannot make it explode.
func Expand(n *yaml.Node) (*yaml.Node, error) {
	e := &expander{budget: budget(n), active: map[*yaml.Node]bool{}}
	return e.copy(n, false)
}

// CheckSize returns Expand's error for a tree that would expand beyond its
// bound, without expanding it.
func CheckSize(n *yaml.Node) error {
	sizes := map[*yaml.Node]int{}
	size, err := expandedSize(n, sizes, budget(n))
	if err == nil && size > budget(n) {
		err = errTooLarge
	}
	return err
}

// budget is how many nodes the expansion of n may have.
func budget(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	s, _ := Walk(n)
	return 10*s.Nodes + 10000
}

// expandedSize counts the nodes of n with aliases expanded, each anchored
// node counted once and remembered in sizes (-1 while it is counted).
func expandedSize(n *yaml.Node, sizes map[*yaml.Node]int, limit int) (int, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 0, fmt.Errorf("alias *%s has no anchor", n.Value)
		}
		if size, ok := sizes[n.Alias]; ok {
			if size < 0 {
				return 0, fmt.Errorf("alias *%s is inside the node it refers to", n.Value)
			}
			return size, nil
		}
		return expandedSize(n.Alias, sizes, limit)
	}
	if n.Anchor != "" {
		sizes[n] = -1
	}
	size := 1
	for _, c := range n.Content {
		cs, err := expandedSize(c, sizes, limit)
		if err != nil {
			return 0, err
		}
		if size += cs; size > limit {
			return 0, errTooLarge
		}
	}
	if n.Anchor != "" {
		sizes[n] = size
	}
	return size, nil
}

type expander struct {
	budget int
	// active holds the anchored nodes being expanded, to stop an alias
	// inside the node it refers to.
	active map[*yaml.Node]bool
}

var errTooLarge = errors.New("its anchors and aliases expand to more than ten times its size; write the repeated values out")

// copy copies n; bare drops its comments (an alias's target).
func (e *expander) copy(n *yaml.Node, bare bool) (*yaml.Node, error) {
	if e.budget--; e.budget < 0 {
		return nil, errTooLarge
	}
	if n.Kind == yaml.AliasNode {
		return e.alias(n)
	}
	c := *n
	c.Anchor = ""
	if bare {
		c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	}
	c.Content = make([]*yaml.Node, 0, len(n.Content))
	if n.Kind == yaml.MappingNode {
		return &c, e.mapping(&c, n.Content, bare)
	}
	for _, child := range n.Content {
		cc, err := e.copy(child, bare)
		if err != nil {
			return nil, err
		}
		c.Content = append(c.Content, cc)
	}
	return &c, nil
}

// alias copies the node an alias refers to, with the alias's comments.
func (e *expander) alias(n *yaml.Node) (*yaml.Node, error) {
	target := n.Alias
	if target == nil {
		return nil, fmt.Errorf("alias *%s has no anchor", n.Value)
	}
	if e.active[target] {
		return nil, fmt.Errorf("alias *%s is inside the node it refers to", n.Value)
	}
	e.active[target] = true
	c, err := e.copy(target, true)
	delete(e.active, target)
	if err != nil {
		return nil, err
	}
	c.HeadComment, c.LineComment, c.FootComment = n.HeadComment, n.LineComment, n.FootComment
	return c, nil
}

// mapping fills c with copies of the entries, merge keys resolved.
func (e *expander) mapping(c *yaml.Node, entries []*yaml.Node, bare bool) error {
	set := map[string]bool{}
	for i := 0; i+1 < len(entries); i += 2 {
		if name, ok := keyName(entries[i]); ok && entries[i].Tag != mergeTag {
			set[name] = true
		}
	}
	var pending []string // comments of merge keys, for the next key
	for i := 0; i+1 < len(entries); i += 2 {
		k, v := entries[i], entries[i+1]
		if k.Tag != mergeTag {
			kc, err := e.copy(k, bare)
			if err != nil {
				return err
			}
			vc, err := e.copy(v, bare)
			if err != nil {
				return err
			}
			kc.HeadComment = joinComments(append(pending, kc.HeadComment)...)
			pending = nil
			if v.Kind == yaml.AliasNode && vc.Kind != yaml.ScalarNode && vc.Style&yaml.FlowStyle == 0 && kc.LineComment == "" {
				// "key: *alias # comment" over a block collection: the
				// comment belongs on the key's line.
				kc.LineComment, vc.LineComment = vc.LineComment, ""
			}
			c.Content = append(c.Content, kc, vc)
			continue
		}
		merged, err := e.merge(v, set, bare)
		if err != nil {
			return err
		}
		if !bare {
			pending = append(pending, k.HeadComment, k.LineComment, v.LineComment, v.HeadComment, k.FootComment, v.FootComment)
		}
		if len(merged) > 0 {
			merged[0].HeadComment = joinComments(append(pending, merged[0].HeadComment)...)
			pending = nil
		}
		c.Content = append(c.Content, merged...)
	}
	if len(pending) > 0 {
		c.FootComment = joinComments(append(pending, c.FootComment)...)
	}
	return nil
}

// merge copies the entries the merge key's value brings that the mapping
// does not set, earlier mappings first; set gains their keys.
func (e *expander) merge(v *yaml.Node, set map[string]bool, bare bool) ([]*yaml.Node, error) {
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	var out []*yaml.Node
	for _, src := range sources {
		m, err := e.copy(src, bare || src.Kind == yaml.AliasNode)
		if err != nil {
			return nil, err
		}
		if m.Kind != yaml.MappingNode {
			return nil, errors.New("a merge key (<<) takes a mapping, an alias of one or a list of them")
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			name, ok := keyName(m.Content[i])
			if ok && set[name] {
				continue
			}
			if ok {
				set[name] = true
			}
			out = append(out, m.Content[i], m.Content[i+1])
		}
	}
	return out, nil
}

// joinComments joins comment blocks, skipping empty ones.
func joinComments(blocks ...string) string {
	var kept []string
	for _, b := range blocks {
		if b != "" {
			kept = append(kept, b)
		}
	}
	return strings.Join(kept, "\n")
}
