package engine

import (
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Transformer runs a loaded config over lists of items: each call of
// Filter or Transform, and each Engine from Start, is a run of its own.
type Transformer struct {
	// Config is the loaded, defaulted and validated functionConfig; it
	// must not change once the Transformer is used.
	Config *config.SidecarLifecycle
	editor *item.Editor
}

// New returns a Transformer for the config.
func New(cfg *config.SidecarLifecycle) *Transformer {
	return &Transformer{Config: cfg, editor: item.New(cfg)}
}

// NewAdmission returns a Transformer for the config whose runs edit pods
// under admission: a pod a controller creates is edited, not left to the
// controller (see item.Editor.Admission).
func NewAdmission(cfg *config.SidecarLifecycle) *Transformer {
	t := New(cfg)
	t.editor.Admission = true
	return t
}

// Filter is the whole run as a kio.Filter. When any item fails it returns
// the input unchanged and a *report.ResultsError listing every error result.
func (t *Transformer) Filter(items []*yaml.RNode) ([]*yaml.RNode, error) {
	out, results := t.Transform(items)
	if err := report.ErrorOf(results); err != nil {
		return items, err
	}
	return out, nil
}

var _ kio.Filter = &Transformer{}
