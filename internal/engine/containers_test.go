package engine

import (
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// startWith starts an Engine with the config text, which must load.
func startWith(t *testing.T, config string) *Engine {
	t.Helper()
	var node *yaml.RNode
	if config != "" {
		var err error
		if node, err = yaml.Parse(config); err != nil {
			t.Fatal(err)
		}
	}
	e := Start(node)
	if err := e.ConfigErr(); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPodSpecPath(t *testing.T) {
	e := startWith(t, "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  podSpecPaths:\n  - {group: example.com, kind: Widget, path: /spec/pod/}\n")
	for _, c := range []struct {
		apiVersion, kind string
		want             []string
	}{
		{"v1", "Pod", []string{"spec"}},
		{"apps/v1", "Deployment", []string{"spec", "template", "spec"}},
		{"batch/v1", "CronJob", []string{"spec", "jobTemplate", "spec", "template", "spec"}},
		{"example.com/v1", "Widget", []string{"spec", "pod"}},
		{"example.com/v1", "Deployment", nil},
		{"v1", "ConfigMap", nil},
		{"v1", "List", nil},
		{"apps/v1", "DeploymentList", nil},
	} {
		got, ok := e.PodSpecPath(c.apiVersion, c.kind)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("PodSpecPath(%q, %q) = %q, %v; want %q", c.apiVersion, c.kind, got, ok, c.want)
		}
	}
	broken, err := yaml.Parse("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {mode: sideways}\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Start(broken).PodSpecPath("apps/v1", "Deployment"); ok {
		t.Errorf("a config that does not load: PodSpecPath = %q, want false", got)
	}
}

func TestMayBeSidecar(t *testing.T) {
	const named = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  sidecars:\n  - name: my-proxy\n"
	const preset = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  sidecars:\n  - preset: cloud-sql-proxy\n"
	const own = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  catalog:\n    entries:\n" +
		"    - name: acme-egress\n      title: Acme egress proxy\n      images:\n      - pattern: registry.acme.dev/platform/egress-proxy\n" +
		"      ready:\n        wait:\n          command: [/egress-proxy, wait, --timeout=60s]\n      image:\n        shell: true\n        sleep: [/bin/sleep]\n"
	for _, c := range []struct {
		config, name, image string
		want                bool
	}{
		{"", "app", "shop/app:1", false},
		{"", "linkerd-proxy", "shop/app:1", true},
		{"", "mesh", "cr.l5d.io/linkerd/proxy:stable-2.14.10", true},
		{"", "db", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0", true},
		{"", "linkerd-init", "", true},
		{named, "my-proxy", "shop/proxy:1", true},
		{named, "linkerd-proxy", "shop/app:1", false}, // the catalog is not active when sidecars are listed
		{named, "linkerd-init", "", true},             // a mesh's init container, which native mode moves
		{named, "app", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0", false},
		{preset, "db", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0", true},
		{preset, "cloud-sql-proxy", "", true},
		{preset, "app", "shop/app:1", false},
		{own, "egress", "registry.acme.dev/platform/egress-proxy:1.2", true},
		{own, "app", "registry.acme.dev/platform/app:1.2", false},
	} {
		if got := startWith(t, c.config).MayBeSidecar(c.name, c.image); got != c.want {
			t.Errorf("config %.60q: MayBeSidecar(%q, %q) = %v, want %v", c.config, c.name, c.image, got, c.want)
		}
	}
	broken, err := yaml.Parse("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {mode: sideways}\n")
	if err != nil {
		t.Fatal(err)
	}
	if !Start(broken).MayBeSidecar("app", "shop/app:1") {
		t.Error("a config that does not load: MayBeSidecar is false, want true")
	}
}
