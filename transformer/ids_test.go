package transformer_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestChangedItemsDropOrchestratorIDs: a changed item comes back without the
// id annotations kyaml's function runner would use to copy the input's field
// order onto it by list position; an unchanged item keeps them.
func TestChangedItemsDropOrchestratorIDs(t *testing.T) {
	pod := func(name, id, containers string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  annotations:\n" +
			"    config.k8s.io/id: '" + id + "'\n    internal.config.kubernetes.io/id: '" + id + "'\n" +
			"spec:\n  containers:\n" + containers
	}
	changed := krmtest.Parse(t, pod("web", "1", "  - {name: web, image: web}\n  - {name: linkerd-proxy, image: proxy}\n"))
	untouched := krmtest.Parse(t, pod("plain", "2", "  - {name: web, image: web}\n"))
	cfg, err := config.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := transformer.New(cfg)
	got := tr.Item(changed)
	if got.Outcome != transformer.Ordered {
		t.Fatalf("outcome %v, want Ordered", got.Outcome)
	}
	for _, key := range []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} {
		if v, ok := got.Node.GetAnnotations()[key]; ok {
			t.Errorf("changed item keeps %s: %q", key, v)
		}
		if _, ok := changed.GetAnnotations()[key]; !ok {
			t.Errorf("the input item lost %s: the edit must be on a copy", key)
		}
	}
	kept := tr.Item(untouched)
	for _, key := range []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} {
		if kept.Node.GetAnnotations()[key] != "2" {
			t.Errorf("unchanged item lost %s", key)
		}
	}
}
