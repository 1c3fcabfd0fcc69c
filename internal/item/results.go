package item

import (
	"strconv"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Ref returns the result's resourceRef and file for an item. The file is
// the one the orchestrator's path annotation names (kpt), else the one
// kustomize's origin annotation names (kustomization buildMetadata:
// [originAnnotations]), relative to the kustomization built.
//
// It reads the item's fields as kyaml's GetMeta reads them, without the
// maps of every label and annotation GetMeta makes.
func Ref(item *yaml.RNode) (*fn.ResourceRef, *fn.File) {
	var m yaml.ResourceMeta
	n := item.YNode()
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	m.APIVersion, m.Kind = metaText(n, yaml.APIVersionField), metaText(n, yaml.KindField)
	md := metaField(n, yaml.MetadataField)
	m.Name, m.Namespace = metaText(md, yaml.NameField), metaText(md, yaml.NamespaceField)
	if a := metaField(md, yaml.AnnotationsField); a != nil && a.Kind == yaml.MappingNode {
		m.Annotations = map[string]string{}
		for i := 0; i+1 < len(a.Content); i += 2 {
			switch k := a.Content[i].Value; k {
			case kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, originAnnotation:
				if _, seen := m.Annotations[k]; seen {
					continue // the first key of a name counts, as in GetMeta
				}
				if v := a.Content[i+1]; !yaml.IsYNodeTaggedNull(v) {
					m.Annotations[k] = v.Value
				} else {
					m.Annotations[k] = ""
				}
			}
		}
	}
	return RefOf(m)
}

// metaField is the value of the first key of that name in mapping m, as
// RNode.Field finds it, or nil where GetMeta takes none: m not a mapping,
// the key absent, its value null or empty.
func metaField(m *yaml.Node, key string) *yaml.Node {
	v := tree.Value(m, key)
	if yaml.IsYNodeNilOrEmpty(v) {
		return nil
	}
	return v
}

// metaText is the text of metaField, "" for none.
func metaText(m *yaml.Node, key string) string {
	if v := metaField(m, key); v != nil {
		return v.Value
	}
	return ""
}

// RefOf is ref of an item's metadata.
func RefOf(meta yaml.ResourceMeta) (*fn.ResourceRef, *fn.File) {
	r := &fn.ResourceRef{APIVersion: meta.APIVersion, Kind: meta.Kind, Name: meta.Name, Namespace: meta.Namespace}
	path, index := fileAnnotations(meta.Annotations)
	if path == "" {
		if origin := originPath(meta.Annotations[originAnnotation]); origin != "" {
			return r, &fn.File{Path: origin}
		}
		return r, nil
	}
	i, _ := strconv.Atoi(index)
	return r, &fn.File{Path: path, Index: i}
}

// fileAnnotations are the path and index annotations of the orchestrator,
// or their legacy names, as kioutil.GetFileAnnotations reads them.
func fileAnnotations(a map[string]string) (path, index string) {
	path, found := a[kioutil.PathAnnotation]
	if !found {
		path = a[kioutil.LegacyPathAnnotation]
	}
	index, found = a[kioutil.IndexAnnotation]
	if !found {
		index = a[kioutil.LegacyIndexAnnotation]
	}
	return path, index
}

// originAnnotation is where kustomize records the file a resource came from.
const originAnnotation = "config.kubernetes.io/origin"

// originPath is the local file of a kustomize origin annotation, or empty
// for a resource from a remote repository or made by a generator.
func originPath(origin string) string {
	if origin == "" {
		return ""
	}
	var o struct {
		Path string `yaml:"path"`
		Repo string `yaml:"repo"`
	}
	if err := yaml.Unmarshal([]byte(origin), &o); err != nil || o.Repo != "" {
		return ""
	}
	return o.Path
}

// Results are the item's results, built from its log (see
// report.Log.Results). In validate mode the changes are errors: the
// workload is not as the config asks.
func (r Result) Results(item *yaml.RNode, action config.Action) fn.Results {
	resRef, file := Ref(item)
	return r.Log.Results(resRef, file, action == config.ActionValidate)
}
