// Package ordered holds the ordered-mode edits of a pod spec: sidecars first
// in spec.containers, a blocking postStart, a preStop delay, and a drain delay
// for the application containers. Each edit is a kio.Filter over pod spec nodes.
package ordered

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// MoveFirst moves the named containers to the front of spec.containers, in
// the given order; the others keep their relative order. The containers'
// nodes move with their comments.
type MoveFirst struct {
	// Names are the sidecars, in start order.
	Names []string
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = MoveFirst{}

// Filter applies the move to each pod spec node.
func (f MoveFirst) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f MoveFirst) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	seq := podspec.List(spec, podspec.Containers)
	if seq == nil {
		return spec, nil
	}
	content := seq.YNode().Content
	picked := map[*yaml.Node]bool{}
	var front []*yaml.Node
	var moved []string
	for _, name := range f.Names {
		for _, c := range content {
			if podspec.Name(c) == name && !picked[c] {
				front = append(front, c)
				picked[c] = true
				moved = append(moved, name)
				break
			}
		}
	}
	reordered := front
	for _, c := range content {
		if !picked[c] {
			reordered = append(reordered, c)
		}
	}
	for i := range content {
		if content[i] != reordered[i] {
			seq.YNode().Content = reordered
			f.Log.Change(report.Pod(podspec.Containers).Values(containerNames(content), containerNames(reordered)), "moved %s to the front of containers", strings.Join(moved, ", "))
			break
		}
	}
	return spec, nil
}

// containerNames are the names of the containers, in order.
func containerNames(containers []*yaml.Node) []string {
	out := make([]string, len(containers))
	for i, c := range containers {
		out[i] = podspec.Name(c)
	}
	return out
}
