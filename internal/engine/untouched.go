package engine

import (
	"strings"
	"sync"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// readKinds are the kinds the run reads without editing them: a Namespace
// (its skip annotation) and what the termination budget reads for load
// balancers (budget.ReadKinds), whatever their group.
var readKinds = sync.OnceValue(func() map[string]bool {
	kinds := map[string]bool{"Namespace": true}
	for _, k := range budget.ReadKinds() {
		kinds[k] = true
	}
	kinds[deadline.Data().NodePool.Kind] = true
	return kinds
})

// Untouched reports whether the run neither edits, reads nor counts an item
// of the apiVersion and kind: not a workload of the config's or the built-in
// kinds, not a List (whose entries are items), not one of readKinds. Such an
// item needs no Edit and no Add: a driver may write it as it came, when
// nothing else in it is read by the run (the kpt package-path annotation,
// see shownByOrchestrator). It is false when the config did not load.
func (e *Engine) Untouched(apiVersion, kind string) bool {
	if e.cfgErr != nil || readKinds()[kind] || strings.HasSuffix(kind, "List") {
		return false
	}
	return !workload.IsKind(apiVersion, kind, e.t.Config.Spec.PodSpecPaths)
}

// builtInKinds are config.BuiltInKinds, read once.
var builtInKinds = config.BuiltInKinds()

// MayRead reports whether the run may edit, read or count an item of the
// kind, whatever its apiVersion: Untouched is false for every apiVersion
// when MayRead is true. It tells a driver, before it scans an item, that
// the scan cannot spare the parse.
func (e *Engine) MayRead(kind string) bool {
	if e.cfgErr != nil || readKinds()[kind] || strings.HasSuffix(kind, "List") {
		return true
	}
	for _, list := range [][]config.PodSpecPath{e.t.Config.Spec.PodSpecPaths, builtInKinds} {
		for _, p := range list {
			if p.Kind == kind {
				return true
			}
		}
	}
	return false
}

// PackagePathAnnotation is the annotation kpt fn render sets on every item
// it passes: an item that holds it is read by the run (see Engine.Shown).
const PackagePathAnnotation = packagePathAnnotation
