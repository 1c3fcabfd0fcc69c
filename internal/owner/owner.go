// Package owner reads the controller of an object read from a cluster: the
// entry of its metadata.ownerReferences with controller: true, which a
// ReplicaSet sets on its Pods, a Deployment on its ReplicaSets and a
// CronJob on its Jobs.
package owner

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Ref names an object: its type, namespace and name.
type Ref struct {
	APIVersion, Kind, Namespace, Name string
}

// String is the object as messages name it: "ReplicaSet shop/web-6c9f8".
func (r Ref) String() string { return report.Resource(r.Kind, r.Namespace, r.Name) }

// Key is the object's identity in one input: its group (not its version,
// which a List and an ownerReferences entry may spell differently), kind,
// namespace and name.
func (r Ref) Key() string {
	return group(r.APIVersion) + "\x00" + r.Kind + "\x00" + r.Namespace + "\x00" + r.Name
}

func group(apiVersion string) string {
	for i := len(apiVersion) - 1; i >= 0; i-- {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}

// clusterScoped are the owner kinds that have no namespace: a Node owns
// the mirror Pods of its static pods.
var clusterScoped = map[string]bool{"v1/Node": true}

// Controller returns the object's controller: the first entry of
// metadata.ownerReferences with controller: true. An owner is in the
// namespace of what it owns (Kubernetes refuses an ownerReferences entry
// across namespaces), unless it is cluster-scoped. Fields of another shape
// than Kubernetes writes are read as no controller.
func Controller(item *yaml.RNode) (Ref, bool) {
	refs, err := tree.Lookup(item, yaml.MetadataField, "ownerReferences")
	if err != nil || refs == nil || refs.YNode().Kind != yaml.SequenceNode {
		return Ref{}, false
	}
	for _, e := range refs.YNode().Content {
		entry := yaml.NewRNode(e)
		if e.Kind != yaml.MappingNode || scalar(entry, "controller") != "true" {
			continue
		}
		r := Ref{APIVersion: scalar(entry, "apiVersion"), Kind: scalar(entry, "kind"), Name: scalar(entry, "name")}
		if !clusterScoped[r.APIVersion+"/"+r.Kind] {
			r.Namespace = item.GetNamespace()
		}
		return r, r.Kind != "" && r.Name != ""
	}
	return Ref{}, false
}

// scalar is the value of a scalar field of a mapping, or "".
func scalar(m *yaml.RNode, field string) string {
	f := m.Field(field)
	if f == nil || f.Value.YNode().Kind != yaml.ScalarNode {
		return ""
	}
	return f.Value.YNode().Value
}
