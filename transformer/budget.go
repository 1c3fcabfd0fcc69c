package transformer

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// sidecarNames are the container names the config lists as sidecars.
func (t *Transformer) sidecarNames() map[string]bool {
	out := make(map[string]bool, len(t.Config.Spec.Sidecars))
	for _, sc := range t.Config.Spec.Sidecars {
		out[sc.Name] = true
	}
	return out
}

// checkBudget reports, in ordered mode, each sidecar of the edited pod spec
// that leaves before the application's preStop ends (native sidecars are
// ordered by kubelet).
func (t *Transformer) checkBudget(spec *yaml.RNode, found, injected []sidecarPlan, p plan, log *report.Log) {
	if p.mode == config.ModeNative || len(found)+len(injected) == 0 {
		return
	}
	exits := make([]budget.Exit, len(injected))
	for i, sc := range injected {
		exits[i] = budget.Exit{Name: sc.Name, Seconds: config.Seconds(sc.waitBeforeExit), Injected: true}
	}
	for _, msg := range budget.ReadPod(spec, t.sidecarNames()).OrderedBreaks(exits) {
		log.Break("%s", msg)
	}
}
