// Package transformer is the sidecar-lifecycle library: it applies a
// SidecarLifecycle config (package config) to KRM resources as kyaml RNode
// edits that keep comments, and reports what it did as KRM function
// results. Package kustomize adapts it to programs that embed kustomize.
package transformer

import (
	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// ResultsError is the error of a run with error results: Filter and the
// kustomize adapter return it, and its Results list every error result.
type ResultsError = report.ResultsError

// Transformer applies a loaded config to resources. It holds no state
// between runs: each call of Filter or Transform is a run of its own.
type Transformer struct {
	engine *engine.Transformer
}

// New returns a Transformer for a config loaded with config.Load or
// config.LoadBytes. The config must not change once the Transformer is used.
func New(cfg *config.SidecarLifecycle) *Transformer {
	return &Transformer{engine: engine.New(cfg)}
}

// Config is the config the Transformer applies.
func (t *Transformer) Config() *config.SidecarLifecycle { return t.engine.Config }

// Transform edits items held in memory and returns the items to write with
// every result, the closing ones (the run's summary) last. When any item
// fails, or the action is validate, the input items are returned unchanged.
func (t *Transformer) Transform(items []*yaml.RNode) ([]*yaml.RNode, fn.Results) {
	return t.engine.Transform(items)
}

// Filter is the whole transformation as a kio.Filter, for kyaml pipelines.
// When any item fails it returns the input unchanged and a *ResultsError
// listing every error result.
func (t *Transformer) Filter(items []*yaml.RNode) ([]*yaml.RNode, error) {
	return t.engine.Filter(items)
}

var _ kio.Filter = &Transformer{}
