package krmtest

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Strict parses text, one YAML document or several, with a strict YAML
// reader: every alias after its anchor, no key twice in a mapping. It
// returns the first problem.
func Strict(text []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not strict YAML: %s", strings.ReplaceAll(err.Error(), "\n", " "))
		}
	}
}

// SameData reports whether two items hold the same data, aliases and
// merge keys resolved, comments and layout ignored.
func SameData(a, b *yaml.RNode) bool {
	var va, vb any
	if a.YNode().Decode(&va) != nil || b.YNode().Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// FixedPoint reports whether an item written on its own reads back and
// writes the same: then running the function again cannot move anything.
func FixedPoint(item *yaml.RNode) bool {
	once, err := Strings([]*yaml.RNode{item})
	if err != nil {
		return false
	}
	again, err := yaml.Parse(once[0])
	if err != nil {
		return false
	}
	twice, err := Strings([]*yaml.RNode{again})
	return err == nil && twice[0] == once[0]
}

// hasAlias reports whether the item holds an alias.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// rewritten reports whether an output item that no result names may differ
// from kyaml's round trip of its input: it holds the same data and every
// comment, it is a fixed point, and the round trip was not (kyaml would
// move its comments again on the next run) or the input had an alias of
// an anchor the function expanded.
func rewritten(in, out *yaml.RNode) bool {
	return SameData(in, out) && FixedPoint(out) && (hasAlias(in.YNode()) || !FixedPoint(in))
}
