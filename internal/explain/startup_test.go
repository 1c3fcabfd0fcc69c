package explain_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// alloyDB is a Deployment with the AlloyDB Auth Proxy as its vendor's
// example writes it (no --health-check), with a postStart wait.
const alloyDB = `apiVersion: apps/v1
kind: Deployment
metadata: {name: orders, namespace: shop}
spec:
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      containers:
      - name: alloydb-auth-proxy
        image: gcr.io/alloydb-connectors/alloydb-auth-proxy:1.15.2
        args: ["--structured-logs", "--port=5432", "projects/p/locations/l/clusters/c/instances/i"]%s
      - {name: orders, image: ghcr.io/example/orders:1.4.0}
`

const waitHook = `
        lifecycle:
          postStart:
            exec:
              command: [/alloydb-auth-proxy, wait, --max=30s, --http-port, "9090"]`

func config(sidecar string) string {
	return "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: x}\nspec:\n  kubernetesVersion: \"1.31\"\n  sidecars: [" + sidecar + "]\n"
}

// TestStartupThatCannotPass: explain shows the wait the function writes
// for the AlloyDB Auth Proxy, which passes once its endpoint is switched
// on; a wait left in the input that cannot pass (healthCheck: require,
// so the function leaves the workload as it is) breaks the start-up
// order, and explain does not say the budget holds.
func TestStartupThatCannotPass(t *testing.T) {
	for _, tc := range []struct {
		name, items, sidecar string
		breaks               bool
	}{
		{"written by the function", strings.Replace(alloyDB, "%s", "", 1), "{preset: alloydb-auth-proxy}", false},
		{"left in the input", strings.Replace(alloyDB, "%s", waitHook, 1), "{preset: alloydb-auth-proxy, healthCheck: require}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rl, err := krmtest.ResourceList([]byte(tc.items), []byte(config(tc.sidecar)))
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []explain.Format{explain.Text, explain.Markdown} {
				out := render(t, rl, format)
				if !strings.Contains(out, `"/alloydb-auth-proxy wait --max=30s --http-port 9090" holds the next container`) {
					t.Errorf("%s: no wait in the start-up order:\n%s", format, out)
				}
				holds := strings.Contains(strings.ToLower(out), "the termination budget holds")
				breaks := strings.Contains(out, `alloydb-auth-proxy: its postStart "/alloydb-auth-proxy wait --max=30s --http-port 9090" cannot pass: the health endpoints are off`)
				if breaks != tc.breaks || holds == tc.breaks {
					t.Errorf("%s: start-up breaks %v, budget holds %v; want %v and %v:\n%s", format, breaks, holds, tc.breaks, !tc.breaks, out)
				}
			}
		})
	}
}
