package item

import (
	"sync/atomic"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// Pod is one workload's pod as every step of its edit reads it: the pod
// spec, its containers and init containers, the template's labels and
// annotations (with the workload's own), and its Namespace. It is read
// once, before the edit (readPod); recognition, the verdict, the plan,
// the filters' inputs and the kubelet check take it.
type Pod struct {
	w *workload.Workload
	// spec is the pod spec, nil when the workload has none.
	spec *yaml.RNode
	// containers are the init containers, then the containers.
	containers []podContainer
	*podMeta
	// ns is the workload's Namespace, when the input has it (nsKnown).
	ns      preset.Meta
	nsKnown bool
}

// target is where the pod is admitted, as injectors read it.
func (p *Pod) target() preset.Target {
	at := preset.Target{Namespace: p.w.Namespace, NamespaceKnown: p.nsKnown}
	if p.spec != nil {
		if v := p.spec.Field("hostNetwork"); v != nil && v.Value != nil {
			at.HostNetwork = yaml.GetValue(v.Value) == "true"
		}
	}
	for _, c := range p.containers {
		if c.named {
			at.Containers = append(at.Containers, preset.Container{Name: c.name, Image: c.image, Init: !c.regular})
		}
	}
	return at
}

// has reports whether the pod has a container or init container named name.
func (p *Pod) has(name string) bool {
	for _, c := range p.containers {
		if c.named && c.name == name {
			return true
		}
	}
	return false
}

// reads counts the pods read (readPod) and the budget's reads of a pod
// (readBudget): TestPodReadOnce holds them to one each per workload.
var reads struct{ pods, budgets atomic.Int64 }

// readPod reads the pod of a workload the edit holds in its copy, whose
// metadata the checks have read (readPodMeta).
func (t *Editor) readPod(w *workload.Workload, meta *podMeta, ns preset.Meta) *Pod {
	reads.pods.Add(1)
	pod := &Pod{w: w, podMeta: meta, ns: ns}
	pod.spec, _ = w.PodSpec()
	if pod.spec == nil {
		return pod
	}
	pod.containers = t.containers(pod.spec)
	return pod
}

// containers reads the init containers and containers of a pod spec, each
// with the config's entries that recognise it.
func (t *Editor) containers(spec *yaml.RNode) []podContainer {
	out := readContainers(spec)
	if entries := t.sidecarEntries(); entries.recognising {
		for i := range out {
			if c := &out[i]; c.named {
				c.byName, c.byImage = entries.index.Recognising(c.name, c.image)
			}
		}
	}
	return out
}

// readBudget reads a pod spec as the termination budget sees it.
func readBudget(spec *yaml.RNode, sidecars map[string]bool) budget.Pod {
	reads.budgets.Add(1)
	return budget.ReadPod(spec, sidecars)
}
