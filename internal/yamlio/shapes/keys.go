// Package shapes keeps the YAML the function writes valid and stable:
// it finds duplicate keys, expands anchors, aliases and merge keys in the
// items the function edits, keeps the aliases of the other items pointing
// at what they pointed at, and places comments so that what is written
// reads back the same.
package shapes

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// mergeTag is the tag YAML gives a plain "<<" key.
const mergeTag = "!!merge"

// Shape is what one walk of a node tree found.
type Shape struct {
	// Anchored is set when the tree holds an anchor, an alias or a merge key.
	Anchored bool
	// Unsettled is set when the tree holds a comment or a folded scalar
	// with a more-indented line: its encoding may not read back the same
	// (see Stable).
	Unsettled bool
	// Nodes counts the nodes, aliases not followed.
	Nodes int
}

// DuplicateKeyError is a key that appears twice in one mapping.
type DuplicateKeyError struct {
	// Path is the mapping's field path, "" for the top level.
	Path string
	// Key is the key.
	Key string
}

func (e *DuplicateKeyError) Error() string {
	msg := fmt.Sprintf("duplicate key %q: remove one; the API server rejects duplicate fields and this function would read only the first", e.Key)
	if e.Path == "" {
		return msg
	}
	return e.Path + ": " + msg
}

// Finding is the error as a finding: input that cannot be read, at the
// duplicated key.
func (e *DuplicateKeyError) Finding() report.Finding {
	path := e.Key
	if e.Path != "" {
		path = e.Path + "." + e.Key
	}
	return report.Finding{Kind: report.KindInput, Severity: fn.Error, Field: report.At(path), Detail: report.Clean(e.Error())}
}

// Walk checks every mapping of the tree for duplicate keys and reports the
// tree's shape. It does not follow aliases: the node an alias refers to is
// checked where it is defined.
func Walk(n *yaml.Node) (Shape, error) {
	var s Shape
	err := walk(n, make([]elem, 0, 16), &s)
	return s, err
}

// elem is one step of a field path: a key, or a list index.
type elem struct {
	key   string
	index int // -1 for a key
}

func walk(n *yaml.Node, path []elem, s *Shape) error {
	s.Nodes++
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		s.Anchored = true
	}
	if !s.Unsettled && (commented(n) || foldedIndented(n)) {
		s.Unsettled = true
	}
	switch n.Kind {
	case yaml.MappingNode:
		var seen map[string]bool // for long mappings; short ones are scanned
		if len(n.Content) > 2*shortMapping {
			seen = make(map[string]bool, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			s.Nodes++
			if k.Tag == mergeTag {
				s.Anchored = true
			}
			name, ok := keyName(k)
			if !ok {
				return keyKindError(path, k)
			}
			if duplicate(n.Content[:i], name, seen) {
				return &DuplicateKeyError{Path: joinPath(path), Key: name}
			}
			if k.Anchor != "" || k.Kind == yaml.AliasNode {
				s.Anchored = true
			}
			if !s.Unsettled && commented(k) {
				s.Unsettled = true
			}
			if err := walk(v, append(path, elem{key: name, index: -1}), s); err != nil {
				return err
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = append(path, elem{index: i})
			}
			if err := walk(c, p, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// shortMapping is the number of keys up to which a mapping is scanned for
// a duplicate rather than indexed.
const shortMapping = 16

// duplicate reports whether name is among the keys before it: the entries
// before it, or seen (which it joins) for a long mapping.
func duplicate(before []*yaml.Node, name string, seen map[string]bool) bool {
	if seen != nil {
		dup := seen[name]
		seen[name] = true
		return dup
	}
	for j := 0; j < len(before); j += 2 {
		if other, ok := keyName(before[j]); ok && other == name {
			return true
		}
	}
	return false
}

func commented(n *yaml.Node) bool {
	return n.HeadComment != "" || n.LineComment != "" || n.FootComment != ""
}

// keyKindError is the error for a key that is not a scalar.
func keyKindError(path []elem, k *yaml.Node) error {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	kind := "mapping"
	if k.Kind == yaml.SequenceNode {
		kind = "list"
	}
	msg := "a key is a " + kind + ", not a string: use a string key; Kubernetes objects have string keys only"
	if p := joinPath(path); p != "" {
		return errors.New(p + ": " + msg)
	}
	return errors.New(msg)
}

// keyName is the text of a scalar key, or of the scalar an alias key
// refers to.
func keyName(k *yaml.Node) (string, bool) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	return k.Value, k.Kind == yaml.ScalarNode
}

// joinPath writes path elements as a field path: keys joined by dots,
// list indexes in brackets, and keys that would not read back in a dotted
// path quoted in brackets.
func joinPath(path []elem) string {
	var b strings.Builder
	for _, e := range path {
		switch {
		case e.index >= 0:
			b.WriteString("[" + strconv.Itoa(e.index) + "]")
		case e.key != "" && !strings.ContainsAny(e.key, ".[]\"' \t\n") && strconv.Quote(e.key) == `"`+e.key+`"`:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.key)
		default:
			b.WriteString("[" + strconv.Quote(e.key) + "]")
		}
	}
	return b.String()
}
