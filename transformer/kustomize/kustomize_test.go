package kustomize_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/kustomize"
)

const resources = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        image: web:1
      - name: linkerd-proxy
        image: proxy:1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
`

func resMap(t *testing.T, text string) resmap.ResMap {
	t.Helper()
	f := resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory())
	m, err := f.NewResMapFromBytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTransform(t *testing.T) {
	cfg, err := config.LoadBytes([]byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd, waitBeforeExit: 25s}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := resMap(t, resources)
	before := m.Resources()[0]
	if err := (kustomize.Transformer{Config: cfg}).Transform(m); err != nil {
		t.Fatal(err)
	}
	if m.Resources()[0] != before {
		t.Error("the Deployment's resource was replaced, not edited in place")
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	proxy, app := strings.Index(got, "name: linkerd-proxy"), strings.Index(got, "name: app")
	if proxy < 0 || app < 0 || proxy > app {
		t.Errorf("linkerd-proxy is not first:\n%s", got)
	}
	for _, want := range []string{"linkerd-await", "seconds: 25", "terminationGracePeriodSeconds: 35", "kind: Service"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestTransformError(t *testing.T) {
	cfg, err := config.LoadBytes([]byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: istio, ifAbsent: fail}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := resMap(t, resources)
	before, _ := m.AsYaml()
	err = (kustomize.Transformer{Config: cfg}).Transform(m)
	if err == nil || !strings.Contains(err.Error(), "sidecar-lifecycle: Deployment web spec.template.spec.containers: sidecar container istio-proxy is not in the pod") {
		t.Fatalf("error = %v", err)
	}
	after, _ := m.AsYaml()
	if string(before) != string(after) {
		t.Error("a failed transform changed the resources")
	}
}

// TestTransformErrorIsOneLine: names from the input are escaped in the
// error, which a program embedding kustomize prints.
func TestTransformErrorIsOneLine(t *testing.T) {
	cfg, err := config.LoadBytes([]byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: istio, ifAbsent: fail}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := resMap(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: \"web\\n::error::x\\e[31m\"}\nspec: {containers: [{name: app}]}\n")
	err = (kustomize.Transformer{Config: cfg}).Transform(m)
	const want = `sidecar-lifecycle: Pod "web\n::error::x\x1b[31m" spec.containers: sidecar container istio-proxy is not in the pod`
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.ContainsAny(err.Error(), "\n\x1b") {
		t.Errorf("error = %q, want it to start with %q", err, want)
	}
}
