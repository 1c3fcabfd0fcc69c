package item

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Namespaces are the Namespaces of a run's input, by name: their labels
// and annotations, which switch injectors and skip their workloads.
type Namespaces map[string]preset.Meta

// skips reports whether the named Namespace is annotated to skip its workloads.
func (ns Namespaces) skips(name string) bool {
	v, _ := ns[name].Annotation(config.AnnotationSkip)
	return v == "true"
}

// entries are the presets of a config's sidecar entries, in the order of
// spec.Sidecars, and an index of the containers they recognise by name or
// image: a pod's containers are each looked up once, not matched against
// every entry (with no config, the whole catalog).
type entries struct {
	presets []preset.Preset
	index   *preset.Index
	// recognising: some entry has no name, and recognises its container.
	recognising bool
	// names are the containers the run takes for sidecars by name alone:
	// those the config names, every entry's init containers and every
	// mesh's own (see Engine.MayBeSidecar).
	names map[string]bool
}

// sidecarEntries are the presets of the config's sidecar entries and
// their index, made on first use.
func (t *Editor) sidecarEntries() *entries {
	t.entriesOnce.Do(func() {
		spec := &t.Config.Spec
		e := entries{names: map[string]bool{}}
		for _, name := range preset.MeshInitContainers() {
			e.names[name] = true
		}
		for _, sc := range spec.Sidecars {
			p, _ := preset.Resolve(spec.Catalog.Entries, sc.Preset)
			e.presets = append(e.presets, p)
			e.recognising = e.recognising || sc.Recognise
			e.names[sc.Name] = true
			for _, name := range p.InitContainers {
				e.names[name] = true
			}
		}
		e.index = preset.NewIndex(e.presets)
		t.entries = e
	})
	return &t.entries
}

// recognise finds the sidecar of the config entry at index entry, which
// has no name, among a pod's containers (see Editor.readPod): a
// container or init container of one of its preset's names, else the first
// container or native sidecar whose image the preset recognises (an init
// container that runs to completion, such as a mesh's own, which may share
// the proxy's image, is not the sidecar). It sets the plan's container
// name and says how it was recognised; a sidecar not found keeps its
// preset's container name.
func recognise(pod []podContainer, entry int, sp *sidecarPlan) {
	for _, byImage := range []bool{false, true} {
		for _, regular := range []bool{true, false} { // containers first
			for _, c := range pod {
				if c.regular != regular || !c.named || slices.Contains(sp.preset.InitContainers, c.name) {
					continue
				}
				if !byImage && slices.Contains(c.byName, entry) {
					sp.Name, sp.recognisedBy = c.name, "its container name"
					return
				}
				if byImage && (c.regular || c.always) && slices.Contains(c.byImage, entry) {
					sp.Name, sp.recognisedBy = c.name, "its image "+report.Quote(c.image)
					return
				}
			}
		}
	}
}

// admitted marks a sidecar of the catalog that is not in the pod but whose
// injector is switched on for the workload: it is injected at admission.
// One whose injector reads annotations the function writes is annotated for.
// One whose injector would not see or would refuse the pod (its webhooks'
// selectors, its code's refusals: preset.Injector.Injects) is not. It
// reports whether that was decided by the namespace selectors of its
// webhooks on a Namespace the input lacks, taken as Kubernetes creates it
// (its name label alone).
func admitted(pod preset.Pod, ns preset.Meta, at preset.Target, sp *sidecarPlan) (assumed bool) {
	s, onNamespace, ok := sp.preset.Admitted(pod, ns)
	if !ok {
		return false
	}
	if !sp.preset.Injector.Injects(pod, ns, at) {
		return !at.NamespaceKnown && sp.preset.Injector.ByNamespace(pod, ns, at)
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
	return false
}

// recognised records, in the workload's log, each sidecar of the catalog
// the run recognised in it and what recognised it; the info result of a
// changed workload starts with them. A sidecar its injector adds, which the
// function cannot ask to order it in the mode, is a warning that says what
// the injector itself offers.
func recognised(spec *yaml.RNode, sidecars []sidecarPlan, native bool, log *report.Log) {
	for _, sc := range sidecars {
		if sc.recognisedBy == "" {
			continue
		}
		at := sidecarField(spec, sc.Name)
		if !sc.admitted || sc.preset.AsksToOrder(native) {
			log.Recognise(at, "%s (%s) by %s", sc.Name, sc.preset.Name, sc.recognisedBy)
			if sc.admitted && native && sc.preset.Injector.Native.NoStartupProbe {
				log.WarnShared(report.KindReadiness, at, "%s (%s): its injector writes the native sidecar without a startupProbe, so kubelet starts the application without waiting for it to be ready",
					sc.Name, sc.preset.Name)
			}
			continue
		}
		msg := fmt.Sprintf("%s (%s), recognised by %s: the function cannot ask its injector to order it", sc.Name, sc.preset.Name, sc.recognisedBy)
		if o := sc.preset.Injector.Ordering; o != "" {
			msg += ": " + o
		}
		log.Warn(report.KindRecognition, at, "%s", msg)
	}
}

// sidecarField is the container of a sidecar in the pod spec, or the pod
// spec for one its mesh injects at admission.
func sidecarField(spec *yaml.RNode, name string) report.Field {
	for _, list := range []string{podspec.Containers, podspec.InitContainers} {
		if podspec.Find(spec, list, name) != nil {
			return report.Container(list, name)
		}
	}
	return report.Pod("")
}

// MayBeSidecar reports whether a container of the name and image may be
// taken for a sidecar (see engine.Engine.MayBeSidecar).
func (t *Editor) MayBeSidecar(name, image string) bool {
	entries := t.sidecarEntries()
	if entries.names[name] {
		return true
	}
	byName, byImage := entries.index.Recognising(name, image)
	return len(byName)+len(byImage) > 0
}
