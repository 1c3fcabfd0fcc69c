package examples_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestKustomizeLargeWorkload renders, with kustomize and the function as an
// exec transformer, a Deployment of over 256 KiB whose application has
// 3,400 environment variables and no comments, as a Helm chart or a
// generator writes one: from that size the streaming path parses a
// workload without the fields of containers that are not sidecars and puts
// their text back after the edit (internal/yamlio/elide). The proxy must come
// first with its hooks, the application's environment come out as it went
// in, and a second render change nothing.
func TestKustomizeLargeWorkload(t *testing.T) {
	kustomize := kustomizeTool(t)
	dir := workDir(t, "kustomize-large")
	copyDir(t, "kustomize-exec", dir)
	var big strings.Builder
	big.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n" +
		"      - name: app\n        image: ghcr.io/example/app:1\n        resources:\n          requests:\n            cpu: 100m\n        env:\n")
	for i := range 3400 {
		fmt.Fprintf(&big, "        - name: SETTING_%d\n          value: upstream-%d.catalog.svc.cluster.local\n", i, i)
	}
	big.WriteString("      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:edge-25.4.1\n")
	if big.Len() < 256<<10 {
		t.Fatalf("the Deployment is %d bytes, under the 256 KiB from which workloads are elided", big.Len())
	}
	writeFiles(t, dir, map[string]string{
		"kustomization.yaml": "resources:\n- big.yaml\ntransformers:\n- sidecar-lifecycle.yaml\n",
		"big.yaml":           big.String(),
	})

	out := mustRun(t, dir, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", ".")
	items := parseItems(t, out)
	checkSidecarFirst(t, items, "Deployment", "big", "linkerd-proxy", true)
	checkValidItems(t, items)
	app := func(item *yaml.RNode, field string) string {
		t.Helper()
		n, err := item.Pipe(yaml.Lookup("spec", "template", "spec", "containers", "[name=app]", field))
		if err != nil || n == nil {
			t.Fatalf("no %s on the app container: %v", field, err)
		}
		return n.MustString()
	}
	in := parseItems(t, big.String())[0]
	for _, field := range []string{"env", "resources"} {
		if got, want := app(items[0], field), app(in, field); got != want {
			t.Errorf("the app's %s changed (- input, + output):\n%s", field, diff(want, got))
		}
	}
	if !strings.Contains(app(items[0], "lifecycle"), "sleep") {
		t.Errorf("the app got no preStop sleep for its drain delay:\n%s", app(items[0], "lifecycle"))
	}
	renderAgain(t, kustomize, dir, "kustomize-large-again", out)
}
