package engine

import (
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// PodSpecPath is the path of the pod spec in an item of the apiVersion and
// kind that the run edits as a workload: the built-in kinds' and the
// config's podSpecPaths. It is false for every other kind, for a List
// (whose entries are the items), and when the config did not load.
func (e *Engine) PodSpecPath(apiVersion, kind string) ([]string, bool) {
	if e.cfgErr != nil || strings.HasSuffix(kind, "List") {
		return nil, false
	}
	return workload.SpecPath(apiVersion, kind, e.t.Config.Spec.PodSpecPaths)
}

// MayBeSidecar reports whether the run may take a container of the name
// and image for a sidecar (the config's names, any preset's names and
// images, the meshes' init containers); of any other container the run
// reads only the fields the edits read (see elide). It is true for every
// container when the config did not load.
func (e *Engine) MayBeSidecar(name, image string) bool {
	if e.cfgErr != nil {
		return true
	}
	return e.t.editor.MayBeSidecar(name, image)
}
