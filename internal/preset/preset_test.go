package preset_test

import (
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

func TestPresets(t *testing.T) {
	names := preset.Names()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("Names() = %v, want sorted and unique", names)
	}
	for _, n := range names {
		if p, ok := preset.Lookup(n); !ok || p.Name != n {
			t.Errorf("Lookup(%q) = %q, %v", n, p.Name, ok)
		}
	}
	if _, ok := preset.Lookup("unknown"); ok {
		t.Error(`Lookup("unknown") found a preset`)
	}
	var order []string
	for _, p := range preset.Catalog() {
		order = append(order, p.Name)
	}
	// The meshes first, which carry the other sidecars' traffic, each part by name.
	want := []string{"consul", "istio", "kuma", "linkerd", "alloydb-auth-proxy", "cloud-sql-proxy", "dapr", "envoy", "fluent-bit",
		"gcs-fuse", "oauth2-proxy", "opentelemetry-collector", "vault-agent"}
	if !slices.Equal(order, want) {
		t.Errorf("Catalog() = %v, want %v (start order)", order, want)
	}
}

func TestLookupCopies(t *testing.T) {
	p, _ := preset.Lookup(preset.Linkerd)
	p.WaitCommand[0] = "changed"
	p.StartupProbe.PeriodSeconds = 99
	if q, _ := preset.Lookup(preset.Linkerd); q.WaitCommand[0] == "changed" || q.StartupProbe.PeriodSeconds == 99 {
		t.Error("a change to a looked-up preset reached the next lookup")
	}
}
