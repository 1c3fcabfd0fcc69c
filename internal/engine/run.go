package engine

import (
	"errors"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/parallel"
)

// Pass is a driver's part of a run: how to read, prepare and write item
// i. Every path is a Pass: the streamed ResourceList, the plain stream,
// and items held in memory (Transform: the whole list, Filter, the
// kustomize adapter, --explain through the drivers). Run owns the rest: the pre-pass over
// Namespaces and Nodes, the order, the parallelism, what a failed item
// means for the items before it, and the closing results.
type Pass[T any] struct {
	// Len is the number of items; Window how many may be prepared ahead
	// of the one being written.
	Len, Window int
	// Marked are the items that may be or hold Namespaces or Nodes,
	// which ParseMarked parses (nil, nil for one to pass over) for
	// Engine.Note before any item is edited.
	Marked      []int
	ParseMarked func(i int) (*yaml.RNode, error)
	// Prepare reads item i and, unless it writes the item as it came
	// without reading it (ed nil), edits it with Engine.Edit and prepares
	// its output. It runs on any goroutine and changes nothing shared.
	Prepare func(i int) (v T, ed *Edit, err error)
	// Check, when set, is given each edit in input order before the run
	// counts it, and reports whether it changed the edit: the whole list
	// keeps its aliases there (see shapes.Aliases).
	Check func(i int, ed *Edit) bool
	// Write writes item i, in input order: v as Prepare made it, with
	// what the run writes for the item (nil when ed was nil). The run may
	// have learnt of a failed item since Prepare: w is then the item as it
	// came, with its results in a failed run.
	Write func(i int, v T, w *Written) error
	// Failed is told, once, that item k is the run's first failed item:
	// the items before it, already written, are to be written again as
	// they came, each with only its warnings and errors.
	Failed func(k int) error
}

// Run runs the Engine over a driver's items (see Pass) and returns the
// closing results (see Close). It stops at the first error of the pass.
// No item is read or edited twice: when an item fails, the edits already
// made stand, and only what is written changes.
func Run[T any](e *Engine, p Pass[T]) (fn.Results, error) {
	for _, i := range p.Marked {
		if item, err := p.ParseMarked(i); err == nil && item != nil {
			e.Note(item)
		}
	}
	e.Settle()
	type prepared struct {
		v  T
		ed *Edit
	}
	err := parallel.Map(p.Len, p.Window, func(i int) (prepared, error) {
		v, ed, err := p.Prepare(i)
		return prepared{v, ed}, err
	}, func(i int, x prepared) error {
		if x.ed == nil {
			return p.Write(i, x.v, nil)
		}
		if p.Check != nil && p.Check(i, x.ed) {
			e.write(x.ed)
		}
		w, err := e.Add(*x.ed)
		if errors.Is(err, errFirstFailure) {
			err = p.Failed(i)
		}
		if err != nil {
			return err
		}
		return p.Write(i, x.v, &w)
	})
	if err != nil {
		return nil, err
	}
	return e.Close(), nil
}
