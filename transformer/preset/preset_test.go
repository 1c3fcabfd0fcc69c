package preset_test

import (
	"slices"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/preset"
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
	var meshes []string
	for _, p := range preset.Meshes() {
		meshes = append(meshes, p.Name)
	}
	if want := []string{preset.Istio, preset.Linkerd, preset.CloudSQLProxy}; !slices.Equal(meshes, want) {
		t.Errorf("Meshes() = %v, want %v (start order)", meshes, want)
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
