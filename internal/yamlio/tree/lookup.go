package tree

import (
	"slices"
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

// Meta is what kyaml's GetMeta reads of an item, read the same way: its
// apiVersion, kind, name and namespace and, of its annotations, those
// named (nil when it has none), without GetMeta's maps of every label and
// annotation.
func Meta(item *yaml.RNode, annotations ...string) yaml.ResourceMeta {
	var m yaml.ResourceMeta
	n := item.YNode()
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	m.APIVersion, m.Kind = metaText(n, yaml.APIVersionField), metaText(n, yaml.KindField)
	md := metaField(n, yaml.MetadataField)
	m.Name, m.Namespace = metaText(md, yaml.NameField), metaText(md, yaml.NamespaceField)
	a := metaField(md, yaml.AnnotationsField)
	if a == nil || a.Kind != yaml.MappingNode {
		return m
	}
	m.Annotations = map[string]string{}
	for i := 0; i+1 < len(a.Content); i += 2 {
		k := a.Content[i].Value
		if _, seen := m.Annotations[k]; seen || !slices.Contains(annotations, k) {
			continue // the first key of a name counts, as in GetMeta
		}
		m.Annotations[k] = ""
		if v := a.Content[i+1]; !yaml.IsYNodeTaggedNull(v) {
			m.Annotations[k] = v.Value
		}
	}
	return m
}

// metaField is the value of the first key of that name in mapping m, as
// RNode.Field finds it, or nil where GetMeta takes none: m not a mapping,
// the key absent, its value null or empty.
func metaField(m *yaml.Node, key string) *yaml.Node {
	v := Value(m, key)
	if yaml.IsYNodeNilOrEmpty(v) {
		return nil
	}
	return v
}

// metaText is the text of metaField, "" for none.
func metaText(m *yaml.Node, key string) string {
	if v := metaField(m, key); v != nil {
		return v.Value
	}
	return ""
}
