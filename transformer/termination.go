package transformer

import (
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/workload"
)

// sidecarNames are the container names the config lists as sidecars.
func (t *Transformer) sidecarNames() map[string]bool {
	out := make(map[string]bool, len(t.Config.Spec.Sidecars))
	for _, sc := range t.Config.Spec.Sidecars {
		out[sc.Name] = true
	}
	return out
}

// checkBudget reports, in ordered mode, each sidecar of the edited pod spec
// that leaves before the application's preStop ends (native sidecars are
// ordered by kubelet).
func (t *Transformer) checkBudget(spec *yaml.RNode, found, injected []sidecarPlan, p plan, log *report.Log) {
	if p.mode == config.ModeNative || len(found)+len(injected) == 0 {
		return
	}
	exits := make([]budget.Exit, len(injected))
	for i, sc := range injected {
		exits[i] = budget.Exit{Name: sc.Name, Seconds: config.Seconds(sc.waitBeforeExit), Injected: true}
	}
	longestExit := int64((config.MaxDelay - t.Config.Spec.TerminationGracePeriod.Margin.Value) / time.Second)
	for _, msg := range budget.ReadPod(spec, t.sidecarNames()).OrderedBreaks(exits, longestExit) {
		log.Break("%s", msg)
	}
}

// fact is what the termination budget keeps of one item as the function
// writes it (with action mutate): the drain and pod labels of a workload
// the function handles, or an Ingress's, Service's or BackendConfig's
// load balancer settings. Skipped and failed workloads are left out.
func (t *Transformer) fact(node *yaml.RNode, outcome outcome) budget.Fact {
	resRef, file := ref(node)
	r := budget.Ref{Resource: resRef, File: file}
	w, ok := workload.Find(node, t.Config.Spec.PodSpecPaths)
	if !ok {
		return budget.Observe(node, r)
	}
	if outcome == outcomeSkipped || outcome == outcomeFailed || !workload.Selected(w, t.Config.Spec.Targets) {
		return budget.Fact{}
	}
	spec, err := w.PodSpec()
	if err != nil || spec == nil || spec.YNode().Kind != yaml.MappingNode {
		return budget.Fact{}
	}
	var labels map[string]string
	if meta, err := node.Pipe(yaml.Lookup(w.TemplateMetaPath()...)); err == nil && meta != nil {
		labels = budget.Labels(meta)
	}
	pod := budget.ReadPod(spec, t.sidecarNames())
	return budget.Fact{Workload: &budget.Workload{Ref: r, Labels: labels, Drain: pod.Drain(), Sidecars: pod.OrderedSidecars()}}
}

// ReadPod reads the pod of a workload item as the termination budget sees
// it (budget.ReadPod), with the config's sidecars; ok is false for an item
// that is not a workload or has no pod spec.
func (e *Engine) ReadPod(node *yaml.RNode) (pod budget.Pod, ok bool) {
	w, found := workload.Find(node, e.t.Config.Spec.PodSpecPaths)
	if !found {
		return budget.Pod{}, false
	}
	spec, err := w.PodSpec()
	if err != nil || spec == nil {
		return budget.Pod{}, false
	}
	return budget.ReadPod(spec, e.t.sidecarNames()), true
}
