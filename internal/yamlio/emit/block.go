// Package emit writes the pieces of the function's output, items,
// results and the list around them, byte for byte as kio.ByteWriter writes
// them inside a whole ResourceList: by its own block writer for the shapes
// nearly every resource has, else by the encoder.
package emit

import (
	"bytes"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// writeBlock writes a sequence of mappings at column 0 the way kyaml's
// encoder (yaml.v3, two-space indentation, sequences at their key's
// column) writes it, for the node shapes met in nearly every resource:
// block mappings and sequences, empty ones, plain and simply quoted
// scalars, and comment lines before a key. It reports false, having
// written something or nothing, on any other shape (anchors, aliases, tags,
// flow collections, block scalars, other comments, keys or values it
// cannot tell are written plain); Entries then asks the encoder.
//
// The encoder keeps every event of a document in a queue it never
// shortens, so an item costs about 300 bytes per node in events, copied
// each time the queue grows; this writer costs the output. TestBlockWriter
// holds the two to the same bytes.
func writeBlock(buf *bytes.Buffer, seq *yaml.Node) bool {
	if seq.Kind != yaml.SequenceNode || !plainCollection(seq, yaml.NodeTagSeq) || len(seq.Content) == 0 {
		return false
	}
	return blockWriter{buf}.sequence(seq, 0)
}

// WriteDocument writes a YAML document whose content is a block mapping the
// way kyaml's encoder writes it with sequences at their key's column
// (yaml.CompactSequenceStyle), for the shapes the block writer knows (see
// writeBlock); false for any other document, one with comments of its own
// among them. TestWriteDocument holds it to the encoder's bytes.
func WriteDocument(doc *yaml.Node) ([]byte, bool) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || hasComment(doc) || doc.Anchor != "" {
		return nil, false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || !plainCollection(root, yaml.NodeTagMap) || len(root.Content) == 0 {
		return nil, false
	}
	var buf bytes.Buffer
	if !(blockWriter{&buf}).mapping(root, 0, false) {
		return nil, false
	}
	return buf.Bytes(), true
}

// blockWriter appends to a buffer.
type blockWriter struct{ buf *bytes.Buffer }

// sequence writes a non-empty block sequence's entries at indent.
func (w blockWriter) sequence(seq *yaml.Node, indent int) bool {
	for _, item := range seq.Content {
		if item.HeadComment != "" {
			if !w.comment(item.HeadComment, indent, false) {
				return false
			}
			item = headless(item)
		}
		w.indent(indent)
		w.buf.WriteString("- ")
		switch {
		case item.Kind == yaml.MappingNode && plainCollection(item, yaml.NodeTagMap) && len(item.Content) > 0:
			if !w.mapping(item, indent+2, true) {
				return false
			}
		case !w.leaf(item, indent):
			return false
		}
	}
	return true
}

// mapping writes a non-empty block mapping's pairs at indent; inline is
// set when its first key follows a "- " already written.
func (w blockWriter) mapping(m *yaml.Node, indent int, inline bool) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := m.Content[i], m.Content[i+1]
		text, ok := blockKey(key)
		if !ok {
			return false
		}
		first := i == 0 && inline
		if key.HeadComment != "" && !w.comment(key.HeadComment, indent, first) {
			return false
		}
		if !first || key.HeadComment != "" {
			w.indent(indent)
		}
		w.buf.WriteString(text)
		w.buf.WriteByte(':')
		switch {
		case value.Kind == yaml.MappingNode && plainCollection(value, yaml.NodeTagMap) && len(value.Content) > 0:
			w.buf.WriteByte('\n')
			if !w.mapping(value, indent+2, false) {
				return false
			}
		case value.Kind == yaml.SequenceNode && plainCollection(value, yaml.NodeTagSeq) && len(value.Content) > 0:
			w.buf.WriteByte('\n')
			if !w.sequence(value, indent) {
				return false
			}
		default:
			w.buf.WriteByte(' ')
			if !w.leaf(value, indent) {
				return false
			}
		}
	}
	return true
}

// flow writes a collection in flow style, or a scalar, as the encoder
// writes it inside one.
func (w blockWriter) flow(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode {
		text, ok := scalarText(n)
		if !ok || hasComment(n) || (n.Style == 0 && strings.ContainsAny(text, ",?[]{}:")) {
			return false
		}
		w.buf.WriteString(text)
		return true
	}
	open, close, tag := "[", "]", yaml.NodeTagSeq
	if n.Kind == yaml.MappingNode {
		open, close, tag = "{", "}", yaml.NodeTagMap
	}
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode || n.Anchor != "" || (n.Tag != "" && n.Tag != tag) || hasComment(n) {
		return false
	}
	w.buf.WriteString(open)
	for i, c := range n.Content {
		switch {
		case i == 0:
		case n.Kind == yaml.MappingNode && i%2 == 1:
			w.buf.WriteString(": ")
		default:
			w.buf.WriteString(", ")
		}
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if _, ok := plainKey(c); !ok {
				return false
			}
		}
		if !w.flow(c) {
			return false
		}
	}
	w.buf.WriteString(close)
	return true
}

