package webhook

import (
	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
)

// admit runs the engine (an admission Transformer, see
// engine.NewAdmission) over one admitted pod, with its Namespace (nil
// when unknown) noted first, exactly as a ResourceList holding the two
// would be run, except that a pod a controller creates is edited: the pod
// the run writes, its results, and whether the pod changed. This is the
// webhook's only call into the engine beside SetConfig's NewAdmission.
func admit(t *engine.Transformer, ns *yaml.RNode, pod *yaml.RNode) (patched *yaml.RNode, results fn.Results, changed bool) {
	e := t.Start()
	if ns != nil {
		e.Note(ns)
	}
	e.Note(pod)
	e.Settle()
	ed := e.Edit(pod)
	w, err := e.Add(ed)
	results = append(results, w.Results...)
	if err != nil {
		return pod, append(results, e.Close()...), false
	}
	results = append(results, e.Close()...)
	return w.Node, results, w.Changed
}
