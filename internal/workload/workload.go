// Package workload finds the pod spec of pod-bearing resources, selects
// workloads by the config's targets and reads per-workload annotations.
package workload

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Workload is a resource that carries a pod spec.
type Workload struct {
	// Node is the whole resource.
	Node *yaml.RNode
	// Group, Version and Kind identify the resource's type.
	Group, Version, Kind string
	// Name and Namespace identify the resource.
	Name, Namespace string
	// SpecPath is the path of the pod spec inside Node.
	SpecPath []string

	// spec and meta are the pod spec and the pod template's metadata,
	// looked up in Node once (see PodSpec and Meta).
	spec, meta lookup
}

// lookup is a node of the workload, looked up once.
type lookup struct {
	node *yaml.RNode
	err  error
	done bool
}

// get returns the node at path in root, looking it up the first time.
func (l *lookup) get(root *yaml.RNode, path []string) (*yaml.RNode, error) {
	if !l.done {
		l.node, l.err = tree.Lookup(root, path...)
		l.done = true
	}
	return l.node, l.err
}

// With returns the workload read from node, a copy of its Node: the same
// resource, whose pod is looked up in node.
func (w *Workload) With(node *yaml.RNode) *Workload {
	c := *w
	c.Node, c.spec, c.meta = node, lookup{}, lookup{}
	return &c
}

// Find returns the workload for node when its kind carries a pod spec, using
// extra and then config.BuiltInKinds. It returns false for anything else.
func Find(node *yaml.RNode, extra []config.PodSpecPath) (*Workload, bool) {
	if node == nil || node.YNode().Kind != yaml.MappingNode {
		return nil, false
	}
	group, version := splitAPIVersion(node.GetApiVersion())
	kind := node.GetKind()
	p, ok := specPath(group, version, kind, extra)
	if !ok {
		return nil, false
	}
	meta := tree.Meta(node)
	return &Workload{
		Node: node, Group: group, Version: version, Kind: kind,
		Name: meta.Name, Namespace: meta.Namespace,
		SpecPath: splitPath(p.Path),
	}, true
}

// SpecPath is the path of the pod spec in resources of the apiVersion and
// kind, as Find gives it in Workload.SpecPath, or false when they carry
// none.
func SpecPath(apiVersion, kind string, extra []config.PodSpecPath) ([]string, bool) {
	group, version := splitAPIVersion(apiVersion)
	p, ok := specPath(group, version, kind, extra)
	if !ok {
		return nil, false
	}
	return splitPath(p.Path), true
}

// splitPath splits a podSpecPaths path ("spec/template/spec") into its keys.
func splitPath(path string) []string {
	return strings.Split(strings.Trim(path, "/"), "/")
}

// IsKind reports whether resources of the apiVersion and kind carry a pod
// spec: whether Find returns a workload for them.
func IsKind(apiVersion, kind string, extra []config.PodSpecPath) bool {
	group, version := splitAPIVersion(apiVersion)
	_, ok := specPath(group, version, kind, extra)
	return ok
}

// builtInKinds are config.BuiltInKinds, read once.
var builtInKinds = config.BuiltInKinds()

// specPath is the pod spec path of the kind, from extra and then the
// built-in kinds.
func specPath(group, version, kind string, extra []config.PodSpecPath) (config.PodSpecPath, bool) {
	for _, list := range [][]config.PodSpecPath{extra, builtInKinds} {
		for _, p := range list {
			if p.Kind == kind && p.Group == group && (p.Version == "" || p.Version == version) {
				return p, true
			}
		}
	}
	return config.PodSpecPath{}, false
}

func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// PodSpec returns the pod spec node, or nil when the resource has none.
func (w *Workload) PodSpec() (*yaml.RNode, error) {
	return w.spec.get(w.Node, w.SpecPath)
}

// Meta returns the pod template's metadata; nil when it has none.
func (w *Workload) Meta() (*yaml.RNode, error) {
	return w.meta.get(w.Node, w.TemplateMetaPath())
}

// TemplateMetaPath is the path of the pod template's metadata: the pod's own
// metadata for a Pod, the sibling of the pod spec otherwise.
func (w *Workload) TemplateMetaPath() []string {
	if len(w.SpecPath) == 1 {
		return []string{yaml.MetadataField}
	}
	p := append([]string(nil), w.SpecPath[:len(w.SpecPath)-1]...)
	return append(p, yaml.MetadataField)
}

// TemplateMeta returns the pod template's metadata, adding it before the pod
// spec when absent, and in place of a null ("metadata:" with nothing under
// it).
func (w *Workload) TemplateMeta() (*yaml.RNode, error) {
	if meta, err := w.Meta(); err == nil && meta != nil && meta.YNode().Kind == yaml.MappingNode {
		return meta, nil
	}
	path := w.TemplateMetaPath()
	parent := w.Node
	if len(path) > 1 {
		var err error
		if parent, err = tree.Lookup(w.Node, path[:len(path)-1]...); err != nil || parent == nil {
			return nil, fmt.Errorf("no pod template at %s", strings.Join(path[:len(path)-1], "."))
		}
	}
	meta, err := tree.EnsureMapBefore(parent, yaml.MetadataField, w.SpecPath[len(w.SpecPath)-1])
	if err == nil {
		w.meta = lookup{node: meta, done: true}
	}
	return meta, err
}

// TemplateLabel returns a label of the pod template.
func (w *Workload) TemplateLabel(key string) (string, bool) {
	meta, err := w.Meta()
	if err != nil || meta == nil {
		return "", false
	}
	n, err := tree.Lookup(meta, yaml.LabelsField, key)
	if err != nil || n == nil {
		return "", false
	}
	return yaml.GetValue(n), true
}

// IsJob reports whether the workload runs to completion (Job, CronJob).
func (w *Workload) IsJob() bool {
	return w.Group == "batch" && (w.Kind == "Job" || w.Kind == "CronJob")
}

// Annotation returns an annotation from the pod template's metadata or, when
// it is not there, from the workload's own metadata.
func (w *Workload) Annotation(key string) (string, bool) {
	v, _, ok := w.AnnotationAt(key)
	return v, ok
}

// AnnotationAt is Annotation that also returns the path of the metadata the
// annotation was found in, for messages.
func (w *Workload) AnnotationAt(key string) (value string, metadata []string, ok bool) {
	for i, p := range w.MetadataPaths() {
		if n, err := w.MetadataAt(i, yaml.AnnotationsField, key); err == nil && n != nil {
			return yaml.GetValue(n), p, true
		}
	}
	return "", nil, false
}

// MetadataAt returns the node at path in the metadata at MetadataPaths()[i]:
// the pod template's (found once), then the workload's own.
func (w *Workload) MetadataAt(i int, path ...string) (*yaml.RNode, error) {
	if i > 0 {
		return tree.Lookup(w.Node, append([]string{yaml.MetadataField}, path...)...)
	}
	meta, err := w.Meta()
	if err != nil || meta == nil {
		return nil, err
	}
	return tree.Lookup(meta, path...)
}

// MetadataPaths are the paths of the metadata the workload's annotations
// are read from, in order: the pod template's, then the workload's own.
func (w *Workload) MetadataPaths() [][]string {
	return [][]string{w.TemplateMetaPath(), {yaml.MetadataField}}
}

// Labels returns the workload's own labels.
func (w *Workload) Labels() map[string]string {
	return w.Node.GetLabels()
}

// Annotations returns the workload's own annotations.
func (w *Workload) Annotations() map[string]string {
	return w.Node.GetAnnotations()
}
