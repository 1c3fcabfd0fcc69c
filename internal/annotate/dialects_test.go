package annotate

import (
	"reflect"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// TestEveryDialectWritten: a preset whose injector reads annotations has
// a writer for its dialect here.
func TestEveryDialectWritten(t *testing.T) {
	for _, name := range preset.Names() {
		p, _ := preset.Lookup(name)
		if !p.Annotates() {
			continue
		}
		if d, ok := dialects[p.Injector.Dialect]; !ok || d.set == nil {
			t.Errorf("preset %s: no writer for dialect %q", name, p.Injector.Dialect)
		}
	}
}

func TestNativeStatus(t *testing.T) {
	istio, _ := preset.Lookup(preset.Istio)
	f, ok := NativeStatus(istio, "istio-proxy", nil)
	want := IstioNativeStatus{Annotation: "sidecar.istio.io/status", Proxy: "istio-proxy", Init: []string{"istio-init", "istio-validation"}}
	if got, _ := f.(IstioNativeStatus); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("istio: %#v, %v; want %#v, from the catalog's injector.record and initContainers", f, ok, want)
	}
	for _, name := range []string{preset.Linkerd, preset.CloudSQLProxy, preset.None, "unknown"} {
		p, _ := preset.Lookup(name)
		if _, ok := NativeStatus(p, "proxy", nil); ok {
			t.Errorf("%s: a status filter", name)
		}
	}
}
