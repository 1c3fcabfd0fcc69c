package engine

import (
	"fmt"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/item"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// kubelets are what the Nodes of a run's input (`kubectl get nodes,... -o
// yaml`) say of their kubelets: a field that a kubelet serves only from
// some version on is served on every Node only from the oldest kubelet's
// version on.
type kubelets struct {
	// nodes are the Nodes whose kubelet version reads.
	nodes kubelet.Nodes
	// unread are the warnings about the Nodes whose version does not.
	unread fn.Results
	// followed is set when kubernetesVersion auto followed the oldest.
	followed *kubelet.Node
}

// note records a Node item.
func (k *kubelets) note(node *yaml.RNode) {
	n, err := kubelet.ReadNode(node)
	if err != nil {
		r, file := item.Ref(node)
		k.unread = append(k.unread, report.Result(report.NewFinding(report.KindKubelet, fn.Warning, report.At("status.nodeInfo.kubeletVersion"),
			"%v: it is not counted among the kubelets", err), r, file))
		return
	}
	k.nodes = append(k.nodes, n)
}

// followOldest sets the run's version to the oldest kubelet's when the
// config's kubernetesVersion is auto and the input has Nodes: the edits
// then write only what every Node serves, and the config's checks that
// depend on the version are made again at it.
func (e *Engine) followOldest() {
	if e.cfgErr != nil || !e.t.Config.Spec.VersionAuto() {
		return
	}
	oldest, ok := e.kubelets.nodes.Oldest()
	if !ok {
		return
	}
	e.kubelets.followed = &oldest
	cfg, err := e.t.Config.AtVersion(config.Version{Major: 1, Minor: oldest.Minor})
	if err != nil {
		e.cfgErr = err
		return
	}
	e.t = New(cfg)
}

// results are the closing results about the Nodes: a warning per Node
// whose kubelet version does not read, and with kubernetesVersion auto an
// info saying which version the run followed.
func (e *Engine) kubeletResults() fn.Results {
	out := append(fn.Results(nil), e.kubelets.unread...)
	if e.t == nil || !e.t.Config.Spec.VersionAuto() {
		return out
	}
	msg := fmt.Sprintf("kubernetesVersion auto: %s, the default: the input has no Node whose kubelet version reads", config.DefaultKubernetesVersion)
	if n := e.kubelets.followed; n != nil {
		msg = fmt.Sprintf("kubernetesVersion auto: 1.%d, the oldest kubelet among the input's %s: %s", n.Minor, e.kubelets.nodes.Count(), n)
	}
	return append(out, report.Result(report.NewFinding(report.KindKubelet, fn.Info, report.At("spec.kubernetesVersion"), "%s", msg), nil, nil))
}
