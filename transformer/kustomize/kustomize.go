// Package kustomize applies sidecar-lifecycle to a kustomize resmap.ResMap,
// for Go programs that embed kustomize (sigs.k8s.io/kustomize/api).
package kustomize

import (
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Transformer is a resmap.Transformer that orders sidecars as Config says.
type Transformer struct {
	// Config is a loaded config (config.Load or config.LoadBytes).
	Config *config.SidecarLifecycle
}

var _ resmap.Transformer = Transformer{}

// Transform edits the resources in place. With any error result it changes
// nothing and returns a *report.ResultsError listing every error.
func (t Transformer) Transform(m resmap.ResMap) error {
	return m.ApplyFilter(inPlace{t.Config})
}

// inPlace runs the transformer and writes each edit into the resource's own
// node, so that kustomize keeps the resource's build metadata.
type inPlace struct{ cfg *config.SidecarLifecycle }

// Filter transforms the nodes and copies each edit into its input node.
func (f inPlace) Filter(nodes []*yaml.RNode) ([]*yaml.RNode, error) {
	out, results := transformer.New(f.cfg).Transform(nodes)
	if err := report.ErrorOf(results); err != nil {
		return nodes, err
	}
	for i := range nodes {
		if out[i] != nodes[i] {
			nodes[i].SetYNode(out[i].YNode())
		}
	}
	return nodes, nil
}
