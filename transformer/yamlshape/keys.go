// Package yamlshape keeps the YAML the function writes valid and stable:
// it finds duplicate keys, expands anchors, aliases and merge keys in the
// items the function edits, keeps the aliases of the other items pointing
// at what they pointed at, and places comments so that what is written
// reads back the same.
package yamlshape

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// mergeTag is the tag YAML gives a plain "<<" key.
const mergeTag = "!!merge"

// Shape is what one walk of a node tree found.
type Shape struct {
	// Anchored is set when the tree holds an anchor, an alias or a merge key.
	Anchored bool
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
	where := "at the top level"
	if e.Path != "" {
		where = "in " + e.Path
	}
	return fmt.Sprintf("duplicate key %q %s: remove one; the API server rejects duplicate fields and this function would read only the first",
		e.Key, where)
}

// Walk checks every mapping of the tree for duplicate keys and reports the
// tree's shape. It does not follow aliases: the node an alias refers to is
// checked where it is defined.
func Walk(n *yaml.Node) (Shape, error) {
	var s Shape
	err := walk(n, nil, &s)
	return s, err
}

func walk(n *yaml.Node, path []string, s *Shape) error {
	s.Nodes++
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		s.Anchored = true
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			s.Nodes++
			if k.Tag == mergeTag {
				s.Anchored = true
			}
			name, ok := keyName(k)
			if ok {
				if seen[name] {
					return &DuplicateKeyError{Path: joinPath(path), Key: name}
				}
				seen[name] = true
			}
			if k.Anchor != "" || k.Kind == yaml.AliasNode {
				s.Anchored = true
			}
			if err := walk(v, append(path, fieldElem(name, ok)), s); err != nil {
				return err
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for i, c := range n.Content {
			elem := "[" + strconv.Itoa(i) + "]"
			if n.Kind == yaml.DocumentNode {
				elem = ""
			}
			if err := walk(c, appendElem(path, elem), s); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyName is the text of a scalar key, or of the scalar an alias key
// refers to.
func keyName(k *yaml.Node) (string, bool) {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	return k.Value, k.Kind == yaml.ScalarNode
}

func appendElem(path []string, elem string) []string {
	if elem == "" {
		return path
	}
	return append(path, elem)
}

// fieldElem is a key as a path element: the name itself when it reads
// unambiguously in a dotted path, else quoted in brackets.
func fieldElem(name string, ok bool) string {
	if !ok {
		return "[?]"
	}
	if name != "" && !strings.ContainsAny(name, ".[]\"' \t\n") && strconv.Quote(name) == `"`+name+`"` {
		return name
	}
	return "[" + strconv.Quote(name) + "]"
}

// joinPath writes path elements as a field path: keys joined by dots,
// list indexes and quoted keys in brackets.
func joinPath(path []string) string {
	var b strings.Builder
	for _, e := range path {
		if b.Len() > 0 && !strings.HasPrefix(e, "[") {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return b.String()
}
