package item

import (
	"fmt"
	"slices"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// checkKubelets adds to a workload's results a break for each field its
// pod spec uses that a kubelet of the input's Nodes does not serve: the
// input's pod spec (w's) with action validate (what runs), the edited one
// with action mutate (what will).
func (t *Editor) checkKubelets(w *workload.Workload, nodes kubelet.Nodes, r *Result) {
	if len(nodes) == 0 || w == nil || r.Outcome == OutcomeFailed {
		return
	}
	pw := w
	if t.Config.Spec.Action != config.ActionValidate {
		pw = r.written()
	}
	spec, err := pw.PodSpec()
	if err != nil || spec == nil {
		return
	}
	for _, u := range t.uses(pw, spec, r.injected) {
		old := nodes.Below(u.Feature.Minor())
		if len(old) == 0 {
			continue
		}
		runs, fix := "run", ""
		if len(old) == 1 {
			runs = "runs"
		}
		if !t.Config.Spec.VersionAuto() {
			fix = fmt.Sprintf(" (kubernetesVersion auto, or 1.%d, makes the function write only what they serve)", nodes.OldestMinor())
		}
		r.Log.Breaks = append(r.Log.Breaks, report.NewFinding(report.KindKubelet, fn.Warning, u.field,
			"%s, which kubelets serve from 1.%d on (feature gate %s on by default): %d of the input's %s %s an older kubelet: %s; "+
				"upgrade their kubelets or keep the workload off them%s",
			u.title, u.Feature.Minor(), u.Feature.Gate, len(old), nodes.Count(), runs, old.Names(), fix))
	}
}

// use is a field of a workload that a kubelet serves from some version on,
// at the field a finding names, with what a message calls it.
type use struct {
	kubelet.Feature
	field report.Field
	title string
}

// uses are the fields of the pod spec that kubelets serve from some
// version on, and the native sidecars that the injectors adding sidecars
// at admission (injected, by preset) write because the workload's native
// switch asks for them.
func (t *Editor) uses(w *workload.Workload, spec *yaml.RNode, injected []string) []use {
	var out []use
	for _, u := range kubelet.Uses(spec) {
		out = append(out, use{u.Feature, report.Container(u.List, u.Container, u.Path...), u.Feature.Title})
	}
	for _, p := range t.sidecarEntries().presets {
		if !slices.Contains(injected, p.Name) {
			continue
		}
		if key, v, off := p.NativeSwitch(w); key != "" && !off {
			native := kubelet.ByID(kubelet.NativeSidecar)
			out = append(out, use{native, report.Annotation(key).Values(v, nil),
				fmt.Sprintf("a native sidecar (annotation %s: %q makes the %s injector add its sidecar as one)", key, v, p.Name)})
		}
	}
	return out
}
