// Package podspec looks up containers in a pod spec node by name, never by
// index, for both containers and initContainers.
package podspec

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Container list fields of a pod spec.
const (
	// Containers is spec.containers.
	Containers = "containers"
	// InitContainers is spec.initContainers.
	InitContainers = "initContainers"
)

// List returns the named container list of the pod spec, or nil when absent
// or not a list.
func List(spec *yaml.RNode, field string) *yaml.RNode {
	seq, err := tree.Lookup(spec, field)
	if err != nil || seq == nil || seq.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	return seq
}

// Name returns a container node's name.
func Name(c *yaml.Node) string {
	if c.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value == "name" {
			return c.Content[i+1].Value
		}
	}
	return ""
}

// Find returns the container with the given name in the named list, or nil.
func Find(spec *yaml.RNode, field, name string) *yaml.RNode {
	seq := List(spec, field)
	if seq == nil {
		return nil
	}
	for _, c := range seq.YNode().Content {
		if Name(c) == name {
			return yaml.NewRNode(c)
		}
	}
	return nil
}

// Names returns the container names of the named list, in order.
func Names(spec *yaml.RNode, field string) []string {
	seq := List(spec, field)
	if seq == nil {
		return nil
	}
	var names []string
	for _, c := range seq.YNode().Content {
		names = append(names, Name(c))
	}
	return names
}

// All returns every container node of both lists, init containers first.
func All(spec *yaml.RNode) []*yaml.RNode {
	var out []*yaml.RNode
	for _, field := range []string{InitContainers, Containers} {
		if seq := List(spec, field); seq != nil {
			for _, c := range seq.YNode().Content {
				out = append(out, yaml.NewRNode(c))
			}
		}
	}
	return out
}
