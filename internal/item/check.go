package item

import (
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podcheck"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// checkWorkload checks the fields of the workload the function reads or
// writes before anything is read for the edit: its metadata and skip
// annotation and, unless it is skipped, its pod spec. It reports whether the
// workload is skipped, and every problem found.
func checkWorkload(w *workload.Workload, meta *podMeta, namespaceSkipped bool) (bool, report.Findings) {
	if errs := podcheck.Metadata(w.Node, w.MetadataPaths()...); len(errs) > 0 {
		return false, errs.Findings()
	}
	if errs := unknownAnnotations(w); len(errs) > 0 {
		return false, errs.Findings()
	}
	skip, err := boolAnnotation(meta, config.AnnotationSkip)
	if err != nil {
		return false, asFindings(err)
	}
	if skip || namespaceSkipped {
		return true, nil
	}
	return false, podcheck.PodSpec(w.Node, w.SpecPath).Findings()
}

// asFindings are errors as findings: each the finding it is, if it is one (see
// report.Log.FailWith).
func asFindings(errors ...error) report.Findings {
	var log report.Log
	for _, err := range errors {
		log.FailWith(err)
	}
	return log.Errors
}

// annotations are the workload annotations of the function, in the order
// messages list them.
var annotations = []string{config.AnnotationSkip, config.AnnotationMode, config.AnnotationWaitBeforeExit, config.AnnotationAppDrainDelay, config.AnnotationConfigHash}

// unknownAnnotations reports annotations with the function's prefix that it
// does not know, such as a misspelt skip, which would otherwise do nothing.
func unknownAnnotations(w *workload.Workload) podcheck.Errors {
	known := map[string]bool{}
	for _, a := range annotations {
		known[a] = true
	}
	var errs podcheck.Errors
	for i, meta := range w.MetadataPaths() {
		n, err := w.MetadataAt(i, yaml.AnnotationsField)
		if err != nil || n == nil || n.YNode().Kind != yaml.MappingNode {
			continue
		}
		content := n.Content()
		for i := 0; i+1 < len(content); i += 2 {
			if key := content[i]; strings.HasPrefix(key.Value, config.AnnotationPrefix) && !known[key.Value] {
				errs = append(errs, podcheck.Error{Path: annotationPath(meta, key.Value), Found: "an annotation the function does not know",
					Want: "one of " + strings.Join(annotations, ", ")})
			}
		}
	}
	return errs
}

// namespaceErrors checks the skip annotation of a Namespace item.
func namespaceErrors(item *yaml.RNode) report.Findings {
	if !IsNamespace(item) {
		return nil
	}
	if v, ok := item.GetAnnotations()[config.AnnotationSkip]; ok && v != "true" && v != "false" {
		return asFindings(annotationError([]string{yaml.MetadataField}, config.AnnotationSkip, v, `"true" or "false"`))
	}
	return nil
}

// IsNamespace reports whether the item is a Namespace.
func IsNamespace(item *yaml.RNode) bool {
	return item.GetKind() == "Namespace" && item.GetApiVersion() == "v1"
}

// boolAnnotation reads an annotation that is "true" or "false", as
// Kubernetes spells booleans; absent is false, and any other value an error
// naming where it was found.
func boolAnnotation(m *podMeta, key string) (bool, error) {
	v, meta, ok := m.AnnotationAt(key)
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
	return podcheck.Error{Path: annotationPath(meta, key), Found: "the string " + report.Quote(value), Want: want, Value: value}
}

// annotationPath is the path of an annotation in the metadata at meta.
func annotationPath(meta []string, key string) *field.Path {
	return podcheck.KeyPath(field.NewPath(meta[0], meta[1:]...).Child(yaml.AnnotationsField), key)
}

// fieldError is an error about a field of the workload, kept as the
// finding it is until the results are built.
type fieldError struct {
	kind report.Kind
	at   report.Field
	msg  string
}

func (e fieldError) Error() string { return e.msg }

// Finding is the error as a finding of its kind at its field.
func (e fieldError) Finding() report.Finding {
	return report.Finding{Kind: e.kind, Severity: fn.Error, Field: e.at, Detail: report.Clean(e.msg)}
}
