package item

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// hash is a digest of the workload's effective settings: it changes exactly
// when a setting that shapes this workload's sidecars changes.
func (p plan) hash(s *config.Spec) string {
	type sidecar struct {
		Name, Preset, IfAbsent string
		Wait, Sleep            []string
		WaitBeforeExit         int64
		StartupProbe           any
	}
	settings := struct {
		Mode, Version, GracePolicy, ExistingHooks string
		Margin, DrainDelay                        int64
		Sidecars                                  []sidecar
	}{
		Mode: string(p.mode), Version: s.Version().String(), GracePolicy: string(s.TerminationGracePeriod.Policy),
		ExistingHooks: string(s.ExistingHooks), Margin: config.Seconds(s.TerminationGracePeriod.Margin.Value),
		DrainDelay: config.Seconds(p.drainDelay),
	}
	for _, sc := range p.sidecars {
		settings.Sidecars = append(settings.Sidecars, sidecar{
			Name: sc.Name, Preset: sc.Preset, IfAbsent: string(sc.IfAbsent), Wait: sc.waitCommand, Sleep: sc.SleepCommand,
			WaitBeforeExit: config.Seconds(sc.waitBeforeExit), StartupProbe: sc.StartupProbe,
		})
	}
	b, _ := json.Marshal(settings) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// rolloutHash stamps the config hash on pod template metadata nodes.
type rolloutHash struct {
	Hash string
	Log  *report.Log
}

var _ kio.Filter = rolloutHash{}

// Filter sets the annotation on each metadata node.
func (f rolloutHash) Filter(metas []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(func(meta *yaml.RNode) (*yaml.RNode, error) {
		cur, err := tree.Lookup(meta, yaml.AnnotationsField, config.AnnotationConfigHash)
		if err == nil && cur != nil && yaml.GetValue(cur) == f.Hash {
			return meta, nil
		}
		f.Log.Change(report.Annotation(config.AnnotationConfigHash).Values(hashOf(cur, err), f.Hash), "set annotation %s: %q", config.AnnotationConfigHash, f.Hash)
		return meta, meta.PipeE(yaml.LookupCreate(yaml.MappingNode, yaml.AnnotationsField), yaml.SetField(config.AnnotationConfigHash, yaml.NewStringRNode(f.Hash)))
	})).Filter(metas)
}

// hashOf is the hash annotation's value for a finding, or nil when it is
// absent.
func hashOf(cur *yaml.RNode, err error) any {
	if err != nil || cur == nil {
		return nil
	}
	return yaml.GetValue(cur)
}
