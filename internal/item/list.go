package item

import (
	"fmt"

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
// fails; so does a List with a failed entry.
func (t *Editor) editList(item *yaml.RNode, nodes []*yaml.Node, f *Facts) Edit {
	ed := Edit{Input: item, List: true, Result: Result{Node: item}}
	if err := checkList(item, nodes); err != nil {
		ed.Result.Outcome = OutcomeFailed
		ed.Result.Log.FailWith(err)
		return ed
	}
	_, file := Ref(item)
	ed.Entries = make([]Edit, len(nodes))
	in := make([]*yaml.RNode, len(nodes))
	out := make([]*yaml.RNode, len(nodes))
	for i, n := range nodes {
		in[i] = yaml.NewRNode(n)
		ed.Entries[i] = t.editItem(in[i], f)
		if m := ed.Entries[i].Member; m != nil && m.File == nil {
			m.File = file
		}
		out[i] = ed.Entries[i].Result.Node
	}
	// An entry's alias whose anchor was in an entry written expanded.
	if i, err := shapes.KeepAliases(in, out); err != nil {
		ed.Entries[i].Result.Outcome = OutcomeFailed
		ed.Entries[i].Result.Log.FailWith(err)
	}
	changed := false
	for i := range ed.Entries {
		ed.Entries[i].Result.Node = out[i]
		changed = changed || out[i] != in[i]
		if ed.Entries[i].Failed() {
			ed.Result.Outcome = OutcomeFailed
		}
	}
	if changed && !ed.Failed() {
		entries := make([]*yaml.Node, len(out))
		for i, n := range out {
			entries[i] = n.YNode()
		}
		ed.Result.Node = list.With(item, entries)
		DropOrchestratorIDs(ed.Result.Node)
	}
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
