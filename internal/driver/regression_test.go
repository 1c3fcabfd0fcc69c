package driver_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestEdgeCases covers inputs that once went wrong, through the whole
// transformer: each output must keep the invariants and contain what is listed.
func TestEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name, config, pod string
		want              []string
	}{
		{
			name:   "raised grace period keeps its comment",
			config: "spec: {sidecars: [{preset: linkerd, waitBeforeExit: 40s}]}",
			pod:    "  terminationGracePeriodSeconds: 20 # agreed with the SRE team\n  containers: [{name: app}, {name: linkerd-proxy}]\n",
			want:   []string{"terminationGracePeriodSeconds: 50 # agreed with the SRE team"},
		},
		{
			name:   "null initContainers is an empty list",
			config: "spec: {sidecars: [{preset: linkerd}]}",
			pod:    "  initContainers:\n  containers: [{name: app}, {name: linkerd-proxy}]\n",
			want:   []string{"name: linkerd-proxy"},
		},
		{
			name:   "null initContainers in native mode",
			config: "spec: {mode: native, sidecars: [{preset: linkerd}]}",
			pod:    "  initContainers: ~\n  containers: [{name: app}, {name: linkerd-proxy}]\n",
			want:   []string{"- {name: linkerd-proxy, restartPolicy: Always"},
		},
		{
			name:   "wait command arguments that YAML 1.1 reads as booleans stay strings",
			config: "spec: {sidecars: [{name: agent, waitForReady: {command: [/check, --timeout=5s, \"on\", \"no\"]}}]}",
			pod:    "  containers: [{name: app}, {name: agent}]\n",
			want:   []string{`"on", "no"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + tc.pod
			cfg := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\n" + tc.config + "\n"
			rl, err := krmtest.ResourceList([]byte(items), []byte(cfg))
			if err != nil {
				t.Fatal(err)
			}
			out, err := run(t, rl)
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, e := range krmtest.Check(rl, out) {
				t.Error(e)
			}
			checkIdempotent(t, out)
		})
	}
}

// TestNegativeSecondsOverflow: a huge negative number of seconds is an error,
// not a wrapped-around sleep.
func TestNegativeSecondsOverflow(t *testing.T) {
	_, err := config.LoadBytes([]byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {sidecars: [{preset: linkerd, waitBeforeExit: \"-9223372037\"}]}\n"))
	if err == nil || !strings.Contains(err.Error(), "spec.sidecars[0].waitBeforeExit") || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("error = %v, want a negative waitBeforeExit error", err)
	}
	items, _ := kio.FromBytes([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a}]}\n"))
	if _, err := engine.New(krmtest.Config(t, "")).Filter(items); err != nil {
		t.Fatal(err)
	}
}

// TestNullPodTemplateMetadata: a pod template whose metadata is null
// ("metadata:" with nothing under it) gets the mesh's annotations in a
// mapping there, on both paths, instead of a panic.
func TestNullPodTemplateMetadata(t *testing.T) {
	items := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata:\n    spec:\n      containers:\n      - name: web\n        image: shop/web:1.4.2\n"
	rl, err := krmtest.ResourceList([]byte(items), []byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {sidecars: [{preset: linkerd}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(t, rl)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if want := "    template:\n      metadata:\n        annotations:\n          config.linkerd.io/proxy-await: enabled\n"; !strings.Contains(string(out), want) {
		t.Errorf("output lacks\n%s\nin\n%s", want, out)
	}
	for _, e := range krmtest.Check(rl, out) {
		t.Error(e)
	}
	checkIdempotent(t, out)
	if _, problem := compareRuns(rl); problem != "" {
		t.Error(problem)
	}
}
