package engine

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Engine is one run of the function over a list of items: Note the
// Namespaces and Nodes, Settle, Edit every item (on any goroutine), Add
// each edit in input order, Close. Every path drives it through Run
// (docs/development.md draws the protocol). When an item fails, every item
// is written as it came.
type Engine struct {
	t *Transformer
	// cfgErr is set when the functionConfig does not load: every item is
	// written as it came, and Close returns the config's errors.
	cfgErr error
	// facts are the input's Namespaces and Nodes, as items read them.
	facts item.Facts
	// kubelets are what the input's Nodes say of their kubelets.
	kubelets kubelets
	// settled is done once the notes are taken (see Settle).
	settled sync.Once
	// failed is set once Add has met a failed item: every item is written
	// as it came. Edit reads it from other goroutines.
	failed  atomic.Bool
	summary summary
	budget  budget.Collector
	owners  owners
	// shared collects the warnings the config or the catalog alone
	// decides, said once each in Close.
	shared shared
	shown  bool
	// checked are the workloads counted, in input order.
	checked []Checked
	// observe, when set, is told of every item counted.
	observe func(Edit)
}

// errFirstFailure is returned by Add, with what to write, for the run's
// first failed item: the items before it, written already, must be
// written again as they came, with only their warnings and errors (see
// Run).
var errFirstFailure = errors.New("an item failed: the items before it are written again as they came")

// Start loads the functionConfig (nil or empty for the defaults) and
// returns the Engine of one run. A config that does not load gives an
// Engine that writes every item as it came and closes with the config's
// error results; ConfigErr returns that error.
func Start(cfgNode *yaml.RNode) *Engine { return StartAs(cfgNode, "") }

// StartAs is Start with the config's action replaced by action, unless
// action is empty.
func StartAs(cfgNode *yaml.RNode, action config.Action) *Engine {
	cfg, err := config.Load(cfgNode)
	if err != nil {
		return &Engine{cfgErr: err}
	}
	if action != "" {
		cfg.Spec.Action = action
	}
	return New(cfg).Start()
}

// Start returns the Engine of one run with the Transformer's config.
// The config's node classes are checked against the node deadline data
// here, the one place every path starts a run.
func (t *Transformer) Start() *Engine {
	if err := deadline.CheckConfig(t.Config.Spec.Nodes); err != nil {
		return &Engine{cfgErr: err}
	}
	e := &Engine{t: t, facts: item.Facts{Namespaces: item.Namespaces{}}}
	e.budget.AddClasses(deadline.FromConfig(t.Config.Spec.Nodes)...)
	return e
}

// ConfigErr is the error of a functionConfig that did not load, or nil.
func (e *Engine) ConfigErr() error { return e.cfgErr }

// action is the run's action; the config must have loaded.
func (e *Engine) action() config.Action { return e.t.Config.Spec.Action }

// Note records a Namespace or a Node item, or such an entry of a List
// item: a Namespace's labels and annotations (its skip annotation), a
// Node's kubelet version. Every item that may be or hold a Namespace or a
// Node must be noted before Settle; any other item is ignored.
func (e *Engine) Note(node *yaml.RNode) {
	if e.cfgErr != nil {
		return
	}
	if entries, ok := list.Items(node); ok {
		for _, n := range entries {
			if n.Kind == yaml.MappingNode {
				e.note(yaml.NewRNode(n))
			}
		}
		return
	}
	e.note(node)
}

func (e *Engine) note(node *yaml.RNode) {
	switch {
	case item.IsNamespace(node):
		e.facts.Namespaces[node.GetName()] = preset.Meta{Labels: node.GetLabels(), Annotations: node.GetAnnotations()}
	case kubelet.IsNode(node):
		e.kubelets.note(node)
		if c, ok := deadline.ReadNode(node); ok {
			e.budget.AddClasses(c)
		}
	}
}

// Settle ends the notes: with kubernetesVersion auto, the run follows the
// oldest kubelet among the Nodes noted (see followOldest). It must be
// called after the last Note and before the first Edit; Edit calls it if
// the driver did not.
func (e *Engine) Settle() {
	e.settled.Do(func() {
		e.followOldest()
		e.facts.Kubelets = e.kubelets.nodes
	})
}

