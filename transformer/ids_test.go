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
	changed := krmtest.Parse(t, `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    config.k8s.io/id: '1'
    internal.config.kubernetes.io/id: '1'
spec:
  containers:
  - name: web
    image: web
  - name: linkerd-proxy
    image: proxy
`)
	untouched := krmtest.Parse(t, `apiVersion: v1
kind: Pod
metadata:
  name: plain
  annotations:
    config.k8s.io/id: '2'
    internal.config.kubernetes.io/id: '2'
spec:
  containers:
  - name: web
    image: web
`)
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
