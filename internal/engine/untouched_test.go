package engine

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestUntouchedAndMayRead(t *testing.T) {
	cfg, err := yaml.Parse("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  podSpecPaths:\n  - {group: example.com, kind: Widget, path: spec/pod}\n")
	if err != nil {
		t.Fatal(err)
	}
	e := Start(cfg)
	if err := e.ConfigErr(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		apiVersion, kind   string
		untouched, mayRead bool
	}{
		{"v1", "ConfigMap", true, false},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", true, false},
		{"apps/v1", "Deployment", false, true},
		{"example.com/v1", "Deployment", true, true}, // not the built-in group
		{"example.com/v1", "Widget", false, true},
		{"v1", "Service", false, true},
		{"networking.k8s.io/v1", "Ingress", false, true},
		{"cloud.google.com/v1", "BackendConfig", false, true},
		{"v1", "Namespace", false, true},
		{"v1", "List", false, true},
		{"apps/v1", "DeploymentList", false, true},
	} {
		if got := e.Untouched(c.apiVersion, c.kind); got != c.untouched {
			t.Errorf("Untouched(%q, %q) = %v, want %v", c.apiVersion, c.kind, got, c.untouched)
		}
		if got := e.MayRead(c.kind); got != c.mayRead {
			t.Errorf("MayRead(%q) = %v, want %v", c.kind, got, c.mayRead)
		}
	}
}
