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

// MayBeSidecar reports whether the run may take a container or init
// container of the name and image for a sidecar: a sidecar the config
// names, a container any of the config's presets (the catalog's, and the
// config's own entries) recognises by name or image, or a mesh's own init
// container, which native mode moves. Of any other container the run
// reads only its name, image, restartPolicy, command, args, lifecycle and
// probes: the edits find sidecars by name or image, and what they read
// and write in the application's containers (the drain delay, the grace
// period, the budget, the checks) is in those fields. It is true for
// every container when the config did not load.
func (e *Engine) MayBeSidecar(name, image string) bool {
	if e.cfgErr != nil {
		return true
	}
	return e.t.editor.MayBeSidecar(name, image)
}
