package annotate

import (
	"reflect"
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// TestEveryDialectWritten: a preset whose injector reads annotations has
// its dialect in dialects.yaml, and every dialect's rules are ones the
// writer reads.
func TestEveryDialectWritten(t *testing.T) {
	for _, name := range preset.Names() {
		p, _ := preset.Lookup(name)
		if !p.Annotates() {
			continue
		}
		if _, ok := dialects()[p.Injector.Dialect]; !ok {
			t.Errorf("preset %s: dialects.yaml has no dialect %q", name, p.Injector.Dialect)
		}
	}
	for name, d := range dialects() {
		if !slices.Contains([]string{exitWrites, exitRemove, exitLeave}, d.ExitInNative) || d.Why == "" || (d.Duration != "" && d.Duration != "seconds") {
			t.Errorf("dialect %s: exitInNative %q, duration %q, why %q: exitInNative is write, remove or leave, duration seconds or none, and why is said", name, d.ExitInNative, d.Duration, d.Why)
		}
	}
}

func TestNativeStatus(t *testing.T) {
	istio, _ := preset.Lookup(preset.Istio)
	f, ok := NativeStatus(istio, "istio-proxy", nil)
	want := RecordStatus{Annotation: "sidecar.istio.io/status", Proxy: "istio-proxy", Init: []string{"istio-init", "istio-validation"}}
	if got, _ := f.(RecordStatus); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("istio: %#v, %v; want %#v, from the catalog's injector.record and initContainers", f, ok, want)
	}
	for _, name := range []string{preset.Linkerd, preset.CloudSQLProxy, preset.None, "unknown"} {
		p, _ := preset.Lookup(name)
		if _, ok := NativeStatus(p, "proxy", nil); ok {
			t.Errorf("%s: a status filter", name)
		}
	}
}
