package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

const (
	header   = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\n"
	meshPod  = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n"
	nodeText = "apiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {nodeInfo: {kubeletVersion: %s}}\n"
)

func nodeDoc(name, version string) string { return fmt.Sprintf(nodeText, name, version) }

// podSpec is the pod spec of the single Pod among the items.
func podSpec(t *testing.T, items []*yaml.RNode) *yaml.RNode {
	t.Helper()
	for _, it := range items {
		if it.GetKind() == "Pod" {
			return it.Field("spec").Value
		}
	}
	t.Fatal("no Pod in the output")
	return nil
}

// messages are the results' messages, with their severities.
func messages(results fn.Results) string {
	var out []string
	for _, r := range results {
		out = append(out, string(r.Severity)+": "+r.Message)
	}
	return strings.Join(out, "\n")
}

// TestVersionBoundaries: at each version where a kubelet starts to serve
// a field, the function writes it from that version on and not below:
// native sidecars (mode auto) from 1.29, the sleep action from 1.30; a
// zero-second sleep at no version, since a delay of 0 writes no preStop.
func TestVersionBoundaries(t *testing.T) {
	for _, tc := range []struct {
		version, mode, wait string
		want, wantNot       string
	}{
		{"1.28", "auto", "30s", "/bin/sleep", "restartPolicy: Always"},
		{"1.29", "auto", "30s", "restartPolicy: Always", "linkerd-await"},
		{"1.29", "ordered", "30s", "preStop: {exec: {command: [/bin/sleep, \"30\"]}}", "sleep: {"},
		{"1.30", "ordered", "30s", "preStop: {sleep: {seconds: 30}}", "/bin/sleep"},
		{"1.32", "ordered", "0s", "linkerd-await", "preStop"},
		{"1.33", "ordered", "0s", "linkerd-await", "preStop"},
	} {
		cfg := header + fmt.Sprintf("spec: {kubernetesVersion: %q, mode: %s, sidecars: [{preset: linkerd, waitBeforeExit: %s}]}\n", tc.version, tc.mode, tc.wait)
		out, results := engine.New(krmtest.Config(t, cfg)).Transform(items(t, meshPod))
		spec := podSpec(t, out).MustString()
		if !strings.Contains(spec, tc.want) || strings.Contains(spec, tc.wantNot) {
			t.Errorf("%s %s waitBeforeExit %s: want %q and no %q in\n%s\n%s", tc.version, tc.mode, tc.wait, tc.want, tc.wantNot, spec, messages(results))
		}
	}
}

// TestNeverWritesUnserved: at every version, in every mode that runs
// there, for every sidecar of the catalog with exit delays for the sidecar
// and the application, the output uses no field that a kubelet of that
// version does not serve; and from 1.30 on, the delays are sleep actions.
func TestNeverWritesUnserved(t *testing.T) {
	for _, e := range preset.Builtin() {
		if len(e.Containers) == 0 {
			continue
		}
		image := "example.com/sidecar"
		if len(e.Images) > 0 {
			image = strings.ReplaceAll(strings.TrimPrefix(e.Images[0].Pattern, "**/"), "*", "x")
		}
		pod := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: shop/app:1}, {name: %s, image: %q}]\n", e.Containers[0].Name, image+":9.99.9")
		for minor := 26; minor <= 36; minor++ {
			for _, mode := range []string{"ordered", "auto", "native"} {
				if mode == "native" && minor < config.NativeSidecarMinor {
					continue
				}
				cfg := header + fmt.Sprintf("spec: {kubernetesVersion: \"1.%d\", mode: %s, app: {drainDelay: 5s}, sidecars: [{preset: %s, waitBeforeExit: 30s}]}\n", minor, mode, e.Name)
				loaded, err := config.LoadBytes([]byte(cfg))
				if err != nil {
					continue // a preset whose image has no sleep, below 1.30
				}
				out, results := engine.New(loaded).Transform(items(t, pod))
				used := kubelet.Uses(podSpec(t, out))
				sleeps := false
				for _, u := range used {
					sleeps = sleeps || u.Feature.ID == kubelet.SleepAction
					if u.Feature.Minor() > minor {
						t.Errorf("%s 1.%d %s: wrote %s at %s[name=%s].%s, served from 1.%d", e.Name, minor, mode, u.Feature.ID, u.List, u.Container, strings.Join(u.Path, "."), u.Feature.Minor())
					}
				}
				if !sleeps && minor >= config.SleepActionMinor {
					t.Errorf("%s 1.%d %s: no sleep action written\n%s", e.Name, minor, mode, messages(results))
				}
			}
		}
	}
}

