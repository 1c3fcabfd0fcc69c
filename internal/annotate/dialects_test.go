package annotate

import (
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
	if f, ok := NativeStatus(istio, "istio-proxy", nil); !ok || f.(IstioNativeStatus).Proxy != "istio-proxy" {
		t.Errorf("istio: %#v, %v", f, ok)
	}
	for _, name := range []string{preset.Linkerd, preset.CloudSQLProxy, preset.None, "unknown"} {
		p, _ := preset.Lookup(name)
		if _, ok := NativeStatus(p, "proxy", nil); ok {
			t.Errorf("%s: a status filter", name)
		}
	}
}
