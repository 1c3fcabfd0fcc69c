package owner_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/owner"
)

func TestController(t *testing.T) {
	for _, c := range []struct {
		name, refs string
		want       string // "" for no controller
	}{
		{"a ReplicaSet's Pod", "- {apiVersion: apps/v1, kind: ReplicaSet, name: web-6c9f8, uid: u, controller: true, blockOwnerDeletion: true}", "ReplicaSet shop/web-6c9f8"},
		{"the controller among owners", "- {apiVersion: v1, kind: ConfigMap, name: c, uid: u}\n- {apiVersion: batch/v1, kind: Job, name: j, uid: v, controller: true}", "Job shop/j"},
		{"an owner that is not the controller", "- {apiVersion: apps/v1, kind: ReplicaSet, name: r, uid: u}", ""},
		{"controller false", "- {apiVersion: apps/v1, kind: ReplicaSet, name: r, controller: false}", ""},
		{"a static pod's mirror", "- {apiVersion: v1, kind: Node, name: node-1, controller: true}", "Node node-1"},
		{"no name", "- {apiVersion: apps/v1, kind: ReplicaSet, controller: true}", ""},
		{"not a list", "{kind: ReplicaSet, name: r, controller: true}", ""},
		{"entries not mappings", "[a, b]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			item := yaml.MustParse("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: shop\n  ownerReferences:\n" + indent(c.refs))
			ref, ok := owner.Controller(item)
			got := ""
			if ok {
				got = ref.String()
			}
			if got != c.want {
				t.Errorf("Controller = %q (%v), want %q", got, ok, c.want)
			}
		})
	}
	if _, ok := owner.Controller(yaml.MustParse("kind: Pod\nmetadata: {name: p}\n")); ok {
		t.Error("an object without ownerReferences has a controller")
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}

// TestKey: the same object whatever the version its name is spelt with.
func TestKey(t *testing.T) {
	a := owner.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	b := a
	b.APIVersion = "apps/v1beta2"
	if a.Key() != b.Key() {
		t.Error("the key depends on the version")
	}
	for _, other := range []owner.Ref{{APIVersion: "v1", Kind: "Deployment", Namespace: "shop", Name: "web"}, {APIVersion: "apps/v1", Kind: "Deployment", Namespace: "web", Name: "shop"}} {
		if other.Key() == a.Key() {
			t.Errorf("%+v has the key of %+v", other, a)
		}
	}
}
