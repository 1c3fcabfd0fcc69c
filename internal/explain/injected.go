package explain

import (
	"slices"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// injected returns the sidecars that the catalog's injectors add to the
// workload, as the function writes it, at admission: those of the presets
// the run found injected (transformer.Edit.Injected), so that the
// explanation and the run agree. Each leaves as its own exit settings on
// the pod template say.
func injected(cfg *config.SidecarLifecycle, node *yaml.RNode, presets []string) []budget.Injected {
	w, ok := workload.Find(node, cfg.Spec.PodSpecPaths)
	if !ok {
		return nil
	}
	tmpl := preset.Meta{}
	if meta, err := tree.Lookup(node, w.TemplateMetaPath()...); err == nil && meta != nil {
		tmpl = preset.Meta{Labels: budget.Labels(meta), Annotations: budget.Annotations(meta)}
	}
	var out []budget.Injected
	for _, p := range preset.All(cfg.Spec.Catalog.Entries) {
		if !slices.Contains(presets, p.Name) {
			continue
		}
		names := containerNames(cfg, p)
		in := budget.Injected{Exit: budget.InjectedExit(names[0], p.ExitDelays, tmpl.Annotations)}
		in.Native, in.Start = start(p, tmpl)
		out = append(out, in)
	}
	return out
}

// containerNames are the names the sidecar's container goes by: the
// config's for the preset first, then the catalog's.
func containerNames(cfg *config.SidecarLifecycle, p preset.Preset) []string {
	var names []string
	for _, sc := range cfg.Spec.Sidecars {
		if sc.Preset == p.Name {
			names = append(names, sc.Name)
		}
	}
	return append(names, p.Containers...)
}

// start says how the injector starts the sidecar, and whether as a native
// sidecar: the pod template's native switch, when on.
func start(p preset.Preset, tmpl preset.Meta) (native bool, text string) {
	key, v, off := p.NativeSwitch(tmpl)
	if on, err := strconv.ParseBool(v); key != "" && !off && err == nil && on {
		return true, "added at admission by its injector as a native sidecar (" + key + " " + report.Quote(v) + ")"
	}
	if p.OptedOut(tmpl, false) {
		return false, "added at admission by its injector; the workload turns its ordering off"
	}
	return false, "added at admission by its injector: " + p.Injector.Ordering
}
