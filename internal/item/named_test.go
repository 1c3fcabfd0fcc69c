package item

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestNamedSidecarAsTheInjectorDecides: a sidecar the config names with
// a preset is taken as injected at admission only where its injector
// would inject it: Dapr's daprd, whose switch is the pod's alone, not on
// a pod without it; Linkerd's proxy, whose switch may be on an unknown
// Namespace, as the config says, but not on a hostNetwork pod. Vault's
// agent, which the function cannot ask to order, is said where its
// switch adds it.
func TestNamedSidecarAsTheInjectorDecides(t *testing.T) {
	cfg, err := config.LoadBytes([]byte(`apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
spec:
  kubernetesVersion: "1.34"
  sidecars:
  - name: vault-agent
    preset: vault-agent
  - name: daprd
    preset: dapr
  - name: linkerd-proxy
    preset: linkerd
    ifAbsent: annotate
`))
	if err != nil {
		t.Fatal(err)
	}
	ed := New(cfg)
	pod := func(annotations, spec string) *yaml.RNode {
		return yaml.MustParse(fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: shop\n  annotations: {%s}\nspec:\n  %s\n  containers:\n  - name: app\n    image: app:1\n", annotations, spec))
	}
	for _, c := range []struct {
		name, annotations, spec string
		injected                []string
		said                    string
	}{
		{"no switch", "", "", []string{"linkerd"}, ""},
		{"dapr", `dapr.io/enabled: "true"`, "", []string{"dapr", "linkerd"}, ""},
		{"hostNetwork", "", "hostNetwork: true", nil, ""},
		{"vault", `vault.hashicorp.com/agent-inject: "true"`, "", []string{"linkerd"}, "vault-agent (vault-agent), recognised by annotation vault.hashicorp.com/agent-inject"},
	} {
		r := ed.edit1(pod(c.annotations, c.spec))
		got := slices.Clone(r.injected)
		slices.Sort(got)
		if !slices.Equal(got, c.injected) {
			t.Errorf("%s: injected %v, want %v", c.name, got, c.injected)
		}
		var warnings []string
		for _, w := range r.Log.Warnings {
			warnings = append(warnings, w.Detail)
		}
		text := strings.Join(warnings, "\n")
		if c.said != "" && !strings.Contains(text, c.said) || c.said == "" && strings.Contains(text, "added at admission") {
			t.Errorf("%s: warnings\n%s\nwant %q", c.name, text, c.said)
		}
	}
}