// Edit edits one item and prepares what to write for it. It never changes
// the item, and it may be called from several goroutines once every
// Namespace and Node has been noted and the notes settled (see Settle).
// A List's entries are edited as items (see editList); a workload a
// controller owns is left to it (see member).
func (e *Engine) Edit(node *yaml.RNode) Edit {
	e.Settle()
	if e.cfgErr != nil {
		return Edit{Input: node, Result: item.Result{Node: node}, Written: Written{Node: node}}
	}
	ed := e.t.editor.Edit(node, &e.facts)
	e.write(&ed)
	return ed
}

// write sets what the run writes for the edit, as far as the run knows
// whether an item fails.
func (e *Engine) write(ed *Edit) {
	ed.InFailedRun = e.failed.Load()
	if e.cfgErr != nil {
		return
	}
	action := e.action()
	r := ed.Result
	if ed.InFailedRun && action == config.ActionMutate && !ed.Failed() {
		r.Log.Changes = nil // nothing was changed
	}
	ed.Written = Written{Node: r.Node, Results: append(e.writeEntries(ed), r.Results(ed.Input, action)...)}
	ed.Written.Changed = len(r.Log.Changes) > 0
	for _, entry := range ed.Entries {
		ed.Written.Changed = ed.Written.Changed || entry.Written.Changed
	}
	if ed.InFailedRun || ed.Failed() || action == config.ActionValidate {
		ed.Written.Node, ed.Written.Changed = ed.Input, false
	}
}

// Edit is one item as the function edits it (see item.Edit), with what
// the run writes for it.
type Edit = item.Edit

// Written is what Add returns for one item: the node to write and the
// item's results.
type Written = item.Written

// Add takes the next item's edit, in input order, counts it and returns
// what to write, as the run now knows whether an item fails. For the run's
// first failed item it also returns errFirstFailure: see Engine.
func (e *Engine) Add(ed Edit) (Written, error) {
	var err error
	if ed.Failed() && !e.failed.Load() {
		e.failed.Store(true)
		err = errFirstFailure
	}
	if ed.InFailedRun != e.failed.Load() {
		e.write(&ed)
	}
	e.shown = e.shown || shownByOrchestrator(ed.Input)
	if e.cfgErr != nil {
		return ed.Written, err
	}
	if !ed.List {
		e.count(ed)
		return ed.Written, err
	}
	for _, entry := range ed.Entries {
		e.count(entry)
	}
	if ed.Result.Log.Failed() {
		e.summary.add(item.OutcomeFailed) // the List itself
	}
	return ed.Written, err
}

// count counts an item that is not a List: in the summary, the budget and
// the owner notes.
func (e *Engine) count(ed Edit) {
	if !ed.Failed() {
		e.budget.Add(ed.Fact)
	}
	if e.observe != nil {
		e.observe(ed)
	}
	e.summary.addItem(ed.Result)
	e.owners.add(ed.Member)
	e.shared.add(ed.Input, ed.Result.Log)
	if ed.Workload {
		resRef, file := item.Ref(ed.Input)
		left := ed.Member != nil && ed.Member.Left
		e.checked = append(e.checked, Checked{Ref: resRef, File: file, Skipped: left || ed.Result.Outcome == item.OutcomeSkipped})
	}
}

// Checked is a workload a run counted: its resourceRef and file, as its
// results name them, and whether it was skipped (by an annotation, its
// Namespace, or left to its controller) rather than checked.
type Checked struct {
	// Ref is the workload's resourceRef.
	Ref *fn.ResourceRef
	// File is the workload's file, as the orchestrator names it, or nil.
	File *fn.File
	// Skipped reports that the workload was left as it is.
	Skipped bool
}

// Checked are the workloads the run counted, in input order (for a List,
// its entries).
func (e *Engine) Checked() []Checked { return e.checked }

// Close returns the closing results: one per controller that workloads
// were left to, one per warning the config or the catalog alone decides
// (with how many workloads it is about, and which), the termination
// budget's findings across items, then the summary; or the config's
// errors.
func (e *Engine) Close() fn.Results {
	e.Settle()
	if e.cfgErr != nil {
		return append(e.kubeletResults(), configResults(e.cfgErr)...)
	}
	action := e.action()
	out := append(e.kubeletResults(), e.owners.results(e.t.Config.Spec.PodSpecPaths)...)
	out = append(out, e.shared.results()...)
	if !e.failed.Load() || action == config.ActionValidate {
		out = append(out, e.budget.Results(action)...)
	}
	summary := report.Finding{Kind: report.KindSummary, Severity: fn.Info, Detail: e.summary.message(action)}
	return append(out, report.Result(summary, nil, nil))
}

