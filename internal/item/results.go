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
func Ref(item *yaml.RNode) (*fn.ResourceRef, *fn.File) {
	return RefOf(tree.Meta(item, fileKeys...))
}

// fileKeys are the annotations RefOf reads.
var fileKeys = []string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, originAnnotation}

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
