package driver_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// recognitionStream is a YAML workload with the Cloud SQL proxy under
// another container name, then a List as kubectl get -o json writes it,
// whose Namespace switches Istio's injection on for both workloads.
const recognitionStream = `# Source: billing/templates/orders.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: orders, namespace: shop}
spec:
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      containers:
      - {name: orders, image: "orders:1"}
      - name: csql-shop-orders # the operator's name for the proxy
        image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.27.0
        args: [--health-check, "p:r:i"]
---
{
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "web:1"}]}
                }
            }
        },
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "shop", "labels": {"istio-injection": "enabled"}}
        }
    ],
    "metadata": {"resourceVersion": ""}
}
`

// TestRecognitionOnEveryPath: with no config, the whole list, the streamed
// ResourceList and the plain stream (--config) recognise the same sidecars
// in a YAML document and in the entries of a JSON List: the proxy by its
// image, Istio by a Namespace that comes after its workloads. The plain
// stream writes the List back as JSON and keeps the comments and the
// separator; a second run changes nothing.
func TestRecognitionOnEveryPath(t *testing.T) {
	rl, err := krmtest.ResourceList([]byte(recognitionStream), nil)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	var whole bytes.Buffer
	if _, err := driver.RunWholeList(bytes.NewReader(rl), &whole); err != nil {
		t.Fatal(err)
	}
	outputs["whole list"] = whole.String()
	var streamed bytes.Buffer
	if taken, why, _, err := driver.RunStreamOnly(bytes.NewReader(rl), &streamed); !taken || err != nil {
		t.Fatalf("streamed: taken %v (%s), %v", taken, why, err)
	}
	outputs["streamed"] = streamed.String()
	plain, _, err := runPlain(t, "", recognitionStream)
	if err != nil && !errors.Is(err, report.ErrResults) {
		t.Fatal(err)
	}
	outputs["plain stream"] = plain
	for path, out := range outputs {
		proxy, app := strings.Index(out, "- name: csql-shop-orders"), strings.Index(out, `"orders:1"`)
		if proxy < 0 || strings.Count(out, `holdApplicationUntilProxyStarts`) < 2 || !strings.Contains(out, "--http-port") {
			t.Errorf("%s: the proxy or the Istio annotation is missing:\n%s", path, out)
		}
		if app < proxy {
			t.Errorf("%s: csql-shop-orders was not moved first:\n%s", path, out)
		}
		if !strings.Contains(out, "csql-shop-orders (cloud-sql-proxy) by its image") && path != "plain stream" {
			t.Errorf("%s: no result says what recognised the proxy:\n%s", path, out)
		}
	}
	for _, kept := range []string{"# Source: billing/templates/orders.yaml\n", "# the operator's name for the proxy\n", "\n---\n{\n", `"holdApplicationUntilProxyStarts`} {
		if !strings.Contains(plain, kept) {
			t.Errorf("the plain stream lost %q:\n%s", kept, plain)
		}
	}
	if again, _, err := runPlain(t, "", plain); err != nil || again != plain {
		t.Errorf("a second run changed the stream (err %v):\n%s", err, krmtest.Diff(plain, again))
	}
}