// KeepSharedEach makes the run keep, for SharedEach, every workload a
// shared warning is found in (its resourceRef, file and field: some
// 300 bytes each); without it, Close still says each warning once, with
// its count. Call it before the first Edit.
func (e *Engine) KeepSharedEach() { e.shared.every = true }

// SharedEach is every warning Close says once of several workloads, once
// for each of them (see report.WorkloadsTag): what a report lists; none
// without KeepSharedEach.
func (e *Engine) SharedEach() fn.Results { return e.shared.each() }

// Shown reports whether the orchestrator shows the results itself: kpt fn
// render marks every item it passes (see shownByOrchestrator).
func (e *Engine) Shown() bool { return e.shown }

// packagePathAnnotation is set by kpt fn render, and only by it, on every
// item: the package's directory.
const packagePathAnnotation = "internal.config.kubernetes.io/package-path"

// shownByOrchestrator reports whether the item comes from kpt fn render,
// which shows the results and, after them, the function's stderr:
// printing the results on stderr too would show each one twice. kpt fn
// eval shows both as well but marks its items with nothing of its own.
func shownByOrchestrator(item *yaml.RNode) bool {
	return item.GetAnnotations(packagePathAnnotation)[packagePathAnnotation] != ""
}

// Transform runs the Engine over items held in memory and returns the items
// to write with every result, the closing ones last. When any item fails,
// or the action is validate, the input items are returned unchanged.
func (t *Transformer) Transform(items []*yaml.RNode) ([]*yaml.RNode, fn.Results) {
	return t.Start().Transform(items)
}

// Transform is Run over items held in memory. Items held together may
// share anchors: an alias in one item whose anchor was in an item the run
// expanded is replaced by what it referred to (see shapes.Aliases), and
// an item where that fails fails.
func (e *Engine) Transform(items []*yaml.RNode) ([]*yaml.RNode, fn.Results) {
	out := make([]*yaml.RNode, len(items))
	results := make([]fn.Results, len(items))
	marked := make([]int, len(items))
	for i := range marked {
		marked[i] = i
	}
	var aliases shapes.Aliases
	closing, _ := Run(e, Pass[struct{}]{
		Len: len(items), Marked: marked,
		ParseMarked: func(i int) (*yaml.RNode, error) { return items[i], nil },
		Prepare: func(i int) (struct{}, *Edit, error) {
			ed := e.Edit(items[i])
			return struct{}{}, &ed, nil
		},
		Check: func(i int, ed *Edit) bool {
			node, err := aliases.Keep(items[i], ed.Result.Node)
			if err != nil {
				ed.Result.Outcome = item.OutcomeFailed
				ed.Result.Log.FailWith(err)
				return true
			}
			changed := node != ed.Result.Node
			ed.Result.Node = node
			return changed
		},
		Write: func(i int, _ struct{}, w *Written) error {
			out[i], results[i] = w.Node, w.Results
			return nil
		},
		Failed: func(k int) error {
			for i := range k {
				out[i], results[i] = items[i], report.Problems(results[i])
			}
			return nil
		},
	})
	return out, append(slices.Concat(results...), closing...)
}

// Observe has f told of every item the run counts, in input order (a
// List's entries one by one): --explain watches a run this way.
func (e *Engine) Observe(f func(Edit)) { e.observe = f }

// Config is the run's config, nil when it did not load.
func (e *Engine) Config() *config.SidecarLifecycle {
	if e.cfgErr != nil {
		return nil
	}
	return e.t.Config
}

// ReadPod reads the pod of an edit's workload as the termination budget
// sees it (see item.Editor.ReadPod).
func (e *Engine) ReadPod(ed Edit) (budget.Pod, bool) { return e.t.editor.ReadPod(ed) }

// NodeClasses are the node classes the run knows: the config's, the
// input's Nodes', NodePools' and cluster-autoscaler's.
func (e *Engine) NodeClasses() []deadline.Class { return e.budget.Classes() }

// Routes are the load balancers' routes to the workloads the run counted.
func (e *Engine) Routes() []budget.Routed { return e.budget.Routes() }