// TestAutoFollowsOldestKubelet: kubernetesVersion auto follows the oldest
// kubelet among the input's Nodes, wherever they stand (before or after
// the workloads, in a List): mode auto then writes native sidecars only
// when every Node serves them, and an info result names the Node. With no
// Node it is the default; a mode the oldest kubelet does not serve is the
// config's error.
func TestAutoFollowsOldestKubelet(t *testing.T) {
	auto := header + "spec: {kubernetesVersion: auto, mode: auto, sidecars: [{preset: linkerd}]}\n"
	asList := func(docs ...string) string {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
		for _, d := range docs {
			for i, line := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
				if i == 0 {
					b.WriteString("- " + line + "\n")
				} else {
					b.WriteString("  " + line + "\n")
				}
			}
		}
		return b.String()
	}
	newer, older := nodeDoc("pool-a", "v1.34.1"), nodeDoc("pool-old", "v1.28.15-eks-4f4795d")
	for _, tc := range []struct {
		name   string
		docs   []string
		native bool
		info   string
	}{
		{"new Nodes", []string{newer, meshPod}, true, `kubernetesVersion auto: 1.34, the oldest kubelet among the input's 1 Node: "pool-a" (v1.34.1)`},
		{"an old Node after the workload", []string{newer, meshPod, older}, false, `kubernetesVersion auto: 1.28, the oldest kubelet among the input's 2 Nodes: "pool-old" (v1.28.15-eks-4f4795d)`},
		{"an old Node in a List", []string{asList(newer, older), meshPod}, false, `kubernetesVersion auto: 1.28, the oldest kubelet among the input's 2 Nodes`},
		{"no Node", []string{meshPod}, true, "kubernetesVersion auto: 1.30, the default: the input has no Node whose kubelet version reads"},
	} {
		out, results := engine.New(krmtest.Config(t, auto)).Transform(items(t, tc.docs...))
		spec := podSpec(t, out).MustString()
		if native := strings.Contains(spec, "restartPolicy: Always"); native != tc.native {
			t.Errorf("%s: native %v, want %v:\n%s", tc.name, native, tc.native, spec)
		}
		if all := messages(results); !strings.Contains(all, "info: "+tc.info) {
			t.Errorf("%s: no info %q in\n%s", tc.name, tc.info, all)
		}
	}

	native := header + "spec: {kubernetesVersion: auto, mode: native, sidecars: [{preset: linkerd}]}\n"
	out, results := engine.New(krmtest.Config(t, native)).Transform(items(t, older, meshPod))
	if all := messages(results); !strings.Contains(all, "error: native sidecars need kubernetesVersion >= 1.29, got 1.28") || !strings.Contains(all, `"pool-old" (v1.28.15-eks-4f4795d)`) {
		t.Errorf("mode native with a 1.28 kubelet: want the config's error and the Node named:\n%s", all)
	}
	if strings.Contains(podSpec(t, out).MustString(), "restartPolicy") {
		t.Error("mode native with a 1.28 kubelet changed the Pod")
	}
}

