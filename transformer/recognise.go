package transformer

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/yamlnode"
)

// namespaces are the Namespaces of a run's input, by name: their labels
// and annotations, which switch injectors and skip their workloads.
type namespaces map[string]preset.Meta

// skips reports whether the named Namespace is annotated to skip its workloads.
func (ns namespaces) skips(name string) bool {
	v, _ := ns[name].Annotation(AnnotationSkip)
	return v == "true"
}

// recognise finds the sidecar of a config entry without a name in the pod:
// a container or init container of one of its preset's names, else the
// first container or native sidecar whose image the preset recognises (an
// init container that runs to completion, such as a mesh's own, which may
// share the proxy's image, is not the sidecar). It sets the plan's container
// name and says how it was recognised; a sidecar not found keeps its
// preset's container name.
func recognise(spec *yaml.RNode, sp *sidecarPlan) {
	var candidates []container
	for _, field := range []string{podspec.Containers, podspec.InitContainers} {
		list, err := yamlnode.Lookup(spec, field)
		if err != nil || list == nil || list.YNode().Kind != yaml.SequenceNode {
			continue
		}
		for _, n := range list.Content() {
			c := yaml.NewRNode(n)
			name, image, policy := c.Field("name"), c.Field("image"), c.Field("restartPolicy")
			if name == nil || name.Value.YNode().Kind != yaml.ScalarNode || slices.Contains(sp.preset.InitContainers, yaml.GetValue(name.Value)) {
				continue
			}
			cand := container{name: yaml.GetValue(name.Value), sidecar: field == podspec.Containers || (policy != nil && yaml.GetValue(policy.Value) == "Always")}
			if image != nil {
				cand.image = yaml.GetValue(image.Value)
			}
			candidates = append(candidates, cand)
		}
	}
	for _, byImage := range []bool{false, true} {
		for _, c := range candidates {
			if got, ok := sp.preset.Recognises(c.name, c.image); ok && got == byImage && (!byImage || c.sidecar) {
				sp.Name, sp.recognisedBy = c.name, "its container name"
				if byImage {
					sp.recognisedBy = "its image " + report.Quote(c.image)
				}
				return
			}
		}
	}
}

// container is what recognise reads of a container.
type container struct {
	name, image string
	// sidecar: a regular container, or an init container with restartPolicy Always.
	sidecar bool
}

// admitted marks a sidecar of the catalog that is not in the pod but whose
// injector is switched on for the workload: it is injected at admission.
// One whose injector reads annotations the function writes is annotated for.
func admitted(pod preset.Pod, ns preset.Meta, sp *sidecarPlan) {
	s, onNamespace, ok := sp.preset.Admitted(pod, ns)
	if !ok {
		return
	}
	where := "the pod template"
	if onNamespace {
		where = "its Namespace"
	}
	sp.recognisedBy = fmt.Sprintf("%s on %s (added at admission)", s, where)
	sp.admitted = true
	if sp.preset.Annotates() {
		sp.IfAbsent = config.IfAbsentAnnotate
	}
}

// recognised records, in the workload's log, each sidecar of the catalog
// the run recognised in it and what recognised it; the info result of a
// changed workload starts with them. A sidecar its injector adds, which the
// function cannot ask to order it in the mode, is a warning that says what
// the injector itself offers.
func recognised(sidecars []sidecarPlan, native bool, log *report.Log) {
	for _, sc := range sidecars {
		if sc.recognisedBy == "" {
			continue
		}
		if !sc.admitted || sc.preset.AsksToOrder(native) {
			log.Recognise("%s (%s) by %s", sc.Name, sc.preset.Name, sc.recognisedBy)
			if sc.admitted && native && sc.preset.Injector.Native.NoStartupProbe {
				log.WarnShared("%s (%s): its injector writes the native sidecar without a startupProbe, so kubelet starts the application without waiting for it to be ready",
					sc.Name, sc.preset.Name)
			}
			continue
		}
		msg := fmt.Sprintf("%s (%s), recognised by %s: the function cannot ask its injector to order it", sc.Name, sc.preset.Name, sc.recognisedBy)
		if o := sc.preset.Injector.Ordering; o != "" {
			msg += ": " + o
		}
		log.Warn("%s", msg)
	}
}