// leaf writes a scalar, a flow or empty collection, and its line break,
// after a key or a "- " at column indent.
func (w blockWriter) leaf(n *yaml.Node, indent int) bool {
	switch {
	case literal(n):
		w.literal(n.Value, indent+2)
	case (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style == yaml.FlowStyle:
		if !w.flow(n) {
			return false
		}
		w.buf.WriteByte('\n')
	case n.Kind == yaml.MappingNode && plainCollection(n, yaml.NodeTagMap) && len(n.Content) == 0:
		w.buf.WriteString("{}\n")
	case n.Kind == yaml.SequenceNode && plainCollection(n, yaml.NodeTagSeq) && len(n.Content) == 0:
		w.buf.WriteString("[]\n")
	default:
		text, ok := scalarText(n)
		if !ok {
			return false
		}
		w.buf.WriteString(text)
		if c := n.LineComment; c != "" {
			if !strings.HasPrefix(c, "#") || strings.Contains(c, "\n") || !tree.PrintableASCII(c) {
				return false
			}
			w.buf.WriteByte(' ')
			w.buf.WriteString(c)
		}
		w.buf.WriteByte('\n')
	}
	return true
}

// literal reports whether the encoder writes a scalar as a literal block
// the writer knows: a string of lines of printable ASCII, the first not
// empty nor starting with a space, no line ending in a space, and one line
// break or none at the end ("|" or "|-").
func literal(n *yaml.Node) bool {
	v := n.Value
	if n.Kind != yaml.ScalarNode || n.Anchor != "" || hasComment(n) || (n.Tag != "" && n.Tag != yaml.NodeTagString) ||
		!(n.Style == yaml.LiteralStyle || n.Style == 0 && strings.Contains(v, "\n")) {
		return false
	}
	body := strings.TrimSuffix(v, "\n")
	if body == "" || body[0] == ' ' || body[0] == '\n' || strings.HasSuffix(body, "\n") {
		return false
	}
	for line := range strings.SplitSeq(body, "\n") {
		if !tree.PrintableASCII(line) || strings.HasSuffix(line, " ") {
			return false
		}
	}
	return true
}

// literal writes a literal block scalar whose lines go at column indent.
func (w blockWriter) literal(v string, indent int) {
	body, chomp := strings.TrimSuffix(v, "\n"), ""
	if body == v {
		chomp = "-"
	}
	w.buf.WriteString("|" + chomp + "\n")
	for line := range strings.SplitSeq(body, "\n") {
		if line != "" {
			w.indent(indent)
			w.buf.WriteString(line)
		}
		w.buf.WriteByte('\n')
	}
}

// comment writes a head comment's lines at indent, the first where the
// line already is when inline: lines that each start with "#", no blank
// line, no trailing line break.
func (w blockWriter) comment(text string, indent int, inline bool) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(line, "#") || !tree.PrintableASCII(line) {
			return false
		}
		if !inline {
			w.indent(indent)
		}
		inline = false
		w.buf.WriteString(line)
		w.buf.WriteByte('\n')
	}
	return true
}

func (w blockWriter) indent(n int) {
	for range n {
		w.buf.WriteByte(' ')
	}
}

// plainCollection reports whether a mapping or sequence has none of the
// properties the writer leaves to the encoder: a flow style, an anchor, a
// tag other than its own, a comment.
func plainCollection(n *yaml.Node, tag string) bool {
	return n.Style == 0 && n.Anchor == "" && (n.Tag == "" || n.Tag == tag) && n.LineComment == "" && n.FootComment == "" && n.HeadComment == ""
}

// headless is a copy of n without its head comment, which the writer has
// written.
func headless(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment = ""
	return &c
}

// plainKey is a mapping key as the encoder writes it: a plain string it
// writes as it is.
func plainKey(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Style != 0 || n.Anchor != "" || n.LineComment != "" || n.FootComment != "" ||
		(n.Tag != "" && n.Tag != yaml.NodeTagString) || len(n.Value) > 100 || !tree.PlainString(n.Value) {
		return "", false
	}
	return n.Value, true
}

// blockKey is a block mapping's key as the encoder writes it: a plain key
// (plainKey), or a string of at most 100 characters in double or single
// quotes as scalarText writes one.
func blockKey(n *yaml.Node) (string, bool) {
	if text, ok := plainKey(n); ok {
		return text, true
	}
	if n.Kind != yaml.ScalarNode || n.Style != yaml.DoubleQuotedStyle && n.Style != yaml.SingleQuotedStyle ||
		n.LineComment != "" || n.FootComment != "" || len(n.Value) > 100 {
		return "", false
	}
	return scalarText(headless(n))
}

// scalarText is a scalar value as the encoder writes it, without its line
// comment, for the scalars
// whose writing the writer knows: a plain string that reads back as a
// string, a decimal integer or a boolean tagged as such, and a string of
// printable ASCII in double or single quotes.
func scalarText(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Anchor != "" || n.HeadComment != "" || n.FootComment != "" {
		return "", false
	}
	v := n.Value
	switch {
	case n.Style == 0 && (n.Tag == "" || n.Tag == yaml.NodeTagString):
		if tree.PlainString(v) {
			return v, true
		}
		// A string that is a string to every reader but holds ": " or " #"
		// or ends in ":": the encoder asks for plain, the emitter quotes.
		return singleQuoted(v), tree.LetterString(v) && tree.PrintableASCII(v) && v[len(v)-1] != ' '

	case n.Style == 0 && n.Tag == yaml.NodeTagInt:
		return v, scan.Decimal(v)
	case n.Style == 0 && n.Tag == yaml.NodeTagBool:
		return v, v == "true" || v == "false"
	case n.Style == yaml.DoubleQuotedStyle && (n.Tag == "" || n.Tag == yaml.NodeTagString):
		return `"` + v + `"`, tree.PrintableASCII(v) && !strings.ContainsAny(v, `"\`)
	case n.Style == yaml.SingleQuotedStyle && (n.Tag == "" || n.Tag == yaml.NodeTagString):
		return singleQuoted(v), v != "" && tree.PrintableASCII(v) && v[0] != ' ' && v[len(v)-1] != ' '
	}
	return "", false
}

// singleQuoted is v in single quotes, a quote in it doubled.
func singleQuoted(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
