package engine

import (
	"fmt"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
)

// editList edits a List (see list.Items), as `kubectl get -o yaml|json`
// prints one: each entry is edited as an item would be, with its own
// results, counts and budget facts, and the List is written back as a
// List whose unchanged entries are their input nodes. A List whose own
// fields hold a duplicate key, or with an entry that is not a mapping,
// fails; so does a List with a failed entry, which fails the run.
func (e *Engine) editList(item *yaml.RNode, nodes []*yaml.Node) Edit {
	ed := Edit{input: item, list: true, result: itemResult{Node: item}}
	if err := checkList(item, nodes); err != nil {
		ed.result.outcome = outcomeFailed
		ed.result.Log.FailWith(err)
		e.write(&ed)
		return ed
	}
	_, file := ref(item)
	ed.entries = make([]Edit, len(nodes))
	in := make([]*yaml.RNode, len(nodes))
	out := make([]*yaml.RNode, len(nodes))
	for i, n := range nodes {
		in[i] = yaml.NewRNode(n)
		ed.entries[i] = e.editItem(in[i])
		if m := ed.entries[i].member; m != nil && m.file == nil {
			m.file = file
		}
		out[i] = ed.entries[i].result.Node
	}
	// An entry's alias whose anchor was in an entry written expanded.
	if i, err := shapes.KeepAliases(in, out); err != nil {
		ed.entries[i].result.outcome = outcomeFailed
		ed.entries[i].result.Log.FailWith(err)
	}
	changed := false
	for i := range ed.entries {
		ed.entries[i].result.Node = out[i]
		changed = changed || out[i] != in[i]
		if ed.entries[i].Failed() {
			ed.result.outcome = outcomeFailed
		}
	}
	if changed && !ed.Failed() {
		entries := make([]*yaml.Node, len(out))
		for i, n := range out {
			entries[i] = n.YNode()
		}
		ed.result.Node = list.With(item, entries)
		dropOrchestratorIDs(ed.result.Node)
	}
	e.write(&ed)
	return ed
}

// checkList checks what the function reads of a List itself: no duplicate
// key among its own fields (a second items would be ignored), and entries
// that are mappings.
func checkList(item *yaml.RNode, entries []*yaml.Node) error {
	keys := map[string]bool{}
	c := item.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if keys[c[i].Value] {
			return &shapes.DuplicateKeyError{Key: c[i].Value}
		}
		keys[c[i].Value] = true
	}
	if _, err := shapes.Walk(list.Without(item).YNode()); err != nil {
		return err
	}
	for i, n := range entries {
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("items[%d] must be a mapping (a resource), found %s", i, report.Found(n))
		}
	}
	return nil
}

// writeEntries sets what the run writes for each entry of a List and
// returns their results, in order. An entry's results name the entry; they
// carry the List's file, as the entry has none of its own.
func (e *Engine) writeEntries(ed *Edit) fn.Results {
	if !ed.list {
		return nil
	}
	_, file := ref(ed.input)
	var out fn.Results
	for i := range ed.entries {
		e.write(&ed.entries[i])
		for _, r := range ed.entries[i].written.Results {
			if r.File == nil {
				r.File = file
			}
			out = append(out, r)
		}
	}
	return out
}
