package kubelet

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Use is where a pod spec uses a feature.
type Use struct {
	// Feature is the feature used.
	Feature Feature
	// List is the container list (containers or initContainers) and
	// Container the name of the container that uses it.
	List, Container string
	// Path is the field's path from the container.
	Path []string
}

// Uses returns the first place, in the order containers, then
// initContainers, where the pod spec uses each feature, in the catalog's
// order of the features.
func Uses(spec *yaml.RNode) []Use {
	first := map[string]Use{}
	note := func(id, list, name string, path ...string) {
		if _, seen := first[id]; !seen {
			first[id] = Use{Feature: ByID(id), List: list, Container: name, Path: path}
		}
	}
	for _, list := range []string{"containers", "initContainers"} {
		for _, c := range containers(spec, list) {
			name := scalar(c, "name")
			if list == "initContainers" && scalar(c, "restartPolicy") == "Always" {
				note(NativeSidecar, list, name, "restartPolicy")
			}
			for _, hook := range []string{"preStop", "postStart"} {
				sleep, err := c.Pipe(yaml.Lookup("lifecycle", hook, "sleep"))
				if err != nil || sleep == nil {
					continue
				}
				note(SleepAction, list, name, "lifecycle", hook, "sleep")
				if scalar(sleep, "seconds") == "0" {
					note(ZeroSleep, list, name, "lifecycle", hook, "sleep", "seconds")
				}
			}
		}
	}
	var out []Use
	for _, f := range Catalog().Features {
		if u, ok := first[f.ID]; ok {
			out = append(out, u)
		}
	}
	return out
}

// containers are the mappings of the pod spec's list.
func containers(spec *yaml.RNode, list string) []*yaml.RNode {
	l := spec.Field(list)
	if l == nil || l.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.RNode
	for _, c := range l.Value.YNode().Content {
		if c.Kind == yaml.MappingNode {
			out = append(out, yaml.NewRNode(c))
		}
	}
	return out
}

// scalar is the value of the mapping's scalar field, or "".
func scalar(m *yaml.RNode, field string) string {
	f := m.Field(field)
	if f == nil || f.Value.YNode().Kind != yaml.ScalarNode {
		return ""
	}
	return f.Value.YNode().Value
}
