package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The config's key check: the same as the one internal/yamlio/shapes.Walk
// makes of every input (a key given twice, a key that is not a scalar),
// with the same messages; the config keeps this copy so that it depends on
// no internal package, and TestKeysAgree holds it to Walk.

// duplicateKeyError is a key that appears twice in one mapping.
type duplicateKeyError struct {
	// path is the mapping's field path, "" for the top level.
	path string
	// key is the key.
	key string
}

func (e *duplicateKeyError) Error() string {
	msg := fmt.Sprintf("duplicate key %q: remove one; the API server rejects duplicate fields and this function would read only the first", e.key)
	if e.path == "" {
		return msg
	}
	return e.path + ": " + msg
}

// checkKeys checks every mapping of the tree for duplicate keys and keys
// that are not scalars. It does not follow aliases: the node an alias
// refers to is checked where it is defined.
func checkKeys(n *yaml.Node) error {
	return walkKeys(n, make([]pathElem, 0, 16))
}

// pathElem is one step of a field path: a key, or a list index.
type pathElem struct {
	key   string
	index int // -1 for a key
}

func walkKeys(n *yaml.Node, path []pathElem) error {
	switch n.Kind {
	case yaml.MappingNode:
		var seen map[string]bool // for long mappings; short ones are scanned
		if len(n.Content) > 2*shortMapping {
			seen = make(map[string]bool, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			name, ok := keyName(k)
			if !ok {
				return keyKindError(path, k)
			}
			if duplicateKey(n.Content[:i], name, seen) {
				return &duplicateKeyError{path: joinPath(path), key: name}
			}
			if err := walkKeys(v, append(path, pathElem{key: name, index: -1})); err != nil {
				return err
			}
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = append(path, pathElem{index: i})
			}
			if err := walkKeys(c, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// shortMapping is the number of keys up to which a mapping is scanned for
// a duplicate rather than indexed.
const shortMapping = 16

// duplicateKey reports whether name is among the keys before it: the
// entries before it, or seen (which it joins) for a long mapping.
func duplicateKey(before []*yaml.Node, name string, seen map[string]bool) bool {
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

// keyKindError is the error for a key that is not a scalar.
func keyKindError(path []pathElem, k *yaml.Node) error {
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
func joinPath(path []pathElem) string {
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
