package annotate_test

import (
	"fmt"
	"maps"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/annotate"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// TestOrderedIsWhatTheFilterWrites holds Ordered, which the engine reads
// the sidecars' exits from before anything is written, to the annotations
// the filter writes in ordered mode: for every catalog entry whose
// injector reads annotations, on pod templates with none, with the
// entry's own annotations at other values, and with values that are not
// what they should be, every annotation but the native switch (which
// holds no exit) must be the same.
func TestOrderedIsWhatTheFilterWrites(t *testing.T) {
	checked := 0
	for _, p := range preset.All(nil) {
		if !p.Annotates() || p.Injector.Annotations == nil {
			continue
		}
		a := p.Injector.Annotations
		for _, wait := range []int64{0, 1, 30, 90} {
			for _, own := range ownAnnotations(a) {
				m := annotate.Mesh{Preset: p, WaitBeforeExit: wait}
				meta := yaml.NewMapRNode(nil)
				if len(own) > 0 {
					if err := meta.PipeE(yaml.SetField(yaml.AnnotationsField, yaml.NewMapRNode(&own))); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := (annotate.Filter{Meshes: []annotate.Mesh{m}, Log: &report.Log{}}).Filter([]*yaml.RNode{meta}); err != nil {
					t.Fatal(err)
				}
				written := map[string]string{}
				if f := meta.Field(yaml.AnnotationsField); f != nil {
					if err := f.Value.YNode().Decode(&written); err != nil {
						t.Fatal(err)
					}
				}
				before := maps.Clone(own)
				predicted := annotate.Ordered(own, []annotate.Mesh{m})
				if !maps.Equal(before, own) {
					t.Errorf("Ordered changed the annotations it was given: %v, was %v", own, before)
				}
				for _, k := range keys(written, predicted) {
					if a.Native != nil && k == a.Native.Key {
						continue
					}
					if written[k] != predicted[k] {
						t.Errorf("%s, wait %d, own %v: annotation %s: the filter writes %q, Ordered says %q", p.Name, wait, own, k, written[k], predicted[k])
					}
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d cases checked: the catalog's annotating entries were not found", checked)
	}
}

// ownAnnotations are pod templates' annotations to start from: none, the
// entry's own keys at other values, and values that are not mappings.
func ownAnnotations(a *preset.Annotations) []map[string]string {
	other, bad := map[string]string{"team": "web"}, map[string]string{}
	for _, kv := range a.Ordered {
		other[kv.Key] = "x"
		if kv.Field != "" {
			other[kv.Key] = fmt.Sprintf(`{"%s":"x","concurrency":2}`, kv.Field)
		}
		bad[kv.Key] = "[1, 2]"
	}
	if a.ExitDelay != nil {
		other[a.ExitDelay.Key] = "5"
		if a.ExitDelay.Field != "" {
			other[a.ExitDelay.Key] = fmt.Sprintf("%s: 5s\n", a.ExitDelay.Field)
		}
		bad[a.ExitDelay.Key] = "[1, 2]"
	}
	return []map[string]string{nil, other, bad}
}

func keys(maps ...map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
