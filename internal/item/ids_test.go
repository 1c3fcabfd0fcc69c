package item

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
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
	tr := New(cfg)
	got := tr.edit1(changed)
	if got.Outcome != OutcomeOrdered {
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
	kept := tr.edit1(untouched)
	for _, key := range []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} {
		if kept.Node.GetAnnotations()[key] != "2" {
			t.Errorf("unchanged item lost %s", key)
		}
	}
}

// TestDropOrchestratorIDsCannotFail: clearing the id annotations of a
// changed item cannot fail. kyaml fails to clear an annotation where the
// metadata or its annotations are set and are not a mapping, or are an
// alias; such an item fails its checks before it is edited, and an alias
// is expanded before the edit. Every other shape is edited and comes back
// without the ids.
func TestDropOrchestratorIDsCannotFail(t *testing.T) {
	const ids = "{config.k8s.io/id: '1', internal.config.kubernetes.io/id: '1'}"
	deployment := func(metadata string) string {
		return "apiVersion: apps/v1\nkind: Deployment\n" + metadata +
			"spec:\n  template:\n    spec:\n      containers:\n      - {name: web, image: web}\n      - {name: linkerd-proxy, image: proxy}\n"
	}
	cfg, err := config.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := New(cfg)
	for _, tc := range []struct {
		name, metadata string
		// kyamlFails: clearing an annotation of the input item fails.
		kyamlFails bool
		fails      string // the error, for an item that fails before the edit
	}{
		{"no metadata", "", false, ""},
		{"null metadata", "metadata: null\n", false, ""},
		{"no annotations", "metadata: {name: web}\n", false, ""},
		{"null annotations", "metadata: {name: web, annotations: ~}\n", false, ""},
		{"empty annotations", "metadata: {name: web, annotations: {}}\n", false, ""},
		{"ids", "metadata:\n  name: web\n  annotations: " + ids + "\n", false, ""},
		{"tagged", "metadata: !!map\n  name: web\n  annotations: !!map " + ids + "\n", false, ""},
		{"alias", "metadata:\n  name: web\n  labels: &a " + ids + "\n  annotations: *a\n", true, ""},
		{"merge key", "metadata:\n  name: web\n  labels: &a " + ids + "\n  annotations: {<<: *a}\n", false, ""},
		{"scalar metadata", "metadata: web\n", true, "metadata"},
		{"list metadata", "metadata: [web]\n", true, "metadata"},
		{"scalar annotations", "metadata: {name: web, annotations: web}\n", true, "metadata.annotations"},
		{"list annotations", "metadata: {name: web, annotations: [" + ids + "]}\n", true, "metadata.annotations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			item := krmtest.Parse(t, deployment(tc.metadata))
			res := tr.edit1(item)
			if _, err := item.Copy().Pipe(yaml.ClearAnnotation(kioutil.IdAnnotation)); (err != nil) != tc.kyamlFails {
				t.Errorf("clearing an annotation of the input: %v; want an error: %v", err, tc.kyamlFails)
			}
			if tc.fails != "" {
				if res.Outcome != OutcomeFailed || len(res.Log.Errors) == 0 || !strings.HasPrefix(res.Log.Errors[0].Detail, tc.fails+":") {
					t.Errorf("outcome %v, errors %q; want it failed at %s", res.Outcome, res.Log.Errors, tc.fails)
				}
				return
			}
			if res.Outcome != OutcomeOrdered {
				t.Fatalf("outcome %v, errors %q; want Ordered", res.Outcome, res.Log.Errors)
			}
			for _, key := range []string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation} {
				if _, err := res.Node.Pipe(yaml.ClearAnnotation(key)); err != nil {
					t.Errorf("clearing %s of the edited item: %v", key, err)
				}
				if v, ok := res.Node.GetAnnotations()[key]; ok {
					t.Errorf("the edited item keeps %s: %q", key, v)
				}
			}
		})
	}
}