// TestUnservedFieldsReported: a workload using a field that a Node's
// kubelet does not serve is reported, naming the Node, on each side of
// each version where a kubelet starts to serve it: an error with action
// validate, a warning with mutate. A Node whose version does not read is
// a warning and counts for nothing.
func TestUnservedFieldsReported(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: batch, namespace: shop}\nspec:\n" +
		"  initContainers: [{name: shipper, restartPolicy: Always}]\n" +
		"  containers: [{name: app, lifecycle: {preStop: {sleep: {seconds: 0}}}}]\n"
	native := "a native sidecar (an init container with restartPolicy: Always), which kubelets serve from 1.29 on (feature gate SidecarContainers on by default)"
	sleep := "a sleep action in a lifecycle hook, which kubelets serve from 1.30 on (feature gate PodLifecycleSleepAction on by default)"
	zero := "a sleep action of zero seconds, which kubelets serve from 1.33 on (feature gate PodLifecycleSleepActionAllowZero on by default)"
	for _, tc := range []struct {
		kubelet     string
		want, unfit []string
	}{
		{"v1.28.15", []string{native, sleep, zero}, nil},
		{"v1.29.0", []string{sleep, zero}, []string{native}},
		{"v1.30.2+k3s1", []string{zero}, []string{native, sleep}},
		{"v1.32.9", []string{zero}, []string{native, sleep}},
		{"v1.33.0", nil, []string{native, sleep, zero}},
	} {
		for _, action := range []string{"validate", "mutate"} {
			cfg := header + "spec: {action: " + action + ", sidecars: [{name: shipper}]}\n"
			_, results := engine.New(krmtest.Config(t, cfg)).Transform(items(t, nodeDoc("pool-a", "v1.34.1"), nodeDoc("pool-b", tc.kubelet), pod))
			severity := map[string]fn.Severity{"validate": fn.Error, "mutate": fn.Warning}[action]
			for _, want := range tc.want {
				found := false
				for _, r := range results {
					found = found || (r.Severity == severity && strings.HasPrefix(r.Message, want) &&
						strings.Contains(r.Message, `1 of the input's 2 Nodes runs an older kubelet: "pool-b" (`+tc.kubelet+`)`) && r.ResourceRef != nil && r.ResourceRef.Name == "batch")
				}
				if !found {
					t.Errorf("%s, %s: no %s %q naming pool-b in\n%s", tc.kubelet, action, severity, want, messages(results))
				}
			}
			for _, unfit := range tc.unfit {
				if strings.Contains(messages(results), unfit) {
					t.Errorf("%s, %s: %q reported:\n%s", tc.kubelet, action, unfit, messages(results))
				}
			}
		}
	}
	_, results := engine.New(krmtest.Config(t, "")).Transform(items(t, nodeDoc("odd", "latest"), pod))
	found := false
	for _, r := range results {
		found = found || (r.Severity == fn.Warning && r.Message == `status.nodeInfo.kubeletVersion "latest" is not a Kubernetes 1.N version: it is not counted among the kubelets` &&
			r.ResourceRef != nil && r.ResourceRef.Kind == "Node" && r.ResourceRef.Name == "odd")
	}
	if all := messages(results); !found || strings.Contains(all, "which kubelets serve") {
		t.Errorf("a Node whose version does not read: want a warning about Node odd, and nothing about the Pod:\n%s", all)
	}
}

// TestInjectedNativeSidecarReported: a sidecar added at admission is a
// native sidecar when the workload's annotation switches its injector to
// native: a Node whose kubelet does not serve native sidecars is named; a
// switch that turns native off, or a kubelet that serves them, is not.
func TestInjectedNativeSidecarReported(t *testing.T) {
	deployment := func(native string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    metadata:\n      annotations:\n" +
			"        linkerd.io/inject: enabled\n        config.linkerd.io/proxy-enable-native-sidecar: \"" + native + "\"\n    spec:\n      containers: [{name: app}]\n"
	}
	const want = `a native sidecar (annotation config.linkerd.io/proxy-enable-native-sidecar: "true" makes the linkerd injector add its sidecar as one), which kubelets serve from 1.29 on`
	cfg := header + "spec: {action: validate}\n"
	for _, tc := range []struct {
		kubelet, native string
		reported        bool
	}{
		{"v1.28.15", "true", true},
		{"v1.28.15", "false", false},
		{"v1.29.0", "true", false},
	} {
		_, results := engine.New(krmtest.Config(t, cfg)).Transform(items(t, nodeDoc("pool-b", tc.kubelet), deployment(tc.native)))
		found := false
		for _, r := range results {
			found = found || (r.Severity == fn.Error && strings.HasPrefix(r.Message, want) && strings.Contains(r.Message, `"pool-b" (v1.28.15)`) &&
				r.Field != nil && r.Field.Path == "spec.template.metadata.annotations[config.linkerd.io/proxy-enable-native-sidecar]")
		}
		if found != tc.reported {
			t.Errorf("kubelet %s, native switch %s: reported %v, want %v:\n%s", tc.kubelet, tc.native, found, tc.reported, messages(results))
		}
	}
}
