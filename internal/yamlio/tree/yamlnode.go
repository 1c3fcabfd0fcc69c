// Package tree holds small kyaml node reads and edits shared by the filters.
package tree

import "sigs.k8s.io/kustomize/kyaml/yaml"

// InsertBefore adds field: value to the mapping just before the key before,
// or at the end when that key is absent, so that new fields land where people
// write them (metadata before spec, initContainers before containers).
func InsertBefore(m *yaml.RNode, field string, value *yaml.RNode, before string) error {
	content := m.YNode().Content
	for i := 0; i+1 < len(content); i += 2 {
		if content[i].Value == before {
			key := yaml.NewScalarRNode(field).YNode()
			m.YNode().Content = append(append(append([]*yaml.Node{}, content[:i]...), key, value.YNode()), content[i:]...)
			return nil
		}
	}
	return m.PipeE(yaml.SetField(field, value))
}

// EnsureMapBefore returns the mapping field of m, adding an empty one just
// before the key before when it is absent or null.
func EnsureMapBefore(m *yaml.RNode, field, before string) (*yaml.RNode, error) {
	if f := m.Field(field); f != nil && f.Value.YNode().Kind == yaml.MappingNode {
		return f.Value, nil
	} else if f != nil {
		if err := m.PipeE(yaml.SetField(field, yaml.NewMapRNode(nil))); err != nil {
			return nil, err
		}
		return m.Field(field).Value, nil
	}
	n := yaml.NewMapRNode(nil)
	return n, InsertBefore(m, field, n, before)
}

// MappingValue returns the value of a top-level key of a mapping written as
// YAML or JSON text, such as an annotation's value.
func MappingValue(text, key string) (string, bool) {
	rn, err := yaml.Parse(text)
	if err != nil || rn.YNode().Kind != yaml.MappingNode {
		return "", false
	}
	if f := rn.Field(key); f != nil {
		return yaml.GetValue(f.Value), true
	}
	return "", false
}

// MappingPath returns the scalar value at a path of keys in nested mappings
// written as YAML or JSON text, such as proxyMetadata then
// EXIT_ON_ZERO_ACTIVE_CONNECTIONS in Istio's ProxyConfig annotation.
func MappingPath(text string, keys ...string) (string, bool) {
	rn, err := yaml.Parse(text)
	if err != nil || rn == nil {
		return "", false
	}
	for _, key := range keys {
		if rn.YNode().Kind != yaml.MappingNode {
			return "", false
		}
		f := rn.Field(key)
		if f == nil {
			return "", false
		}
		rn = f.Value
	}
	if rn.YNode().Kind != yaml.ScalarNode {
		return "", false
	}
	return yaml.GetValue(rn), true
}
