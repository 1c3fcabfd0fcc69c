package transformer

import (
	"fmt"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/workload"
)

// SidecarNames are the container names the config lists as sidecars.
func (t *Transformer) SidecarNames() map[string]bool {
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
	for _, msg := range budget.ReadPod(spec, t.SidecarNames()).OrderedBreaks(exits) {
		log.Break("%s", msg)
	}
}

// resolveAuto sets the waitBeforeExit of each sidecar that has auto: the
// application's longest readable preStop, or the drain delay the function
// adds, plus budget.AutoAllowance. With nothing to read it is an error,
// unless the value is not written: a native sidecar's exit is kubelet's.
func (t *Transformer) resolveAuto(spec *yaml.RNode, found, injected []sidecarPlan, p plan) error {
	var pod *budget.Pod
	for i, list := range [][]sidecarPlan{found, injected} {
		for j := range list {
			sc := &list[j]
			if !sc.autoExit {
				continue
			}
			if pod == nil {
				read := budget.ReadPod(spec, t.SidecarNames())
				pod = &read
			}
			seconds, ok := pod.AutoExit(config.Seconds(p.drainDelay))
			margin := t.Config.Spec.TerminationGracePeriod.Margin.Value
			switch {
			case ok && seconds > config.Seconds(config.MaxDelay-margin):
				return fmt.Errorf("%s: waitBeforeExit auto: %ds (the application's drain + %ds) plus spec.terminationGracePeriod.margin %s is longer than the maximum %s; give waitBeforeExit a duration",
					sc.Name, seconds, budget.AutoAllowance, config.FormatDuration(margin), config.FormatDuration(config.MaxDelay))
			case ok:
				sc.waitBeforeExit = time.Duration(seconds) * time.Second
			case i == 0 && p.mode == config.ModeNative:
				sc.waitBeforeExit = 0
			default:
				return fmt.Errorf("%s: waitBeforeExit auto: %s; give waitBeforeExit a duration, in the config or with the annotation %s",
					sc.Name, pod.NoDrain(config.Seconds(p.drainDelay)), AnnotationWaitBeforeExit)
			}
		}
	}
	return nil
}

// Fact is what the termination budget keeps of one item as the function
// writes it (with action mutate): the drain and pod labels of a workload
// the function handles, or an Ingress's, Service's or BackendConfig's
// load balancer settings. Skipped and failed workloads are left out.
func (t *Transformer) Fact(node *yaml.RNode, outcome Outcome) budget.Fact {
	resRef, file := ref(node)
	r := budget.Ref{Resource: resRef, File: file}
	w, ok := workload.Find(node, t.Config.Spec.PodSpecPaths)
	if !ok {
		return budget.Observe(node, r)
	}
	if outcome == Skipped || outcome == Failed || !workload.Selected(w, t.Config.Spec.Targets) {
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
	pod := budget.ReadPod(spec, t.SidecarNames())
	return budget.Fact{Workload: &budget.Workload{Ref: r, Labels: labels, Drain: pod.Drain(), Sidecars: pod.OrderedSidecars()}}
}

// exitAnnotation reads the wait-before-exit annotation: a delay, or auto.
func exitAnnotation(w *workload.Workload, margin time.Duration) (exit time.Duration, auto, ok bool, err error) {
	if v, _, found := w.AnnotationAt(AnnotationWaitBeforeExit); found && v == config.Auto {
		return 0, true, true, nil
	}
	exit, ok, err = delayAnnotation(w, AnnotationWaitBeforeExit, margin)
	return exit, false, ok, err
}
