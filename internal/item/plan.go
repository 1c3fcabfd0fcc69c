package item

import (
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// sidecarPlan is one sidecar's effective settings for one workload.
type sidecarPlan struct {
	config.Sidecar
	preset         preset.Preset
	waitCommand    []string
	waitBeforeExit time.Duration
	// autoExit: waitBeforeExit auto, resolved from the pod by resolveAuto.
	autoExit bool
	// nativePreStop is the preStop the mesh's injector gives its native sidecar.
	nativePreStop []string
	// notInjected: the mesh will not inject this sidecar, so there is nothing to annotate for.
	notInjected bool
	// defaultProbe is the native-mode probe when the config and the container give none.
	defaultProbe *corev1.Probe
	// recognisedBy says what recognised a sidecar of the catalog in the
	// workload; empty when the config named it.
	recognisedBy string
	// admitted: the sidecar is not in the pod, and its injector is switched
	// on for the workload.
	admitted bool
	// exit is when an injected sidecar leaves in ordered mode (readInjectedExits).
	exit budget.Exit
	// byPreset: the container was recognised by its preset's names or
	// images, not named by the config (see judge).
	byPreset bool
}

// plan is a workload's effective settings: the config with its annotations applied.
type plan struct {
	// assumedNamespace are the presets whose injector was found not to
	// inject the pod against a Namespace the input does not have, taken
	// as Kubernetes creates it.
	assumedNamespace []string
	mode             config.Mode
	sidecars         []sidecarPlan
	drainDelay       time.Duration
	// optedOut are the sidecars the workload's mesh annotations turn ordering
	// (or, in native mode, native sidecars) off for.
	optedOut []sidecarPlan
	// applications are the containers recognised by a preset that judge
	// found to be the pod's application, not a sidecar of it.
	applications []string
	// leave names the vendor's own words with which the pod is left as it
	// is; conflict names the evidence that conflicts, with which it is too.
	leave, conflict string
	// injectedPresets are the presets of the sidecars found to be added at
	// admission, set by the edit.
	injectedPresets []string
	// edited is the pod as the edit leaves it, read once for the
	// termination budget (checkBudget and the item's fact); set by the
	// edit, nil where it returned before its filters.
	edited *budget.Pod
}

// newPlan resolves the config and the workload's override annotations, and
// finds the sidecars of config entries without a name in the pod; ns is
// the workload's Namespace, when the input has it. It returns every
// override annotation that is not valid. The pod's containers are read
// and matched against the config's entries once (see sidecarEntries).
func (t *Editor) newPlan(view *Pod) (plan, []error) {

	spec, entries := &t.Config.Spec, t.sidecarEntries()
	p := plan{mode: spec.Mode, drainDelay: spec.App.DrainDelay.Value, sidecars: make([]sidecarPlan, 0, len(spec.Sidecars))}
	var errs []error
	if v, meta, ok := view.AnnotationAt(config.AnnotationMode); ok {
		switch m := config.Mode(v); {
		case m != config.ModeOrdered && m != config.ModeNative && m != config.ModeAuto:
			errs = append(errs, annotationError(meta, config.AnnotationMode, v, "one of ordered, native, auto"))
		case m == config.ModeNative && !spec.Version().AtLeast(config.NativeSidecarMinor):
			errs = append(errs, annotationError(meta, config.AnnotationMode, v, fmt.Sprintf("ordered or auto: native sidecars need kubernetesVersion >= 1.%d, and spec.kubernetesVersion is %s",
				config.NativeSidecarMinor, spec.Version())))
		default:
			p.mode = m
		}
	}
	if p.mode == config.ModeAuto {
		p.mode = config.ModeOrdered
		if spec.Version().AtLeast(config.NativeSidecarMinor) {
			p.mode = config.ModeNative
		}
	}
	margin := spec.TerminationGracePeriod.Margin.Value
	drain, hasDrainOverride, err := delayAnnotation(view.podMeta, config.AnnotationAppDrainDelay, margin)
	if err != nil {
		errs = append(errs, err)
	}
	if hasDrainOverride {
		p.drainDelay = drain
	}
	exit, exitAuto, hasExitOverride, err := exitAnnotation(view.podMeta, margin)
	if err != nil {
		errs = append(errs, err)
	}
	pod, switches, ns := view.spec, view, view.ns
	for i, sc := range spec.Sidecars {
		pr := entries.presets[i]
		sp := sidecarPlan{Sidecar: sc, preset: pr, waitCommand: pr.WaitCommand, defaultProbe: pr.StartupProbe,
			waitBeforeExit: sc.WaitBeforeExit.Value, nativePreStop: pr.NativePreStopFor(switches), autoExit: sc.WaitBeforeExit.IsAuto(), notInjected: pr.NotInjected(switches)}
		if sc.Recognise && pod != nil {
			recognise(view.containers, i, &sp)
			sp.byPreset = sp.recognisedBy != ""
			if !sc.FromCatalog {
				sp.recognisedBy = "" // the config named the sidecar: no report
			}
		}
		if sc.FromCatalog && sp.recognisedBy == "" {
			if admitted(switches, ns, view.target(), &sp) {
				p.assumedNamespace = append(p.assumedNamespace, pr.Name)
			}
		}
		if !sc.FromCatalog && pr.WillNotInject(switches, ns, view.target()) {
			sp.notInjected = true
		}
		if !sc.FromCatalog && !pr.Annotates() && !view.has(sc.Name) {
			admitted(switches, ns, view.target(), &sp) // said, as the function cannot ask for order
		}
		if sc.FromCatalog && p.has(sp.Name) {
			continue // an entry earlier in start order recognised the container
		}
		if pr.OptedOut(switches, p.mode == config.ModeNative) {
			p.optedOut = append(p.optedOut, sp)
			continue
		}
		if sc.WaitForReady != nil {
			sp.waitCommand = sc.WaitForReady.Command
		}
		if hasExitOverride {
			sp.waitBeforeExit, sp.autoExit = exit, exitAuto
		}
		p.sidecars = append(p.sidecars, sp)
	}
	judge(view, &p)
	return p, errs
}

// podMeta reads a workload's annotations and pod template labels as
// workload.Workload does, with the metadata found once: every entry of
// the catalog reads its injector's switches.
type podMeta struct {
	w *workload.Workload
	// annotations are the pod template's and the workload's own
	// annotations, labels the pod template's labels: nil where absent.
	annotations [2]*yaml.Node
	labels      *yaml.Node
	// other: metadata the workload's own reading must read.
	other bool
}

// readPodMeta finds the workload's annotations and pod template labels.
func readPodMeta(w *workload.Workload) *podMeta {
	m := &podMeta{w: w}
	find := func(i int, field string) *yaml.Node {
		n, err := w.MetadataAt(i, field)
		m.other = m.other || err != nil
		return n.YNode()
	}
	for i := range w.MetadataPaths() {
		m.annotations[i] = find(i, yaml.AnnotationsField)
	}
	m.labels = find(0, yaml.LabelsField)
	return m
}

// Annotation is the workload's Annotation.
func (m *podMeta) Annotation(key string) (string, bool) {
	v, _, ok := m.AnnotationAt(key)
	return v, ok
}

// AnnotationAt is the workload's AnnotationAt.
func (m *podMeta) AnnotationAt(key string) (string, []string, bool) {
	for i, n := range m.annotations {
		v, ok, read := value(n, key)
		if !read || m.other {
			return m.w.AnnotationAt(key)
		}
		if ok {
			return v, m.w.MetadataPaths()[i], true
		}
	}
	return "", nil, false
}

// TemplateLabel is the workload's TemplateLabel.
func (m *podMeta) TemplateLabel(key string) (string, bool) {
	v, ok, read := value(m.labels, key)
	if !read || m.other {
		return m.w.TemplateLabel(key)
	}
	return v, ok
}

// value is the value of the first key of the name in a mapping, as
// tree.Lookup and yaml.GetValue read it; read is false where they may
// read otherwise (a node that is not a mapping, a key that is not a plain
// word), for the caller to ask them.
func value(n *yaml.Node, key string) (v string, ok, read bool) {
	if n == nil || n.Tag == yaml.NodeTagNull {
		return "", false, true
	}
	if n.Kind != yaml.MappingNode || len(n.Content)%2 != 0 || !plainKey(key) {
		return "", false, false
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == key {
			if val := n.Content[j+1]; val.Tag != yaml.NodeTagNull {
				return val.Value, true, true
			}
			return "", true, true
		}
	}
	return "", false, true
}

// plainKey reports whether a key is read as it is on every path: it holds
// a letter (so it is no number, "-" or "*"), no space at either end, and
// is no list index ("[...]").
func plainKey(key string) bool {
	return key != "" && key[0] != '[' && strings.TrimSpace(key) == key && strings.ContainsFunc(key, unicode.IsLetter)
}

// sidecarNames are the names of the plan's sidecars, those its workload
// opts out of included: every other container is an application's.
func (p plan) sidecarNames() map[string]bool {
	out := make(map[string]bool, len(p.sidecars)+len(p.optedOut))
	for _, list := range [][]sidecarPlan{p.sidecars, p.optedOut} {
		for i := range list {
			out[list[i].Name] = true
		}
	}
	return out
}

// has reports whether the plan holds a sidecar of the name.
func (p plan) has(name string) bool {
	for _, list := range [][]sidecarPlan{p.sidecars, p.optedOut} {
		for i := range list {
			if list[i].Name == name {
				return true
			}
		}
	}
	return false
}

// delayAnnotation reads a delay override: a duration of at most
// config.MaxDelay, also with the margin added. An error names the annotation.
func delayAnnotation(m *podMeta, key string, margin time.Duration) (time.Duration, bool, error) {
	v, meta, ok := m.AnnotationAt(key)
	if !ok {
		return 0, false, nil
	}
	d, err := config.ParseDelay(v, margin)
	if err != nil {
		at := annotationPath(meta, key)
		return 0, false, fieldError{kind: report.KindFieldValue, at: report.At(at.String()).Values(v, nil), msg: fmt.Sprintf("%s: %v", at, err)}
	}
	return d, true, nil
}

// hasTimeout reports whether a wait command carries a timeout the function
// recognises: a flag or argument that names a timeout or a maximum, or the
// timeout program.
func hasTimeout(cmd []string) bool {
	for i, a := range cmd {
		l := strings.ToLower(a)
		if strings.Contains(l, "timeout") || strings.HasPrefix(l, "--max") || (i == 0 && path.Base(l) == "timeout") {
			return true
		}
	}
	return false
}

// resolveAuto sets the waitBeforeExit of each sidecar that has auto: the
// application's longest readable preStop, or the drain delay the function
// adds, plus budget.AutoAllowance. With nothing to read it is an error,
// unless the value is not written: a native sidecar's exit is kubelet's.
func (t *Editor) resolveAuto(spec *yaml.RNode, found, injected []sidecarPlan, p plan) error {
	var pod *budget.Pod
	for i, list := range [][]sidecarPlan{found, injected} {
		for j := range list {
			sc := &list[j]
			if !sc.autoExit {
				continue
			}
			if pod == nil {
				read := readBudget(spec, p.sidecarNames())
				pod = &read
			}
			seconds, ok := pod.AutoExit(config.Seconds(p.drainDelay))
			margin := t.Config.Spec.TerminationGracePeriod.Margin.Value
			switch {
			case ok && seconds > config.Seconds(config.MaxDelay-margin):
				return fieldError{kind: report.KindBudget, at: report.Pod(podspec.Containers), msg: fmt.Sprintf("%s: waitBeforeExit auto: %ds (the application's drain + %ds) plus spec.terminationGracePeriod.margin %s is longer than the maximum %s; shorten the application's preStop, or give waitBeforeExit a duration (the sidecar then leaves before the application's drain ends)",
					sc.Name, seconds, budget.AutoAllowance, config.FormatDuration(margin), config.FormatDuration(config.MaxDelay))}
			case ok:
				sc.waitBeforeExit = time.Duration(seconds) * time.Second
			case i == 0 && p.mode == config.ModeNative:
				sc.waitBeforeExit = 0
			default:
				return fieldError{kind: report.KindBudget, at: report.Pod(podspec.Containers), msg: fmt.Sprintf("%s: waitBeforeExit auto: %s; give waitBeforeExit a duration, in the config or with the annotation %s",
					sc.Name, pod.NoDrain(config.Seconds(p.drainDelay)), config.AnnotationWaitBeforeExit)}
			}
		}
	}
	return nil
}

// exitAnnotation reads the wait-before-exit annotation: a delay, or auto.
func exitAnnotation(m *podMeta, margin time.Duration) (exit time.Duration, auto, ok bool, err error) {
	if v, _, found := m.AnnotationAt(config.AnnotationWaitBeforeExit); found && v == config.Auto {
		return 0, true, true, nil
	}
	exit, ok, err = delayAnnotation(m, config.AnnotationWaitBeforeExit, margin)
	return exit, false, ok, err
}
