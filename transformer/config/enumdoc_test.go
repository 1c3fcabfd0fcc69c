package config

import (
	"strings"
	"testing"
)

// TestValuesDoc: the schema describes each field with a fixed set of
// values by all of them and by the default Default writes, per preset for
// a sidecar's field.
func TestValuesDoc(t *testing.T) {
	sidecar := configShape.byName["spec"].shape.byName["sidecars"].shape.elem
	spec := configShape.byName["spec"].shape
	var annotating []string
	for _, name := range builtinPresetNames() {
		if p, _ := builtinPreset(name); p.annotates() {
			annotating = append(annotating, name)
		}
	}
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{spec.byName["mode"].doc, []string{"One of: ordered, native, auto; default ordered."}},
		{spec.byName["terminationGracePeriod"].shape.byName["policy"].doc, []string{"One of: raise, warn, keep; default raise."}},
		{sidecar.byName["ifAbsent"].doc, []string{"default annotate for " + strings.Join(annotating, ", ") + "; skip for the others."}},
		{sidecar.byName["preset"].doc, append(builtinPresetNames(), "an entry of the config's own; default none.")},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.doc, w) {
				t.Errorf("description %q does not say %q", tc.doc, w)
			}
		}
	}
	if len(annotating) < 3 {
		t.Errorf("presets with annotations: %v; want the catalog's (linkerd, istio and the generic dialect's)", annotating)
	}
}
