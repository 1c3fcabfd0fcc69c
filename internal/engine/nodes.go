package engine

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

// kubelets are what the Nodes of a run's input (`kubectl get nodes,... -o
// yaml`) say of their kubelets: a field that a kubelet serves only from
// some version on is served on every Node only from the oldest kubelet's
// version on.
type kubelets struct {
	// nodes are the Nodes whose kubelet version reads.
	nodes kubelet.Nodes
	// unread are the warnings about the Nodes whose version does not.
	unread fn.Results
	// followed is set when kubernetesVersion auto followed the oldest.
	followed *kubelet.Node
}

// note records a Node item.
func (k *kubelets) note(item *yaml.RNode) {
	n, err := kubelet.ReadNode(item)
	if err != nil {
		r, file := ref(item)
		k.unread = append(k.unread, report.Result(report.NewFinding(report.KindKubelet, fn.Warning, report.At("status.nodeInfo.kubeletVersion"),
			"%v: it is not counted among the kubelets", err), r, file))
		return
	}
	k.nodes = append(k.nodes, n)
}

// followOldest sets the run's version to the oldest kubelet's when the
// config's kubernetesVersion is auto and the input has Nodes: the edits
// then write only what every Node serves, and the config's checks that
// depend on the version are made again at it.
func (e *Engine) followOldest() {
	if e.cfgErr != nil || !e.t.Config.Spec.VersionAuto() {
		return
	}
	oldest, ok := e.kubelets.nodes.Oldest()
	if !ok {
		return
	}
	e.kubelets.followed = &oldest
	cfg, err := e.t.Config.AtVersion(config.Version{Major: 1, Minor: oldest.Minor})
	if err != nil {
		e.cfgErr = err
		return
	}
	e.t = New(cfg)
}

// checkKubelets adds to a workload's results a break for each field its
// pod spec uses that a kubelet of the input's Nodes does not serve: the
// input's pod spec with action validate (what runs), the edited one with
// action mutate (what will).
func (e *Engine) checkKubelets(item *yaml.RNode, w *workload.Workload, r *itemResult) {
	if len(e.kubelets.nodes) == 0 || w == nil || r.outcome == outcomeFailed {
		return
	}
	node := r.Node
	if e.action() == config.ActionValidate {
		node = item
	}
	pw, ok := workload.Find(node, e.t.Config.Spec.PodSpecPaths)
	if !ok {
		return
	}
	spec, err := pw.PodSpec()
	if err != nil || spec == nil {
		return
	}
	for _, u := range e.uses(pw, spec, r.injected) {
		old := e.kubelets.nodes.Below(u.Feature.Minor())
		if len(old) == 0 {
			continue
		}
		runs, fix := "run", ""
		if len(old) == 1 {
			runs = "runs"
		}
		if !e.t.Config.Spec.VersionAuto() {
			fix = fmt.Sprintf(" (kubernetesVersion auto, or 1.%d, makes the function write only what they serve)", oldestMinor(e.kubelets.nodes))
		}
		r.Log.Breaks = append(r.Log.Breaks, report.NewFinding(report.KindKubelet, fn.Warning, u.field,
			"%s, which kubelets serve from 1.%d on (feature gate %s on by default): %d of the input's %s %s an older kubelet: %s; "+
				"upgrade their kubelets or keep the workload off them%s",
			u.title, u.Feature.Minor(), u.Feature.Gate, len(old), countNodes(len(e.kubelets.nodes)), runs, old.Names(), fix))
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
func (e *Engine) uses(w *workload.Workload, spec *yaml.RNode, injected []string) []use {
	var out []use
	for _, u := range kubelet.Uses(spec) {
		out = append(out, use{u.Feature, report.Container(u.List, u.Container, u.Path...), u.Feature.Title})
	}
	for _, p := range e.t.sidecarEntries().presets {
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

// countNodes is "1 Node" or "n Nodes".
func countNodes(n int) string {
	if n == 1 {
		return "1 Node"
	}
	return fmt.Sprintf("%d Nodes", n)
}

// oldestMinor is the minor of the oldest kubelet among nodes, which must
// not be empty.
func oldestMinor(nodes kubelet.Nodes) int {
	n, _ := nodes.Oldest()
	return n.Minor
}

// results are the closing results about the Nodes: a warning per Node
// whose kubelet version does not read, and with kubernetesVersion auto an
// info saying which version the run followed.
func (e *Engine) kubeletResults() fn.Results {
	out := append(fn.Results(nil), e.kubelets.unread...)
	if e.t == nil || !e.t.Config.Spec.VersionAuto() {
		return out
	}
	msg := fmt.Sprintf("kubernetesVersion auto: %s, the default: the input has no Node whose kubelet version reads", config.DefaultKubernetesVersion)
	if n := e.kubelets.followed; n != nil {
		msg = fmt.Sprintf("kubernetesVersion auto: 1.%d, the oldest kubelet among the input's %s: %s", n.Minor, countNodes(len(e.kubelets.nodes)), n)
	}
	return append(out, report.Result(report.NewFinding(report.KindKubelet, fn.Info, report.At("spec.kubernetesVersion"), "%s", msg), nil, nil))
}
