package shapes

import (
	"errors"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// settle places the comments of the tree, an entry of a list after
// another, where the YAML encoder writes them so that they read back to
// the same place: a foot comment becomes the head comment of what follows
// it, a comment read before an entry but put on its first key (see
// leading) goes back before the entry, and head comments lose their blank
// lines. A folded scalar with a more-indented line, which the encoder
// writes with one more line break each time, becomes a literal one. It
// changes n and returns it.
func settle(n *yaml.Node) *yaml.Node {
	n.HeadComment = head(leading(n), n.HeadComment)
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
			if before := leading(c); i > 0 {
				c.HeadComment = head(joinComments(carry, before), c.HeadComment)
			} else {
				c.HeadComment = joinComments(before, c.HeadComment)
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

// leading takes and returns the foot comment of the first key of a block
// mapping when the parser read it before the mapping: the YAML library
// puts a comment block followed by a blank line before a list entry on
// the entry's first key, whose foot comment it then writes after the
// key's line. The comment came before the entry when the first value
// has a foot comment too (the parser gives the key the value's foot
// comment only when it has none), or when it does not fit between the
// first key's line and the second key's.
func leading(n *yaml.Node) string {
	if !misplaced(n) {
		return ""
	}
	foot := n.Content[0].FootComment
	n.Content[0].FootComment = ""
	return foot
}

// misplaced reports whether n is a block mapping whose first key holds a
// foot comment the parser read before the mapping (see leading).
func misplaced(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle != 0 || len(n.Content) < 4 {
		return false
	}
	k, v, next := n.Content[0], n.Content[1], n.Content[2]
	if k.FootComment == "" || k.Line == 0 || next.Line == 0 || v.Kind != yaml.ScalarNode || v.Line != k.Line {
		return false
	}
	return v.FootComment != "" || next.Line-k.Line <= strings.Count(k.FootComment, "\n")+1
}

// anyMisplaced reports whether a mapping of the tree is misplaced.
func anyMisplaced(n *yaml.Node) bool {
	if misplaced(n) {
		return true
	}
	for _, c := range n.Content {
		if anyMisplaced(c) {
			return true
		}
	}
	return false
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
	if anyMisplaced(n) {
		return settle(yaml.CopyYNode(n))
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

// encode writes n as an entry of a list after another, where items are
// written: the YAML library reads comments before an entry differently
// when an entry comes before it.
func encode(n *yaml.Node) (string, error) {
	before := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "x"}, {Kind: yaml.ScalarNode, Value: "0"},
	}}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: []*yaml.Node{before, n}},
	}}}}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(doc); err != nil {
		return "", err
	}
	return b.String(), enc.Close()
}

// reencode reads text written by encode and writes it again.
func reencode(text string) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return "", err
	}
	if len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 || len(doc.Content[0].Content[1].Content) != 2 {
		return "", errors.New("not two entries")
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(&doc); err != nil {
		return "", err
	}
	return b.String(), enc.Close()
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

// TakeTrailing removes and returns the comments that stand at the very end
// of n's text: the parser hangs a comment after the last line of an item
// (a file's closing comment, a commented-out container) on the deepest
// last key, however far left it stood, so an edit that moves that entry or
// adds keys after it would carry the comment into the middle. Give it
// back with PutTrailing once the edit is done.
func TakeTrailing(n *yaml.Node) string {
	var blocks []string
	for n != nil {
		if n.FootComment != "" {
			blocks = append([]string{n.FootComment}, blocks...)
			n.FootComment = ""
		}
		switch {
		case n.Kind == yaml.MappingNode && len(n.Content) >= 2:
			if k := n.Content[len(n.Content)-2]; k.FootComment != "" {
				blocks = append([]string{k.FootComment}, blocks...)
				k.FootComment = ""
			}
			n = n.Content[len(n.Content)-1]
		case (n.Kind == yaml.SequenceNode || n.Kind == yaml.DocumentNode) && len(n.Content) > 0:
			n = n.Content[len(n.Content)-1]
		default:
			n = nil
		}
	}
	return joinComments(blocks...)
}

// PutTrailing hangs comment, taken with TakeTrailing, where the parser
// would find it at the end of n's text: on the last key of the deepest
// last mapping.
func PutTrailing(n *yaml.Node, comment string) {
	if comment == "" {
		return
	}
	var key *yaml.Node
	for n != nil {
		switch {
		case n.Kind == yaml.MappingNode && len(n.Content) >= 2:
			key = n.Content[len(n.Content)-2]
			n = n.Content[len(n.Content)-1]
		case (n.Kind == yaml.SequenceNode || n.Kind == yaml.DocumentNode) && len(n.Content) > 0:
			n = n.Content[len(n.Content)-1]
		default:
			n = nil
		}
	}
	if key != nil {
		key.FootComment = joinComments(key.FootComment, comment)
	}
}
