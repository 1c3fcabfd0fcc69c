package yamlshape

import (
	"errors"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// settle places the comments of the tree where the YAML encoder writes
// them so that they read back to the same place: a foot comment becomes
// the head comment of what follows it, and head comments lose their blank
// lines. A folded scalar with a more-indented line, which the encoder
// writes with one more line break each time, becomes a literal one. It
// changes n and returns it.
func settle(n *yaml.Node) *yaml.Node {
	if foot := normalize(n); foot != "" {
		l := last(n)
		l.FootComment = head(l.FootComment, foot)
	}
	return n
}

// normalize moves the foot comments inside n to head comments and returns
// the comment that follows n, for its parent to place.
func normalize(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		var carry string
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if i > 0 {
				k.HeadComment = head(carry, k.HeadComment)
			}
			vfoot := normalize(v)
			carry = joinComments(vfoot, k.FootComment)
			k.FootComment = ""
		}
		carry = joinComments(carry, n.FootComment)
		n.FootComment = ""
		return carry
	case yaml.SequenceNode:
		var carry string
		for i, c := range n.Content {
			if i > 0 {
				c.HeadComment = head(carry, c.HeadComment)
			}
			carry = normalize(c)
		}
		carry = joinComments(carry, n.FootComment)
		n.FootComment = ""
		return carry
	}
	if foldedIndented(n) {
		n.Style = n.Style&^yaml.FoldedStyle | yaml.LiteralStyle
	}
	foot := n.FootComment
	n.FootComment = ""
	return foot
}

// head is the head comment of a node: what came before it, then its own,
// without blank lines.
func head(before, own string) string {
	s := joinComments(before, own)
	for strings.Contains(s, "\n\n") {
		s = strings.ReplaceAll(s, "\n\n", "\n")
	}
	return s
}

// last is the last scalar written in the tree.
func last(n *yaml.Node) *yaml.Node {
	for len(n.Content) > 0 && n.Kind != yaml.AliasNode {
		n = n.Content[len(n.Content)-1]
	}
	return n
}

// Stable returns n when its encoding reads back to the same encoding, and
// otherwise a settled copy (see settle), whose encoding does. Only a
// tree with a foot comment, a blank line inside a head comment or a folded
// scalar with a more-indented line can move, so only such a tree is
// encoded to find out. A tree
// that cannot be read back on its own (an alias of another item's anchor)
// is returned as it is.
func Stable(n *yaml.Node) *yaml.Node {
	if !mayMove(n) {
		return n
	}
	once, err := encode(n)
	if err != nil {
		return n
	}
	again, err := reencode(once)
	if err != nil || again == once {
		return n
	}
	return settle(yaml.CopyYNode(n))
}

// mayMove reports whether a comment of the tree might read back elsewhere,
// or a scalar differently.
func mayMove(n *yaml.Node) bool {
	if loose(n) || foldedIndented(n) {
		return true
	}
	for _, c := range n.Content {
		if mayMove(c) {
			return true
		}
	}
	return false
}

// encode writes n as an entry of a list, where items are written.
func encode(n *yaml.Node) (string, error) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: []*yaml.Node{n}},
	}}}}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(doc); err != nil {
		return "", err
	}
	return b.String(), enc.Close()
}

// reencode reads text written by encode and writes its entry again.
func reencode(text string) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return "", err
	}
	if len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 || len(doc.Content[0].Content[1].Content) != 1 {
		return "", errors.New("not one entry")
	}
	return encode(doc.Content[0].Content[1].Content[0])
}

// loose reports whether a comment of the node itself might read back
// elsewhere: a foot comment, or a head comment with a blank line.
func loose(n *yaml.Node) bool {
	return n.FootComment != "" || strings.Contains(n.HeadComment, "\n\n")
}

// foldedIndented reports whether n is a folded scalar with a line that
// starts with a blank: the YAML encoder adds a line break before such a
// line each time it writes it.
func foldedIndented(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&yaml.FoldedStyle != 0 &&
		(strings.HasPrefix(n.Value, " ") || strings.HasPrefix(n.Value, "\t") ||
			strings.Contains(n.Value, "\n ") || strings.Contains(n.Value, "\n\t"))
}
