package explain

import (
	"slices"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/yamlnode"
)

// namespaces reads the Namespaces of the input (entries of a List too), by name.
func namespaces(items []*yaml.RNode) map[string]preset.Meta {
	out := map[string]preset.Meta{}
	note := func(n *yaml.RNode) {
		if n.GetKind() == "Namespace" && n.GetApiVersion() == "v1" {
			out[n.GetName()] = preset.Meta{Labels: n.GetLabels(), Annotations: n.GetAnnotations()}
		}
	}
	for _, item := range items {
		entries, ok := list.Items(item)
		if !ok {
			note(item)
			continue
		}
		for _, n := range entries {
			if n.Kind == yaml.MappingNode {
				note(yaml.NewRNode(n))
			}
		}
	}
	return out
}

// injected returns the sidecars that the catalog's injectors add to the
// workload, as the function writes it, at admission: a sidecar whose
// injector one of its switches turns on, on the pod template or on the
// workload's Namespace in the input, which no switch turns off, and whose
// container is not in the pod. Each leaves as its own exit settings on the
// pod template say.
func injected(cfg *config.SidecarLifecycle, node *yaml.RNode, pod budget.Pod, ns map[string]preset.Meta) []budget.Injected {
	w, ok := workload.Find(node, cfg.Spec.PodSpecPaths)
	if !ok {
		return nil
	}
	tmpl := preset.Meta{}
	if meta, err := yamlnode.Lookup(node, w.TemplateMetaPath()...); err == nil && meta != nil {
		tmpl = preset.Meta{Labels: budget.Labels(meta), Annotations: budget.Annotations(meta)}
	}
	var out []budget.Injected
	for _, p := range cfg.Spec.Presets() {
		names := containerNames(cfg, p)
		if _, _, on := p.Admitted(tmpl, ns[w.Namespace]); !on || inPod(pod, names, p) {
			continue
		}
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

// inPod reports whether a container or init container of the pod has one
// of the names, or is one the preset recognises, by name or image, as the
// function's edits do.
func inPod(pod budget.Pod, names []string, p preset.Preset) bool {
	for _, c := range slices.Concat(pod.Init, pod.Containers) {
		_, recognised := p.Recognises(c.Name, c.Image)
		if (recognised && !slices.Contains(p.InitContainers, c.Name)) || slices.Contains(names, c.Name) {
			return true
		}
	}
	return false
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
