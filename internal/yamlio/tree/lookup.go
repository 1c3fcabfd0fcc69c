package tree

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Lookup is tree.Lookup(rn, fields...) for a path of mapping keys,
// without the filter chain: the value of the first key of each name, nil
// where a key is absent or a value null. Anything else (a path part that
// kyaml reads as a list index or matcher, a node that is not a mapping on
// the way) goes to kyaml, which gives the same answer and error.
func Lookup(rn *yaml.RNode, fields ...string) (*yaml.RNode, error) {
	n := rn.YNode()
	for i, f := range fields {
		if n == nil || n.Tag == yaml.NodeTagNull {
			return nil, nil
		}
		if n.Kind != yaml.MappingNode || len(n.Content)%2 != 0 || !plainField(f) {
			return yaml.NewRNode(n).Pipe(yaml.Lookup(fields[i:]...))
		}
		var value *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == f {
				value = n.Content[j+1]
				break
			}
		}
		if value == nil {
			return nil, nil
		}
		n = value
	}
	if n == nil {
		return nil, nil
	}
	return yaml.NewRNode(n), nil
}

// plainField reports whether kyaml's path getter reads a path part as a
// mapping key, as it is.
func plainField(f string) bool {
	if f == "" || f == "-" || f == "*" || strings.TrimSpace(f) != f || yaml.IsListIndex(f) {
		return false
	}
	return !number(f)
}

// number reports whether strconv.Atoi could read f: digits after an
// optional sign (the range aside, which kyaml's getter also reads as a key
// when Atoi fails; Lookup then asks kyaml).
func number(f string) bool {
	if f[0] == '+' || f[0] == '-' {
		f = f[1:]
	}
	if f == "" {
		return false
	}
	for i := 0; i < len(f); i++ {
		if f[i] < '0' || f[i] > '9' {
			return false
		}
	}
	return true
}

// Value is the value of the first key of that name in mapping m, or nil
// (nil too when m is nil or not a mapping).
func Value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
