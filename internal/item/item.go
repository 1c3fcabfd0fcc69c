// Package item is the function's work on one item: the plan its config
// and annotations make, the verdict on its pod, the edits, and what the
// termination budget keeps of it. The run (package engine) hands items to
// an Editor and decides what is written.
package item

import (
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/annotate"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/distroless"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Result is the edit of one item: the node to write and what was done.
type Result struct {
	// Node is the edited copy, or the input node when nothing changed (a
	// copy when its comments had to be placed to read back the same).
	Node *yaml.RNode
	// Outcome says what was done.
	Outcome Outcome
	// Log lists the changes, warnings and errors.
	Log report.Log
	// Annotated reports whether mesh annotations were set.
	Annotated bool
	// sidecars are the names of the workload's sidecars, as recognition
	// judged its pod (plan.sidecarNames); nil for an item with no plan.
	sidecars map[string]bool
	// injected are the presets of the sidecars its injectors add at
	// admission, as the run found them.
	injected []string
	// fact is what the termination budget keeps of a workload the edit
	// read to its end, and pod that read (see plan.edited); nil for any
	// other item.
	fact *budget.Fact
	pod  *budget.Pod
	// edited is the workload of the edited copy, when Node is that copy;
	// input the input item's.
	edited, input *workload.Workload
}

// written is the workload as Node has it: the edited copy's, else the
// input's (Node is then the input or a copy of the same data).
func (r Result) written() *workload.Workload {
	if r.edited != nil {
		return r.edited
	}
	return r.input
}

// Editor edits items with a loaded config. It holds no state between
// items but the config's presets, made once; its Config must not change
// once it is used.
type Editor struct {
	// Config is the loaded, defaulted and validated functionConfig.
	Config *config.SidecarLifecycle
	// Admission says the items are pods under admission (the webhook's):
	// the API server takes the edit of a pod it is creating, so one a
	// controller owns is edited rather than left to the controller.
	Admission bool
	// entries are the presets of the config's sidecar entries and their
	// index, made once from Config (see sidecarEntries).
	entries     entries
	entriesOnce sync.Once
}

// New returns an Editor for the config.
func New(cfg *config.SidecarLifecycle) *Editor {
	return &Editor{Config: cfg}
}

// item edits one item; workloads of the Namespaces annotated to skip are
// skipped. It
// never edits the input node: changes are made on a copy, which is
// returned only when something changed and nothing failed. A duplicate key
// anywhere in the item is an error. A workload with anchors, aliases or
// merge keys is read, edited and written expanded (see shapes.Expand);
// one left as it was keeps them. Either is returned with its comments where
// they read back the same (see shapes.Stable). w is the item's
// workload (workload.Find), or nil for an item that is not one.
func (t *Editor) item(item *yaml.RNode, w *workload.Workload, ns Namespaces) Result {
	work, shape, err := t.prepare(item, w)
	if err != nil {
		res := Result{Node: item, Outcome: OutcomeFailed}
		res.Log.FailWith(err)
		return res
	}
	if work != item { // expanded: the workload is read from the expansion
		w, _ = workload.Find(work, t.Config.Spec.PodSpecPaths)
	}
	res := t.edited(work, w, ns)
	if res.Node == work {
		res.Node = item
	}
	if !shape.Unsettled {
		return res // the edits write no comment and no folded scalar
	}
	if stable := shapes.Stable(res.Node.YNode()); stable != res.Node.YNode() {
		res.Node = yaml.NewRNode(stable)
	}
	return res
}

// prepare checks an item for duplicate keys and aliases that expand beyond
// bounds; a workload with anchors, aliases or merge keys is returned
// expanded, to be read and edited.
func (t *Editor) prepare(item *yaml.RNode, w *workload.Workload) (*yaml.RNode, shapes.Shape, error) {
	shape, err := shapes.Walk(item.YNode())
	if err != nil || !shape.Anchored {
		return item, shape, err
	}
	if w == nil {
		return item, shape, shapes.CheckSize(item.YNode())
	}
	expanded, err := shapes.Expand(item.YNode())
	if err != nil {
		return item, shape, err
	}
	return yaml.NewRNode(expanded), shape, nil
}

// edited edits one item that prepare returned, whose workload is w (nil
// for an item that is not one).
func (t *Editor) edited(item *yaml.RNode, w *workload.Workload, ns Namespaces) Result {
	if errs := namespaceErrors(item); len(errs) > 0 {
		return failed(item, errs)
	}
	if w == nil || !workload.Selected(w, t.Config.Spec.Targets) {
		return Result{Node: item}
	}
	// The workload is read and edited in a copy, whose pod is found once;
	// the item stays as it came when the edit fails.
	w = w.With(tree.Copy(item))
	meta := readPodMeta(w)
	skip, errs := checkWorkload(w, meta, ns.skips(w.Namespace))
	if len(errs) > 0 {
		return failed(item, errs)
	}
	if skip {
		return Result{Node: item, Outcome: OutcomeSkipped}
	}
	nsMeta, nsKnown := ns[w.Namespace]
	view := t.readPod(w, meta, nsMeta)
	view.nsKnown = nsKnown
	p, planErrs := t.newPlan(view)
	if len(planErrs) > 0 {
		return failed(item, asFindings(planErrs...))
	}
	res := Result{Node: item}
	for _, name := range p.assumedNamespace {
		res.Log.WarnShared(report.KindInput, report.At("metadata.namespace"), "%s: the input has no Namespace for the workload, so its injector's webhooks were read against one with no label but its name, as Kubernetes creates it: they do not select the pod, and no proxy is asked for", name)
	}
	// The comment at the end of the item stays at its end, whatever moves.
	trailing := shapes.TakeTrailing(w.Node.YNode())
	res.Log.PodSpec, res.Log.PodMeta = strings.Join(w.SpecPath, "."), strings.Join(w.TemplateMetaPath(), ".")
	outcome, annotated, err := t.edit(w, &p, &res.Log)
	res.sidecars, res.injected = p.sidecarNames(), p.injectedPresets
	shapes.PutTrailing(w.Node.YNode(), trailing)
	if err != nil {
		res.Log.FailWith(err)
	}
	res.Annotated = annotated
	switch {
	case res.Log.Failed():
		res.Outcome = OutcomeFailed
	case len(res.Log.Changes) > 0:
		DropOrchestratorIDs(w.Node)
		res.Node, res.Outcome, res.edited = w.Node, outcome, w
	case outcome == OutcomeSkipped:
		res.Outcome = OutcomeSkipped
	}
	if p.edited != nil && res.Outcome != OutcomeSkipped && res.Outcome != OutcomeFailed {
		resRef, file := Ref(item)
		fact := workloadFact(w, budget.Ref{Resource: resRef, File: file}, *p.edited)
		res.fact, res.pod = &fact, p.edited
	}
	return res
}

// failed is the result of an item that fails with the errors, unchanged.
func failed(item *yaml.RNode, errs report.Findings) Result {
	res := Result{Node: item, Outcome: OutcomeFailed}
	res.Log.Errors = errs
	return res
}

// edit runs the filters of the workload's mode on its pod spec, and the
// mesh annotations for sidecars the mesh injects at admission. It reports
// the outcome and whether mesh annotations changed.
func (t *Editor) edit(w *workload.Workload, pp *plan, log *report.Log) (Outcome, bool, error) {
	spec, err := w.PodSpec()
	if err != nil || yaml.IsMissingOrNull(spec) {
		return OutcomeUntouched, false, err // checkWorkload has checked the pod spec's shape
	}
	p := *pp
	switch {
	case p.conflict != "":
		log.Warn(report.KindPlacement, report.Pod(""), "left as it is: %s; to have the function order it, name the sidecar's container in spec.sidecars, or leave the workload out with %s: \"true\"", p.conflict, config.AnnotationSkip)
		return OutcomeSkipped, false, nil
	case p.leave != "":
		log.Warn(report.KindPlacement, report.Pod(""), "left as its vendor wrote it: %s", p.leave)
		return OutcomeSkipped, false, nil
	}
	found, injected := t.sort(spec, p, log)
	for _, sc := range injected {
		pp.injectedPresets = append(pp.injectedPresets, sc.preset.Name)
	}
	recognised(spec, p.sidecars, p.mode == config.ModeNative, log)
	if err := t.resolveAuto(spec, found, injected, p); err != nil {
		return OutcomeUntouched, false, err
	}
	readInjectedExits(w, injected, p)
	var filters []kio.Filter
	outcome := OutcomeUntouched
	switch {
	case len(found) == 0 && len(injected) == 0 && optedOutHere(spec, p):
		warnNativeOptOut(w, spec, p, log)
		return OutcomeSkipped, false, nil // the mesh's own opt-out
	case len(found) > 0 && noApplication(spec, p):
		return OutcomeSkipped, false, nil // a mesh gateway: the proxy is the pod
	case len(found) == 0 && len(injected) == 0 && len(p.applications) > 0:
		return OutcomeSkipped, false, nil // the recognised container is the application
	case len(found) > 0 && p.mode == config.ModeNative:
		filters, outcome = t.nativeFilters(w, spec, found, injected, p, log), OutcomeAdjusted
		if toConvert(spec, found) {
			outcome = OutcomeConverted
		}
	case len(found) > 0:
		filters, outcome = t.orderedFilters(w, spec, found, injected, p, log), OutcomeOrdered
	case len(injected) > 0:
		// The mesh adds the proxy at admission: the app still drains and
		// the grace period still covers the proxy's exit delay.
		floor, whose := exitFloor(nil, injected)
		filters, outcome = t.drainAndGrace(names(injected), p, floor, whose, log), OutcomeAnnotated
		warnJob(w, p, t.Config.Spec.Version(), log)
	}
	if len(filters) > 0 {
		filters = append(filters, distroless.SleepCheck{SpecPath: strings.Join(w.SpecPath, "."), Presets: func() []preset.Preset { return preset.All(t.Config.Spec.Catalog.Entries) },
			SleepAction: t.Config.Spec.Version().AtLeast(config.SleepActionMinor), Log: log})
	}
	if err := applyFilters(filters, spec); err != nil {
		return OutcomeUntouched, false, err
	}
	if err := inPodMeta(w, spec, found, p, log); err != nil {
		return OutcomeUntouched, false, err
	}
	edited := readBudget(spec, p.sidecarNames())
	pp.edited = &edited
	t.checkBudget(edited, found, injected, p, log)
	if len(injected) == 0 && (len(found) == 0 || !t.Config.Spec.RolloutOnChange) {
		return outcome, false, nil
	}
	meta, err := w.TemplateMeta()
	if err != nil {
		return OutcomeUntouched, false, err
	}
	before := len(log.Changes)
	if err := applyFilters([]kio.Filter{annotate.Filter{Meshes: meshes(injected, p), Log: log}}, meta); err != nil {
		return OutcomeUntouched, false, err
	}
	annotated := len(log.Changes) > before
	if t.Config.Spec.RolloutOnChange {
		err = applyFilters([]kio.Filter{rolloutHash{Hash: p.hash(&t.Config.Spec), Log: log}}, meta)
	}
	return outcome, annotated, err
}

// sort splits the plan's sidecars into those present in the pod and those
// the mesh injects at admission (to annotate for); it applies ifAbsent: fail.
func (t *Editor) sort(spec *yaml.RNode, p plan, log *report.Log) (found, injected []sidecarPlan) {
	for _, sc := range p.sidecars {
		inContainers := podspec.Find(spec, podspec.Containers, sc.Name) != nil
		inInit := podspec.Find(spec, podspec.InitContainers, sc.Name) != nil
		switch {
		case inContainers || (inInit && p.mode == config.ModeNative):
			found = append(found, sc)
		case inInit:
			warnInit(spec, sc.Name, log)
		case sc.IfAbsent == config.IfAbsentFail:
			fix := "add it, leave the workload out (targets, or the annotation " + config.AnnotationSkip + `: "true"), or set ifAbsent to skip`
			if sc.preset.Annotates() {
				fix += " or annotate"
			}
			log.Fail(report.KindPlacement, report.Pod(podspec.Containers), "sidecar container %s is not in the pod (ifAbsent: fail): %s", sc.Name, fix)
		case sc.IfAbsent == config.IfAbsentAnnotate && sc.preset.Annotates() && !sc.notInjected:
			injected = append(injected, sc)
		}
	}
	return found, injected
}

// warnInit says what ordered mode does with a sidecar found among the
// init containers: a native sidecar is left where it is; a plain init
// container must exit before the application starts, so it cannot be a
// sidecar that keeps running.
func warnInit(spec *yaml.RNode, name string, log *report.Log) {
	c := podspec.Find(spec, podspec.InitContainers, name)
	if rp, err := tree.Lookup(c, "restartPolicy"); err == nil && rp != nil && yaml.GetValue(rp) == "Always" {
		log.Warn(report.KindPlacement, report.Container(podspec.InitContainers, name), "%s is a native sidecar (an init container with restartPolicy Always); ordered mode leaves it there", name)
		return
	}
	log.Warn(report.KindPlacement, report.Container(podspec.InitContainers, name), "%s is an init container without restartPolicy Always, which must exit before the application starts: ordered mode leaves it there; "+
		"move it to containers, or use mode native (kubernetesVersion 1.%d or newer)", name, config.NativeSidecarMinor)
}

func names(sidecars []sidecarPlan) []string {
	out := make([]string, len(sidecars))
	for i, sc := range sidecars {
		out[i] = sc.Name
	}
	return out
}

// longestExit is the longest waitBeforeExit of the sidecars, in seconds.
func longestExit(sidecars []sidecarPlan) int64 {
	var longest int64
	for _, sc := range sidecars {
		longest = max(longest, config.Seconds(sc.waitBeforeExit))
	}
	return longest
}

// applyFilters applies filters to one node; a filter's error is returned.
func applyFilters(filters []kio.Filter, node *yaml.RNode) error {
	for _, f := range filters {
		if _, err := f.Filter([]*yaml.RNode{node}); err != nil {
			return err
		}
	}
	return nil
}

// orchestratorIDs are the annotations kyaml's function runner (kustomize's
// and kpt's) sets on each input item to find it again in the output, then
// copies comments and field order from the input item to the output item,
// matching list entries by position. For a container the function moved,
// that gives it the field order of whichever container used to be at its
// index. The function keeps comments and order itself, so a changed item is
// returned without the ids and the runner leaves it as written.
var orchestratorIDs = []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation}

// DropOrchestratorIDs removes the orchestrator's id annotations from a
// changed item. It cannot fail, so it returns nothing: kyaml fails to clear
// an annotation only where the item, its metadata or metadata.annotations
// is set and is not a mapping, or is an alias. An item edited here is a
// workload, a mapping; it has passed checkWorkload, whose
// podcheck.Metadata fails the item for metadata or annotations that are
// not mappings, and prepare, which expands aliases; the edits create these
// mappings or change keys in them, nothing else. The test
// TestDropOrchestratorIDsCannotFail tries each shape.
func DropOrchestratorIDs(item *yaml.RNode) {
	a := tree.Value(tree.Value(item.YNode(), yaml.MetadataField), yaml.AnnotationsField)
	for _, key := range orchestratorIDs {
		if tree.Value(a, key) != nil { // kyaml's filters only where there is one
			_ = item.PipeE(yaml.ClearAnnotation(key))
		}
	}
}
