package yamlio

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// LF returns text with every CRLF line break replaced by LF. YAML reads a
// CRLF in a scalar as LF anyway, but the parser attaches some comments
// elsewhere when lines end in CRLF: both paths parse LF text, so that a list
// with CRLF line breaks gives the output of the same list with LF.
func LF(text []byte) []byte {
	if bytes.IndexByte(text, '\r') < 0 {
		return text
	}
	return bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
}

// ParseItem parses the text of one item, as Input.Item returns it, after an
// "items:" line: the parser then sees the item where it sits in the whole
// list. It returns an error unless the text is exactly one mapping and no
// comment lands outside it.
func ParseItem(text []byte) (*yaml.RNode, error) {
	items, err := parseEntries("items:\n", text, 0, 1, followEnd, 0)
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// afterItem is the head under which the text of an item that starts with
// comment lines is parsed: an item like every one the splitter lets
// comments follow, a block mapping with a plain first key, its "-" at
// column dash. The parser then attaches the comments as it does in the
// whole list.
func afterItem(dash int) string {
	return "items:\n" + strings.Repeat(" ", dash) + "- x: 0\n"
}

// parseEntries parses head, text and a stand-in for what follows the text
// in the list (an item "- x: 0" at column dash, a top-level key "x: 0", or
// nothing), which must be one document holding a mapping whose first key
// holds a block sequence of before entries from head, n entries from text
// and the stand-in item, and returns the n entries of text. It returns an
// error when a comment lands outside them, or one of them is not a
// mapping.
func parseEntries(head string, text []byte, before, n int, follow follower, dash int) ([]*yaml.RNode, error) {
	tail, keys, all := "", 2, before+n
	switch follow {
	case followItem:
		tail, all = strings.Repeat(" ", dash)+"- x: 0\n", all+1
	case followKey:
		tail, keys = "x: 0\n", 4
	}
	doc, err := DecodeOne(io.MultiReader(strings.NewReader(head), bytes.NewReader(LF(text)), strings.NewReader(tail)))
	if err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || hasComment(doc) {
		return nil, errors.New("item is not one document")
	}
	list := doc.Content[0]
	if list.Kind != yaml.MappingNode || len(list.Content) != keys || hasComment(list) || hasComment(list.Content[0]) {
		return nil, errors.New("item is not under items")
	}
	for _, after := range list.Content[2:] {
		if anyComment(after) {
			return nil, errors.New("a comment at the end of the item lands after it")
		}
	}
	seq := list.Content[1]
	if seq.Kind != yaml.SequenceNode || len(seq.Content) != all || hasComment(seq) || seq.Style != 0 {
		return nil, errors.New("item is not one entry of a block sequence")
	}
	for _, b := range seq.Content[:before] {
		if anyComment(b) {
			return nil, errors.New("a comment before the item lands on the item before it")
		}
	}
	for _, after := range seq.Content[before+n:] {
		if anyComment(after) {
			return nil, errors.New("a comment at the end of the item lands on the item after it")
		}
	}
	items := make([]*yaml.RNode, n)
	for k, item := range seq.Content[before : before+n] {
		if item.Kind != yaml.MappingNode {
			return nil, errors.New("item is not a mapping")
		}
		items[k] = yaml.NewRNode(item)
	}
	return items, nil
}

// ParseJSON parses one JSON object, as the text of one item of a JSON
// ResourceList or an admitted object: a YAML flow mapping.
func ParseJSON(text []byte) (*yaml.RNode, error) {
	doc, err := DecodeOne(bytes.NewReader(LF(text)))
	if err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || hasComment(doc) {
		return nil, errors.New("item is not one document")
	}
	item := doc.Content[0]
	if item.Kind != yaml.MappingNode || item.Style != yaml.FlowStyle || hasComment(item) {
		return nil, errors.New("item is not a JSON object")
	}
	return yaml.NewRNode(item), nil
}

// anyComment reports whether n or a node under it has a comment.
func anyComment(n *yaml.Node) bool {
	if hasComment(n) {
		return true
	}
	for _, c := range n.Content {
		if anyComment(c) {
			return true
		}
	}
	return false
}

func hasComment(n *yaml.Node) bool {
	return n.HeadComment != "" || n.LineComment != "" || n.FootComment != ""
}
