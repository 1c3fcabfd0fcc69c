package explain

import (
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/endpoint"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// cannotStart says, for each sidecar of the workload as the function
// writes it whose wait command or startup probe cannot pass, why
// (endpoint.Check), after the container's name. The sidecars are those of
// pod, read with the run's verdict.
func cannotStart(cfg *config.SidecarLifecycle, spec *yaml.RNode, pod budget.Pod) []string {
	sidecars := map[string]bool{}
	for _, c := range slices.Concat(pod.Init, pod.Containers) {
		sidecars[c.Name] = c.Sidecar
	}
	if spec == nil {
		return nil
	}
	var out []string
	for _, field := range []string{podspec.InitContainers, podspec.Containers} {
		seq := podspec.List(spec, field)
		if seq == nil {
			continue
		}
		for _, n := range seq.YNode().Content {
			if n.Kind != yaml.MappingNode {
				continue
			}
			c, name, image := yaml.NewRNode(n), podspec.Name(n), ""
			if !sidecars[name] {
				continue // not a sidecar in the run's verdict (an application, say)
			}
			if f := c.Field("image"); f != nil {
				image = yaml.GetValue(f.Value)
			}
			p, ok := presetOf(cfg, name, image)
			if !ok {
				continue
			}
			for _, why := range endpoint.Check(c, p) {
				out = append(out, name+": "+why)
			}
		}
	}
	return out
}

// presetOf finds the preset of a container as the config's sidecars name
// it or recognise it.
func presetOf(cfg *config.SidecarLifecycle, name, image string) (preset.Preset, bool) {
	for _, sc := range cfg.Spec.Sidecars {
		p, ok := preset.Resolve(cfg.Spec.Catalog.Entries, sc.Preset)
		if !ok {
			continue
		}
		if _, recognised := p.Recognises(name, image); name == sc.Name || (sc.Recognise && recognised) {
			return p, true
		}
	}
	return preset.Preset{}, false
}
