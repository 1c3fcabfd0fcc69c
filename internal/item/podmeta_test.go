package item

import (
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestPodMetaReadsAsTheWorkload: the metadata a plan reads once gives
// every injector switch of the catalog, and keys that are no plain word,
// the value and presence the workload's own reading gives, whatever shape
// the metadata has.
func TestPodMetaReadsAsTheWorkload(t *testing.T) {
	keys := []string{"a", "b", "-", "*", "0", "[0]", " a", "a b", "x/y", config.AnnotationSkip, config.AnnotationMode, config.AnnotationWaitBeforeExit}
	for _, p := range preset.Catalog() {
		if in := p.Injector; in != nil {
			for _, list := range [][]preset.Switch{in.Enabled, in.Disabled, in.OptOuts} {
				for _, s := range list {
					keys = append(keys, s.Key)
				}
			}
			keys = append(keys, in.Native.Keys...)
		}
	}
	template := func(meta string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, annotations: {a: own, b: own, linkerd.io/inject: disabled}}\nspec:\n  template:\n    metadata: " + meta + "\n    spec: {containers: [{name: app}]}\n"
	}
	for _, doc := range []string{
		template("{annotations: {a: t, linkerd.io/inject: enabled, sidecar.istio.io/inject: \"false\"}, labels: {sidecar.istio.io/inject: \"true\", a: l}}"),
		template("{annotations: {a: ~, b: {x: 1}, \"0\": zero, \"-\": dash, \"*\": star, \"[0]\": idx, \" a\": sp, \"a b\": ab}, labels: ~}"),
		template("{annotations: ~, labels: [a, b]}"),
		template("{annotations: [a, b], labels: {a: 1}}"),
		template("~"),
		template("[]"),
		template("{annotations: {a: 1, a: 2}}"),
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {a: pod, kuma.io/sidecar-injection: enabled}, labels: {a: l, kuma.io/sidecar-injection: enabled}}\nspec: {containers: [{name: app}]}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: x}\nspec: {containers: [{name: app}]}\n",
		"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec: {jobTemplate: {spec: {template: {metadata: {annotations: {a: job}}, spec: {containers: [{name: app}]}}}}}\n",
	} {
		w, ok := workload.Find(krmtest.Parse(t, doc), nil)
		if !ok {
			t.Fatalf("not a workload:\n%s", doc)
		}
		m := readPodMeta(w)
		for _, key := range keys {
			gotV, gotOK := m.Annotation(key)
			wantV, wantOK := w.Annotation(key)
			if gotV != wantV || gotOK != wantOK {
				t.Errorf("%s\nAnnotation(%q) = %q, %v; the workload reads %q, %v", doc, key, gotV, gotOK, wantV, wantOK)
			}
			gotV, gotMeta, gotOK := m.AnnotationAt(key)
			wantV, wantMeta, wantOK := w.AnnotationAt(key)
			if gotV != wantV || gotOK != wantOK || !slices.Equal(gotMeta, wantMeta) {
				t.Errorf("%s\nAnnotationAt(%q) = %q, %q, %v; the workload reads %q, %q, %v", doc, key, gotV, gotMeta, gotOK, wantV, wantMeta, wantOK)
			}
			gotV, gotOK = m.TemplateLabel(key)
			wantV, wantOK = w.TemplateLabel(key)
			if gotV != wantV || gotOK != wantOK {
				t.Errorf("%s\nTemplateLabel(%q) = %q, %v; the workload reads %q, %v", doc, key, gotV, gotOK, wantV, wantOK)
			}
		}
	}
}
