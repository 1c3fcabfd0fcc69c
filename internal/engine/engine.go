package engine

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Engine is one run of the function over a list of items, whatever form
// the items come in: every driver (the whole list, the streamed
// ResourceList, the plain stream, the kio.Filter, the kustomize adapter,
// --explain) hands its items to an Engine and writes what it returns.
//
// A run has three steps:
//
//  1. Note, for every item that may be a Namespace or a Node, then
//     Settle, before any item is edited: a Namespace annotated to skip its
//     workloads counts wherever it stands, and so does the kubelet of every
//     Node (see nodes.go).
//  2. Edit, for every item, from any number of goroutines; then Add, for
//     every edit, in input order, which counts it and returns what to
//     write: the item and its results.
//  3. Close, which returns the closing results: the termination budget
//     across items and the summary.
//
// When an item fails, nothing is changed: every item is written as it
// came. A run learns of a failure only when Add reaches the failing item;
// Add then returns what to write for it in a failed run, and reports that
// the items before it, already written, are to be written again as they
// came (Run tells the driver). Edits made before then stand: Add writes
// each as the run now knows it, so no item is read or edited twice.
//
// An item that is a List (see list.Items), as `kubectl get -o yaml|json`
// prints one, is read as its entries: each is edited, reported, counted
// and budgeted as an item, and the List is written back as a List. A
// workload that a controller owns (a ReplicaSet's Pods, a Deployment's
// ReplicaSets, a CronJob's Jobs) is left to it: neither edited nor
// reported on its own; Close says once per controller where the fix goes.
//
// With action mutate and a failure, the changes the run would have made
// are not reported (nothing was changed) and neither is the budget; with
// action validate every finding is reported whatever fails, because
// validate changes nothing anyway.
type Engine struct {
	t *Transformer
	// cfgErr is set when the functionConfig does not load: every item is
	// written as it came, and Close returns the config's errors.
	cfgErr error
	// namespaces are the Namespaces of the input, by name.
	namespaces namespaces
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
func (t *Transformer) Start() *Engine {
	return &Engine{t: t, namespaces: namespaces{}}
}

// ConfigErr is the error of a functionConfig that did not load, or nil.
func (e *Engine) ConfigErr() error { return e.cfgErr }

// action is the run's action; the config must have loaded.
func (e *Engine) action() config.Action { return e.t.Config.Spec.Action }

// Note records a Namespace or a Node item, or such an entry of a List
// item: a Namespace's labels and annotations (its skip annotation), a
// Node's kubelet version. Every item that may be or hold a Namespace or a
// Node must be noted before Settle; any other item is ignored.
func (e *Engine) Note(item *yaml.RNode) {
	if e.cfgErr != nil {
		return
	}
	if entries, ok := list.Items(item); ok {
		for _, n := range entries {
			if n.Kind == yaml.MappingNode {
				e.note(yaml.NewRNode(n))
			}
		}
		return
	}
	e.note(item)
}

func (e *Engine) note(item *yaml.RNode) {
	switch {
	case isNamespace(item):
		e.namespaces[item.GetName()] = preset.Meta{Labels: item.GetLabels(), Annotations: item.GetAnnotations()}
	case kubelet.IsNode(item):
		e.kubelets.note(item)
	}
}

// Settle ends the notes: with kubernetesVersion auto, the run follows the
// oldest kubelet among the Nodes noted (see followOldest). It must be
// called after the last Note and before the first Edit; Edit calls it if
// the driver did not.
func (e *Engine) Settle() {
	e.settled.Do(e.followOldest)
}

// Edit is one item as the function edits it with action mutate, and what
// the run writes for it.
type Edit struct {
	input   *yaml.RNode
	result  itemResult
	fact    budget.Fact
	written Written
	// inFailedRun: the edit was made once the run knew an item fails.
	inFailedRun bool
	// member is what the owner notes keep of a workload; nil for any
	// other item.
	member *member
	// list is set for a List, whose entries are edited as items: entries
	// holds their edits, and result the List's own errors.
	list    bool
	entries []Edit
	// workload reports that the item is a workload: it has a pod spec.
	workload bool
}

// Failed reports whether the item failed: for a List, the List or any of
// its entries.
func (ed Edit) Failed() bool { return ed.result.outcome == outcomeFailed }

// Node is the item as action mutate writes it when no other item fails:
// edited, or the input item when nothing changed or it failed.
func (ed Edit) Node() *yaml.RNode { return ed.result.Node }

// Fact is what the termination budget keeps of the item as Node has it;
// for a failed workload, of the item as it came; for a List, nothing (its
// entries' facts are theirs: see Entries).
func (ed Edit) Fact() budget.Fact { return ed.fact }

// Written is what the run writes for the item, as far as the run knew
// whether an item fails when the edit was made; Add returns it.
func (ed Edit) Written() Written { return ed.written }

// Errors are the item's errors, one line each; a List's own, not its
// entries'.
func (ed Edit) Errors() []string { return ed.result.Log.Errors.Strings() }

// Entries are the edits of a List's entries, in order, or the edit itself
// for any other item.
func (ed Edit) Entries() []Edit {
	if ed.list {
		return ed.entries
	}
	return []Edit{ed}
}

// Edit edits one item and prepares what to write for it. It never changes
// the item, and it may be called from several goroutines once every
// Namespace and Node has been noted and the notes settled (see Settle).
// A List's entries are edited as items (see editList); a workload a
// controller owns is left to it (see member).
func (e *Engine) Edit(item *yaml.RNode) Edit {
	e.Settle()
	if e.cfgErr != nil {
		return Edit{input: item, result: itemResult{Node: item}, written: Written{Node: item}}
	}
	if entries, ok := list.Items(item); ok {
		return e.editList(item, entries)
	}
	ed := e.editItem(item)
	e.write(&ed)
	return ed
}

// editItem edits one item that is not a List; what to write is not set.
func (e *Engine) editItem(item *yaml.RNode) Edit {
	w, _ := workload.Find(item, e.t.Config.Spec.PodSpecPaths)
	m := e.t.member(item, w)
	if m != nil && m.left {
		r := itemResult{Node: item}
		// Not checked, but read: a duplicate key is an error wherever it is.
		if _, _, err := e.t.prepare(item, w); err != nil {
			r.outcome = outcomeFailed
			r.Log.FailWith(err)
		}
		return Edit{input: item, result: r, member: m, workload: w != nil}
	}
	r := e.t.item(item, w, e.namespaces)
	e.checkKubelets(item, w, &r)
	if r.fact != nil {
		return Edit{input: item, result: r, fact: *r.fact, member: m, workload: w != nil}
	}
	factOf := r.outcome
	if factOf == outcomeFailed {
		factOf = outcomeUntouched
	}
	return Edit{input: item, result: r, fact: e.t.fact(r.Node, factOf, r.sidecars), member: m, workload: w != nil}
}

// write sets what the run writes for the edit, as far as the run knows
// whether an item fails.
func (e *Engine) write(ed *Edit) {
	ed.inFailedRun = e.failed.Load()
	if e.cfgErr != nil {
		return
	}
	action := e.action()
	r := ed.result
	if ed.inFailedRun && action == config.ActionMutate && !ed.Failed() {
		r.Log.Changes = nil // nothing was changed
	}
	ed.written = Written{Node: r.Node, Results: append(e.writeEntries(ed), itemResults(ed.input, r, action)...)}
	ed.written.Changed = len(r.Log.Changes) > 0
	for _, entry := range ed.entries {
		ed.written.Changed = ed.written.Changed || entry.written.Changed
	}
	if ed.inFailedRun || ed.Failed() || action == config.ActionValidate {
		ed.written.Node, ed.written.Changed = ed.input, false
	}
}

// Written is what Add returns for one item: the node to write and the
// item's results.
type Written struct {
	// Node is the item to write: the edited item, or the input item when
	// nothing changed, the action is validate or the run fails. An item
	// nothing changed may still be a copy whose comments are placed to
	// read back where they were (see shapes.Stable).
	Node *yaml.RNode
	// Changed reports whether an edit changed the item (for a List, one
	// of its entries): only then does Node hold other data than the input
	// item. A driver that holds the item's input text writes that text
	// when Changed is false.
	Changed bool
	// Results are the item's results: an info result listing the changes
	// (an error with action validate), its warnings and its errors.
	Results fn.Results
}

// Add takes the next item's edit, in input order, counts it and returns
// what to write, as the run now knows whether an item fails. For the run's
// first failed item it also returns errFirstFailure: see Engine.
func (e *Engine) Add(ed Edit) (Written, error) {
	var err error
	if ed.Failed() && !e.failed.Load() {
		e.failed.Store(true)
		err = errFirstFailure
	}
	if ed.inFailedRun != e.failed.Load() {
		e.write(&ed)
	}
	e.shown = e.shown || shownByOrchestrator(ed.input)
	if e.cfgErr != nil {
		return ed.written, err
	}
	if !ed.list {
		e.count(ed)
		return ed.written, err
	}
	for _, entry := range ed.entries {
		e.count(entry)
	}
	if ed.result.Log.Failed() {
		e.summary.add(outcomeFailed) // the List itself
	}
	return ed.written, err
}

// count counts an item that is not a List: in the summary, the budget and
// the owner notes.
func (e *Engine) count(ed Edit) {
	if !ed.Failed() {
		e.budget.Add(ed.fact)
	}
	e.summary.addItem(ed.result)
	e.owners.add(ed.member)
	e.shared.add(ed.input, ed.result.Log)
	if ed.workload {
		resRef, file := ref(ed.input)
		left := ed.member != nil && ed.member.left
		e.checked = append(e.checked, Checked{Ref: resRef, File: file, Skipped: left || ed.result.outcome == outcomeSkipped})
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

// Transform runs the Engine over items held in memory: Note, Settle, Edit
// and Add for each item, then Close. See Transformer.Transform. Items held
// together may share anchors: an alias in one item whose anchor was in an
// item the run expanded is replaced by what it referred to (see
// shapes.KeepAliases), and an item where that fails fails.
func (e *Engine) Transform(items []*yaml.RNode) ([]*yaml.RNode, fn.Results) {
	for _, item := range items {
		e.Note(item)
	}
	e.Settle()
	edits := make([]Edit, len(items))
	nodes := make([]*yaml.RNode, len(items))
	for i, item := range items {
		edits[i] = e.Edit(item)
		nodes[i] = edits[i].Node()
	}
	if i, err := shapes.KeepAliases(items, nodes); err != nil {
		edits[i].result.outcome = outcomeFailed
		edits[i].result.Log.FailWith(err)
	}
	for i := range edits {
		edits[i].result.Node = nodes[i]
		if edits[i].Failed() {
			e.failed.Store(true)
		}
	}
	out := make([]*yaml.RNode, len(items))
	var results fn.Results
	for i := range edits {
		e.write(&edits[i]) // with the node KeepAliases gave; the run knows whether an item fails
		w, _ := e.Add(edits[i])
		out[i] = w.Node
		results = append(results, w.Results...)
	}
	return out, append(results, e.Close()...)
}
