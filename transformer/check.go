package transformer

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podcheck"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/workload"
)

// checkWorkload checks the fields of the workload the function reads or
// writes before anything is read for the edit: its metadata and skip
// annotation and, unless it is skipped, its pod spec. It reports whether the
// workload is skipped, and every problem found.
func checkWorkload(w *workload.Workload, namespaceSkipped bool) (bool, []string) {
	if errs := podcheck.Metadata(w.Node, w.MetadataPaths()...); len(errs) > 0 {
		return false, errs.Strings()
	}
	skip, err := boolAnnotation(w, AnnotationSkip)
	if err != nil {
		return false, []string{err.Error()}
	}
	if skip || namespaceSkipped {
		return true, nil
	}
	return false, podcheck.PodSpec(w.Node, w.SpecPath).Strings()
}

// boolAnnotation reads an annotation that is "true" or "false", as
// Kubernetes spells booleans; absent is false, and any other value an error
// naming where it was found.
func boolAnnotation(w *workload.Workload, key string) (bool, error) {
	v, meta, ok := w.AnnotationAt(key)
	if !ok {
		return false, nil
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, annotationError(meta, key, v, `"true" or "false"`)
}

// annotationError is a podcheck.Error naming an annotation in the metadata at meta.
func annotationError(meta []string, key, value, want string) error {
	p := field.NewPath(meta[0], meta[1:]...).Child(yaml.AnnotationsField)
	return podcheck.Error{Path: podcheck.KeyPath(p, key), Found: podcheck.Quote(value), Want: want}
}
