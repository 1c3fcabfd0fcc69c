package kubelet_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestCatalog: features.yaml reads, holds the versions read in
// kubernetes/kubernetes' pkg/features/kube_features.go, and the config's
// thresholds are its on-by-default versions.
func TestCatalog(t *testing.T) {
	want := map[string][4]string{
		kubelet.NativeSidecar: {"SidecarContainers", "1.28", "1.29", "1.33"},
		kubelet.SleepAction:   {"PodLifecycleSleepAction", "1.29", "1.30", "1.34"},
		kubelet.ZeroSleep:     {"PodLifecycleSleepActionAllowZero", "1.32", "1.33", "1.34"},
	}
	features := kubelet.Catalog().Features
	if len(features) != len(want) {
		t.Fatalf("%d features, want %d", len(features), len(want))
	}
	for _, f := range features {
		if got := [4]string{f.Gate, f.Alpha, f.OnByDefault, f.GA}; got != want[f.ID] {
			t.Errorf("%s: gate and versions %q, want %q", f.ID, got, want[f.ID])
		}
		if !strings.Contains(f.Source, "pkg/features/kube_features.go ("+f.Gate+")") {
			t.Errorf("%s: source %q does not name the gate in kube_features.go", f.ID, f.Source)
		}
	}
	if got := kubelet.ByID(kubelet.NativeSidecar).Minor(); got != config.NativeSidecarMinor {
		t.Errorf("native sidecars from 1.%d, config.NativeSidecarMinor %d", got, config.NativeSidecarMinor)
	}
	if got := kubelet.ByID(kubelet.SleepAction).Minor(); got != config.SleepActionMinor {
		t.Errorf("the sleep action from 1.%d, config.SleepActionMinor %d", got, config.SleepActionMinor)
	}
}

func node(t *testing.T, name, version string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse("apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\nstatus: {nodeInfo: {kubeletVersion: " + version + "}}\n")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadNode: a kubelet version reads with what distributions add after
// the patch; one that is not 1.N, or none, is an error.
func TestReadNode(t *testing.T) {
	for version, minor := range map[string]int{"v1.34.1": 34, "v1.30.4+k3s1": 30, "v1.29.10-eks-59bf375": 29, "v1.28.3-gke.1203001": 28, "1.31": 31} {
		n, err := kubelet.ReadNode(node(t, "a", version))
		if err != nil || n.Minor != minor || n.Version != version {
			t.Errorf("ReadNode(%s) = %+v, %v; want minor %d", version, n, err, minor)
		}
	}
	for bad, want := range map[string]string{"v2.0.0": `"v2.0.0" is not a Kubernetes 1.N version`, "latest": `"latest" is not`, "{}": "it has no status.nodeInfo.kubeletVersion"} {
		if _, err := kubelet.ReadNode(node(t, "b", bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadNode(%s): %v, want an error saying %s", bad, err, want)
		}
	}
	if !kubelet.IsNode(node(t, "a", "v1.30.0")) {
		t.Error("a v1 Node is not a Node")
	}
}

// TestNodes: the oldest kubelet, the Nodes below a version by name, and
// their names, the first three and a count.
func TestNodes(t *testing.T) {
	ns := kubelet.Nodes{{Name: "e", Version: "v1.28.1", Minor: 28}, {Name: "d", Version: "v1.34.1", Minor: 34},
		{Name: "c", Version: "v1.27.2", Minor: 27}, {Name: "b", Version: "v1.28.2", Minor: 28}, {Name: "a", Version: "v1.29.0", Minor: 29}}
	if o, ok := ns.Oldest(); !ok || o.Name != "c" {
		t.Errorf("Oldest = %+v, %v; want c", o, ok)
	}
	if _, ok := (kubelet.Nodes{}).Oldest(); ok {
		t.Error("no Nodes have an oldest")
	}
	for minor, want := range map[int]string{
		27: ``,
		28: `"c" (v1.27.2)`,
		29: `"b" (v1.28.2), "c" (v1.27.2) and "e" (v1.28.1)`,
		35: `"a" (v1.29.0), "b" (v1.28.2), "c" (v1.27.2) and 2 more`,
	} {
		if got := ns.Below(minor).Names(); got != want {
			t.Errorf("Below(%d).Names() = %s, want %s", minor, got, want)
		}
	}
}

// TestUses: each feature once, at its first use, in the catalog's order;
// a plain init container or an exec preStop uses none.
func TestUses(t *testing.T) {
	spec, err := yaml.Parse(`
containers:
- name: app
  lifecycle: {preStop: {sleep: {seconds: 0}}, postStart: {sleep: {seconds: 1}}}
initContainers:
- {name: setup}
- name: proxy
  restartPolicy: Always
  lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
- {name: second, restartPolicy: Always}
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range kubelet.Uses(spec) {
		got = append(got, u.Feature.ID+" "+u.List+"/"+u.Container+" "+strings.Join(u.Path, "."))
	}
	want := []string{"native-sidecar initContainers/proxy restartPolicy", "sleep-action containers/app lifecycle.preStop.sleep", "zero-sleep containers/app lifecycle.preStop.sleep.seconds"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Uses =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	plain, _ := yaml.Parse("containers: [{name: app, lifecycle: {preStop: {exec: {command: [sleep, '5']}}}}]\ninitContainers: [{name: setup, restartPolicy: Never}]\n")
	if u := kubelet.Uses(plain); len(u) != 0 {
		t.Errorf("Uses of a pod with no such field = %+v", u)
	}
}
