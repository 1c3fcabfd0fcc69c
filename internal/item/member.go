package item

import (
	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/owner"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Member is what the run's owner notes keep of a workload: its name, its file
// and its controller.
type Member struct {
	Self owner.Ref
	File *fn.File
	// Controller is the workload's controller (see owner.Controller), or nil.
	Controller *owner.Ref
	// Left is set when the run leaves the workload to its controller: a
	// selected workload with a controller is neither edited nor reported
	// on its own. The API server refuses the edit (a Pod's containers and
	// a Job's template cannot change) or the controller undoes it (a
	// Deployment rewrites its ReplicaSets); the fix goes in the controller,
	// which is checked as any workload.
	Left bool
}

// member is the member of the item's workload w, or nil for an item that
// is not a workload (w nil).
func (t *Editor) member(item *yaml.RNode, w *workload.Workload) *Member {
	if w == nil {
		return nil
	}
	meta := tree.Meta(item, fileKeys...)
	m := &Member{Self: owner.Ref{APIVersion: meta.APIVersion, Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name}}
	if c, ok := owner.Controller(item); ok {
		m.Controller = &c
		m.Left = !t.Admission && workload.Selected(w, t.Config.Spec.Targets)
	}
	_, m.File = RefOf(meta)
	return m
}
