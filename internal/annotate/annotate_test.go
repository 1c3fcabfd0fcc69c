package annotate_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/annotate"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// linkerd and istio are the presets of the meshes whose dialects are tested.
var (
	linkerd, _ = preset.Lookup(preset.Linkerd)
	istio, _   = preset.Lookup(preset.Istio)
)

func TestMergeProxyConfig(t *testing.T) {
	hold := [][2]any{{"holdApplicationUntilProxyStarts", true}}
	both := append(hold, [2]any{"terminationDrainDuration", "20s"})
	for _, tc := range []struct {
		name, current string
		keys          [][2]any
		want, err     string
	}{
		{"empty becomes JSON", "", both, `{"holdApplicationUntilProxyStarts":true,"terminationDrainDuration":"20s"}`, ""},
		{"JSON keeps its keys and order", `{"concurrency":2,"proxyMetadata":{"A":"b"}}`, hold,
			`{"concurrency":2,"proxyMetadata":{"A":"b"},"holdApplicationUntilProxyStarts":true}`, ""},
		{"YAML stays YAML", "concurrency: 1\nterminationDrainDuration: 5s\n", both,
			"concurrency: 1\nterminationDrainDuration: 20s\nholdApplicationUntilProxyStarts: true\n", ""},
		{"already set: unchanged text", `{ "holdApplicationUntilProxyStarts": true }`, hold, `{ "holdApplicationUntilProxyStarts": true }`, ""},
		{"a list is an error", "[a, b]", hold, "", `is not a YAML or JSON mapping: "[a, b]"; write it as one, such as {holdApplicationUntilProxyStarts: true}, or remove it`},
		{"a long value is shortened in the error", "[" + strings.Repeat("a, ", 40) + "a]", hold, "", `mapping: "[a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,"…; write it`},
		{"garbage is an error", "{not: [valid", hold, "", "not a YAML or JSON mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := annotate.MergeProxyConfig(tc.current, tc.keys)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

func TestProxyConfigValue(t *testing.T) {
	if v, ok := annotate.ProxyConfigValue(`{"holdApplicationUntilProxyStarts": false}`, "holdApplicationUntilProxyStarts"); !ok || v != "false" {
		t.Errorf("JSON: %q %v", v, ok)
	}
	if v, ok := annotate.ProxyConfigValue("holdApplicationUntilProxyStarts: true\n", "holdApplicationUntilProxyStarts"); !ok || v != "true" {
		t.Errorf("YAML: %q %v", v, ok)
	}
	if _, ok := annotate.ProxyConfigValue("", "x"); ok {
		t.Error("empty value has a key")
	}
}

func TestFilter(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		mesh       annotate.Mesh
		want       string
		changes    int
	}{
		{"linkerd ordered switches native off for Linkerd versions that default to it", "labels: {app: a}\n", annotate.Mesh{Preset: linkerd, WaitBeforeExit: 30},
			"labels: {app: a}\nannotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"30\"\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n", 3},
		{"linkerd native to ordered: the same keys in the same order",
			"annotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"\n",
			annotate.Mesh{Preset: linkerd, WaitBeforeExit: 30},
			"annotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"30\"\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n", 2},
		{"linkerd ordered to native",
			"annotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"30\"\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n",
			annotate.Mesh{Preset: linkerd, Native: true},
			"annotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"\n", 2},
		{"linkerd native drops the exit delay and keeps its comment",
			"annotations:\n  # from an ordered run\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"30\"\n  team: web\n",
			annotate.Mesh{Preset: linkerd, Native: true},
			"annotations:\n  # from an ordered run\n  team: web\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"\n", 3},
		{"linkerd already annotated", "annotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n", annotate.Mesh{Preset: linkerd},
			"annotations:\n  config.linkerd.io/proxy-await: enabled\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n", 0},
		{"linkerd in the pod, ordered: the exit delay present follows the function's",
			"annotations:\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"\n",
			annotate.Mesh{Preset: linkerd, WaitBeforeExit: 30, InPod: true},
			"annotations:\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"30\"\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n", 2},
		{"linkerd in the pod, native: no exit delay, the switch says true",
			"annotations:\n  config.alpha.linkerd.io/proxy-wait-before-exit-seconds: \"10\"\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"false\"\n",
			annotate.Mesh{Preset: linkerd, Native: true, InPod: true},
			"annotations:\n  config.alpha.linkerd.io/proxy-enable-native-sidecar: \"true\"\n", 2},
		{"linkerd in the pod adds nothing", "name: x\n", annotate.Mesh{Preset: linkerd, WaitBeforeExit: 30, InPod: true}, "name: x\n", 0},
		{"istio in the pod, ordered: terminationDrainDuration follows the exit delay",
			"annotations:\n  proxy.istio.io/config: '{\"terminationDrainDuration\":\"5s\"}'\n",
			annotate.Mesh{Preset: istio, WaitBeforeExit: 20, InPod: true},
			"annotations:\n  proxy.istio.io/config: '{\"terminationDrainDuration\":\"20s\"}'\n", 1},
		{"istio native to ordered takes the switch out",
			"annotations:\n  proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\":true}'\n  sidecar.istio.io/nativeSidecar: \"true\"\n",
			annotate.Mesh{Preset: istio},
			"annotations:\n  proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\":true}'\n", 1},
		{"istio in the pod adds nothing", "annotations:\n  proxy.istio.io/config: '{}'\n", annotate.Mesh{Preset: istio, WaitBeforeExit: 20, InPod: true},
			"annotations:\n  proxy.istio.io/config: '{}'\n", 0},
		{"istio native", "name: x\n", annotate.Mesh{Preset: istio, Native: true},
			"name: x\nannotations:\n  proxy.istio.io/config: '{\"holdApplicationUntilProxyStarts\":true}'\n  sidecar.istio.io/nativeSidecar: \"true\"\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, err := yaml.Parse(tc.meta)
			if err != nil {
				t.Fatal(err)
			}
			var log report.Log
			if _, err := (annotate.Filter{Meshes: []annotate.Mesh{tc.mesh}, Log: &log}).Filter([]*yaml.RNode{meta}); err != nil {
				t.Fatal(err)
			}
			if got := meta.MustString(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if len(log.Changes) != tc.changes {
				t.Errorf("changes %q, want %d", log.Changes, tc.changes)
			}
		})
	}
}

func TestFilterBadProxyConfig(t *testing.T) {
	meta, _ := yaml.Parse("annotations:\n  proxy.istio.io/config: '[1, 2]'\n")
	var log report.Log
	if _, err := (annotate.Filter{Meshes: []annotate.Mesh{{Preset: istio}}, Log: &log}).Filter([]*yaml.RNode{meta}); err != nil {
		t.Fatal(err)
	}
	if len(log.Errors) != 1 || !strings.Contains(log.Errors[0].Detail, "proxy.istio.io/config") {
		t.Errorf("errors %q", log.Errors)
	}
}

func TestFilterLinkerdSwitchWarning(t *testing.T) {
	meta, _ := yaml.Parse("annotations:\n  config.linkerd.io/proxy-enable-native-sidecar: \"true\"\n")
	var log report.Log
	if _, err := (annotate.Filter{Meshes: []annotate.Mesh{{Preset: linkerd}}, Log: &log}).Filter([]*yaml.RNode{meta}); err != nil {
		t.Fatal(err)
	}
	if len(log.Warnings) != 1 || !strings.Contains(log.Warnings[0].Detail, "config.linkerd.io/proxy-enable-native-sidecar") {
		t.Errorf("warnings %q", log.Warnings)
	}
}

func TestRecordStatus(t *testing.T) {
	const status = "sidecar.istio.io/status"
	const vols = `"volumes":["istio-envoy"],"imagePullSecrets":null,"revision":"default"}`
	for _, tc := range []struct {
		name, status, want string
	}{
		{"istio-init", `{"initContainers":["istio-init"],"containers":["istio-proxy"],` + vols,
			`{"initContainers":["istio-init","istio-proxy"],"containers":null,` + vols},
		{"istio-validation, another injected container kept", `{"initContainers":["istio-validation"],"containers":["istio-proxy","helper"],` + vols,
			`{"initContainers":["istio-validation","istio-proxy"],"containers":["helper"],` + vols},
		{"gateway template: no init containers", `{"initContainers":null,"containers":["istio-proxy"],` + vols,
			`{"initContainers":["istio-proxy"],"containers":null,` + vols},
		{"already native", `{"initContainers":["istio-init","istio-proxy"],"containers":null,` + vols, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta, err := yaml.Parse("annotations:\n  " + status + ": '" + tc.status + "'\n")
			if err != nil {
				t.Fatal(err)
			}
			var log report.Log
			if _, err := (annotate.RecordStatus{Annotation: status, Proxy: "istio-proxy", Init: []string{"istio-init", "istio-validation"}, Log: &log}).Filter([]*yaml.RNode{meta}); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "" {
				want = tc.status
			}
			got, _ := meta.Pipe(yaml.Lookup("annotations", status))
			if got.YNode().Value != want {
				t.Errorf("got  %s\nwant %s", got.YNode().Value, want)
			}
			if (len(log.Changes) > 0) != (tc.want != "") {
				t.Errorf("changes %q", log.Changes)
			}
		})
	}
}

// TestOtherNativeSwitchWarned: in ordered mode the switch written "false"
// loses to another native key of the injector that says "true": a warning
// names both; a key that agrees is not warned about.
func TestOtherNativeSwitchWarned(t *testing.T) {
	for value, warned := range map[string]bool{"true": true, "false": false} {
		meta, _ := yaml.Parse("annotations:\n  config.beta.linkerd.io/proxy-enable-native-sidecar: \"" + value + "\"\n")
		var log report.Log
		if _, err := (annotate.Filter{Meshes: []annotate.Mesh{{Preset: linkerd}}, Log: &log}).Filter([]*yaml.RNode{meta}); err != nil {
			t.Fatal(err)
		}
		got := len(log.Warnings) == 1 && strings.Contains(log.Warnings[0].Detail, `annotation config.beta.linkerd.io/proxy-enable-native-sidecar: "true" wins over config.alpha.linkerd.io/proxy-enable-native-sidecar: "false"`)
		if got != warned || (!warned && len(log.Warnings) > 0) {
			t.Errorf("beta switch %q: warnings %q, want a warning: %v", value, log.Warnings, warned)
		}
	}
}
