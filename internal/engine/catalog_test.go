package engine

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestAdmittedUnordered: with no sidecars listed, a sidecar its injector
// adds that the function cannot ask to order in the mode is a warning naming
// what recognised it (Dapr writes no hold annotation); in native mode a
// native sidecar its injector writes without a startupProbe is a warning
// (Dapr's); one the function can ask for is annotated for (Kuma's
// wait-for-dataplane-ready), and the info result says so.
func TestAdmittedUnordered(t *testing.T) {
	for _, tc := range []struct{ file, want, also, severity, mode, namespace string }{
		{"../driver/testdata/catalog/dapr/hellodapr-service.yaml", `daprd (dapr), recognised by annotation dapr.io/enabled: "true" on the pod template (added at admission): the function cannot ask its injector to order it`, "", "warning", "", ""},
		{"../driver/testdata/catalog/dapr/hellodapr-service.yaml", `daprd (dapr): its injector writes the native sidecar without a startupProbe`, "", "warning", "native", ""},
		// Kuma's webhooks see the pod only in a Namespace with the label:
		// the vendor's test admits it in one labelled disabled.
		{"../driver/testdata/catalog/kuma/inject.10.input.yaml", `recognised kuma-sidecar (kuma) by label kuma.io/sidecar-injection: "enabled" on the pod template (added at admission); `,
			`set annotation kuma.io/wait-for-dataplane-ready: "true"`, "info", "", "kuma.io/sidecar-injection: disabled"},
	} {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		items, err := (&kio.ByteReader{Reader: f, OmitReaderAnnotations: true}).Read()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if tc.namespace != "" {
			for _, item := range items {
				if err := item.SetNamespace("mesh"); err != nil {
					t.Fatal(err)
				}
			}
			items = append(items, krmtest.Parse(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: mesh, labels: {"+tc.namespace+"}}\n"))
		}
		cfg := ""
		if tc.mode != "" {
			cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {mode: " + tc.mode + "}\n"
		}
		_, results := New(krmtest.Config(t, cfg)).Start().Transform(items)
		found := false
		for _, r := range results {
			found = found || (string(r.Severity) == tc.severity && strings.HasPrefix(r.Message, tc.want) && strings.Contains(r.Message, tc.also))
		}
		if !found {
			t.Errorf("%s: no %s starting %q in %v", tc.file, tc.severity, tc.want, results)
		}
	}
}
