package item

import (
	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// Outcome says what happened to one item.
type Outcome int

// Outcomes, counted in the run's closing summary.
const (
	// OutcomeUntouched is a resource the function does not handle or left as it was.
	OutcomeUntouched Outcome = iota
	// OutcomeOrdered is a workload whose sidecars were ordered in spec.containers.
	OutcomeOrdered
	// OutcomeConverted is a workload whose sidecars became native sidecars.
	OutcomeConverted
	// OutcomeAnnotated is a workload that got the mesh's own annotations.
	OutcomeAnnotated
	// OutcomeAdjusted is a workload whose sidecars were native sidecars
	// already and that got other edits (their place, a probe, the grace period).
	OutcomeAdjusted
	// OutcomeSkipped is a workload left alone by an annotation or its Namespace.
	OutcomeSkipped
	// OutcomeFailed is an item with an error result.
	OutcomeFailed
)

// Facts are what the run learnt of its input before any item is edited:
// the Namespaces and the Nodes' kubelets.
type Facts struct {
	Namespaces Namespaces
	Kubelets   kubelet.Nodes
}

// Edit is one item as the function edits it with action mutate; the run
// sets what it writes for it (Written, InFailedRun).
type Edit struct {
	Input  *yaml.RNode
	Result Result
	// Fact is what the termination budget keeps of the item as
	// Result.Node has it; for a failed workload, of the item as it came;
	// for a List, nothing (its entries' facts are theirs).
	Fact budget.Fact
	// Written is what the run writes for the item; InFailedRun reports
	// that the run knew an item fails when it set Written.
	Written     Written
	InFailedRun bool
	// Member is what the owner notes keep of a workload; nil for any other item.
	Member *Member
	// List is set for a List, whose entries are edited as items: Entries
	// holds their edits, and Result the List's own errors.
	List    bool
	Entries []Edit
	// Workload reports that the item is a workload: it has a pod spec.
	Workload bool
}

// Written is what the run writes for one item: the node and its results.
type Written struct {
	// Node is the edited item, or the input item when nothing changed, the
	// action is validate or the run fails. An item nothing changed may
	// still be a copy whose comments are placed to read back where they
	// were (see shapes.Stable).
	Node *yaml.RNode
	// Changed reports whether an edit changed the item (for a List, one of
	// its entries): only then does Node hold other data than the input.
	Changed bool
	// Results are the item's results: the changes (errors with action
	// validate), its warnings and its errors.
	Results fn.Results
}

// Failed reports whether the item failed: for a List, the List or any of
// its entries.
func (ed Edit) Failed() bool { return ed.Result.Outcome == OutcomeFailed }

// Node is the item as action mutate writes it when no other item fails.
func (ed Edit) Node() *yaml.RNode { return ed.Result.Node }

// Errors are the item's errors, one line each; a List's own, not its entries'.
func (ed Edit) Errors() []string { return ed.Result.Log.Errors.Strings() }

// Each is the edits of a List's entries, in order, or the edit itself.
func (ed Edit) Each() []Edit {
	if ed.List {
		return ed.Entries
	}
	return []Edit{ed}
}

// Injected are the presets of the sidecars the item's injectors add at
// admission.
func (ed Edit) Injected() []string { return ed.Result.injected }

// PodSpec and TemplateMeta are the pod spec and pod template metadata of
// the workload as Node has it (nil when absent), as the edit found them.
func (ed Edit) PodSpec() *yaml.RNode {
	if w := ed.Result.written(); w != nil {
		spec, _ := w.PodSpec()
		return spec
	}
	return nil
}

// TemplateMeta: see PodSpec.
func (ed Edit) TemplateMeta() *yaml.RNode {
	if w := ed.Result.written(); w != nil {
		meta, _ := w.Meta()
		return meta
	}
	return nil
}

// Edit edits one item with the run's facts; it never changes the item and
// may run on any goroutine. A List's entries are edited as items (see
// editList); a workload a controller owns is left to it (see Member).
func (t *Editor) Edit(item *yaml.RNode, f *Facts) Edit {
	if entries, ok := list.Items(item); ok {
		return t.editList(item, entries, f)
	}
	return t.editItem(item, f)
}

// editItem edits one item that is not a List.
func (t *Editor) editItem(item *yaml.RNode, f *Facts) Edit {
	w, _ := workload.Find(item, t.Config.Spec.PodSpecPaths)
	m := t.member(item, w)
	if m != nil && m.Left {
		r := Result{Node: item}
		// Not checked, but read: a duplicate key is an error wherever it is.
		if _, _, err := t.prepare(item, w); err != nil {
			r.Outcome = OutcomeFailed
			r.Log.FailWith(err)
		}
		return Edit{Input: item, Result: r, Member: m, Workload: w != nil}
	}
	r := t.item(item, w, f.Namespaces)
	r.input = w
	t.checkKubelets(w, f.Kubelets, &r)
	if r.fact != nil {
		return Edit{Input: item, Result: r, Fact: *r.fact, Member: m, Workload: w != nil}
	}
	factOf := r.Outcome
	if factOf == OutcomeFailed {
		factOf = OutcomeUntouched
	}
	return Edit{Input: item, Result: r, Fact: t.fact(r.Node, w, factOf, r.sidecars), Member: m, Workload: w != nil}
}
