package item

import (
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/annotate"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// sidecarNames are the sidecars of a pod spec: the containers the config
// names, and those the presets of its entries without a name recognise in
// it (by name or image), as the edits find them.
func (t *Editor) sidecarNames(spec *yaml.RNode) map[string]bool {
	out := make(map[string]bool, len(t.Config.Spec.Sidecars))
	entries := t.sidecarEntries()
	var containers []podContainer
	if entries.recognising {
		containers = t.containers(spec)
	}
	for i, sc := range t.Config.Spec.Sidecars {
		out[sc.Name] = true
		if sc.Recognise {
			sp := sidecarPlan{Sidecar: sc, preset: entries.presets[i]}
			recognise(containers, i, &sp)
			out[sp.Name] = true
		}
	}
	return out
}

// checkBudget reports, in ordered mode, each sidecar of the edited pod
// and each injected one that leaves before the application's preStop ends
// (native sidecars are ordered by kubelet).
func (t *Editor) checkBudget(edited budget.Pod, found, injected []sidecarPlan, p plan, log *report.Log) {
	if p.mode == config.ModeNative || len(found)+len(injected) == 0 {
		return
	}
	exits := make([]budget.Exit, len(injected))
	for i, sc := range injected {
		exits[i] = sc.exit
	}
	longestExit := int64((config.MaxDelay - t.Config.Spec.TerminationGracePeriod.Margin.Value) / time.Second)
	log.Breaks = append(log.Breaks, edited.OrderedBreaks(exits, longestExit)...)
}

// fact is what the termination budget keeps of one item as the function
// writes it (with action mutate): the drain and pod labels of a workload
// the function handles, or an Ingress's, Service's or BackendConfig's
// load balancer settings. Skipped and failed workloads are left out.
func (t *Editor) fact(node *yaml.RNode, w *workload.Workload, outcome Outcome, sidecars map[string]bool) budget.Fact {
	resRef, file := Ref(node)
	r := budget.Ref{Resource: resRef, File: file}
	if w == nil {
		if deadline.IsNodePool(node) {
			return budget.Fact{Classes: deadline.ReadNodePool(node)}
		}
		return budget.Observe(node, r)
	}
	if outcome == OutcomeSkipped || outcome == OutcomeFailed || !workload.Selected(w, t.Config.Spec.Targets) {
		return budget.Fact{}
	}
	spec, err := w.PodSpec()
	if err != nil || spec == nil || spec.YNode().Kind != yaml.MappingNode {
		return budget.Fact{}
	}
	if sidecars == nil {
		sidecars = t.sidecarNames(spec)
	}
	return workloadFact(w, r, readBudget(spec, sidecars))
}

// workloadFact is the fact of workload w, whose pod is read as pod: its
// drain and labels, where it may land and what its shutdown needs, and
// the class of the nodes it scales down when it runs the
// cluster-autoscaler.
func workloadFact(w *workload.Workload, r budget.Ref, pod budget.Pod) budget.Fact {
	var labels map[string]string
	if meta, err := w.Meta(); err == nil && meta != nil {
		labels = budget.Labels(meta)
	}
	f := budget.Fact{Workload: &budget.Workload{Ref: r, Labels: labels, Drain: pod.Drain(), Sidecars: pod.OrderedSidecars(), Shutdown: pod.Shutdown(),
		GraceField: strings.Join(append(slices.Clone(w.SpecPath), "terminationGracePeriodSeconds"), ".")}}
	if spec, err := w.PodSpec(); err == nil && spec != nil && spec.YNode().Kind == yaml.MappingNode {
		f.Workload.Placement = deadline.ReadPlacement(spec)
		if c, ok := deadline.ReadAutoscaler(spec); ok {
			f.Classes = []deadline.Class{c}
		}
	}
	return f
}

// ReadPod reads the pod of an edited workload item (Node) as the
// termination budget sees it (budget.ReadPod), with the sidecars its
// recognition found; ok is false for an item that is not a workload or
// has no pod spec.
func (t *Editor) ReadPod(ed Edit) (pod budget.Pod, ok bool) {
	if ed.Result.pod != nil {
		return *ed.Result.pod, true // as the edit read it
	}
	w, found := workload.Find(ed.Node(), t.Config.Spec.PodSpecPaths)
	if !found {
		return budget.Pod{}, false
	}
	spec, err := w.PodSpec()
	if err != nil || spec == nil {
		return budget.Pod{}, false
	}
	sidecars := ed.Result.sidecars
	if sidecars == nil {
		sidecars = t.sidecarNames(spec)
	}
	return readBudget(spec, sidecars), true
}

// meshes are the injected sidecars as package annotate writes their
// annotations.
func meshes(injected []sidecarPlan, p plan) []annotate.Mesh {
	out := make([]annotate.Mesh, len(injected))
	for i, sc := range injected {
		out[i] = annotate.Mesh{Preset: sc.preset, Native: p.mode == config.ModeNative, WaitBeforeExit: config.Seconds(sc.waitBeforeExit)}
	}
	return out
}

// readInjectedExits sets when each injected sidecar leaves in ordered
// mode: read from its own exit settings on the pod template as it will be
// once the function has written its ordered-mode annotations
// (annotate.Ordered, which writes nothing). With
// waitBeforeExit auto, a sidecar whose own setting already keeps it at
// least that long gets none written: auto never shortens the sidecar's own
// exit. In native mode the exits are read the same way, for the grace
// period only, so that converting ordered output to native gives what
// native mode gives directly.
func readInjectedExits(w *workload.Workload, injected []sidecarPlan, p plan) {
	if len(injected) == 0 {
		return
	}
	var own map[string]string
	if meta, err := w.Meta(); err == nil && meta != nil {
		own = budget.Annotations(meta)
	}
	ordered := slices.Clone(injected)
	for i := range ordered {
		sc := &ordered[i]
		if sc.autoExit && covers(budget.InjectedExit(sc.Name, sc.preset.ExitDelays, own), config.Seconds(sc.waitBeforeExit)) {
			sc.waitBeforeExit = 0
		}
	}
	annotations := annotate.Ordered(own, meshes(ordered, plan{mode: config.ModeOrdered}))
	for i := range injected {
		if p.mode != config.ModeNative {
			injected[i].waitBeforeExit = ordered[i].waitBeforeExit
		}
		injected[i].exit = budget.InjectedExit(injected[i].Name, injected[i].preset.ExitDelays, annotations)
	}
}

// covers reports whether a sidecar's own exit keeps it at least the seconds.
func covers(own budget.Exit, seconds int64) bool {
	return own.UntilIdle || (own.Problem == "" && own.Seconds >= seconds)
}

// exitFloor is the longest exit the grace period must cover beyond the
// preStops in the pod, and whose it is: a sidecar's configured
// waitBeforeExit, or an injected sidecar's own exit setting, read as it
// will run (package budget).
func exitFloor(sidecars, injected []sidecarPlan) (int64, string) {
	longest, name := longestExit(append(slices.Clone(sidecars), injected...)), "waitBeforeExit"
	for _, sc := range injected {
		if sc.exit.Problem == "" && sc.exit.Seconds > longest {
			longest, name = sc.exit.Seconds, sc.Name+"'s own exit setting"
		}
	}
	return longest, name
}
