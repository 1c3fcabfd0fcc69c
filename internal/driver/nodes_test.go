package driver_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestNodesOnEveryPath: a Node, wherever it stands (after the workload, as
// an entry of a kubectl List, in JSON), is read before any edit on the
// whole-list and the streamed path and in the plain stream: with
// kubernetesVersion auto and mode auto its 1.28 kubelet keeps the sidecar
// ordered, and a workload's native sidecar is an error naming the Node.
func TestNodesOnEveryPath(t *testing.T) {
	const cfg = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {kubernetesVersion: auto, mode: auto, action: validate, sidecars: [{preset: linkerd}]}\n"
	const node = "apiVersion: v1\nkind: Node\nmetadata: {name: pool-old}\nstatus: {nodeInfo: {kubeletVersion: v1.28.15-eks-4f4795d}}\n"
	const batch = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: batch, namespace: shop}\nspec:\n  template:\n    spec:\n" +
		"      restartPolicy: Never\n      initContainers: [{name: shipper, restartPolicy: Always}]\n      containers: [{name: app}]\n"
	inList := strings.Replace(liveList, "kind: List\n", "- apiVersion: v1\n  kind: Node\n  metadata: {name: pool-old}\n  status: {nodeInfo: {kubeletVersion: v1.28.15-eks-4f4795d}}\nkind: List\n", 1)
	jsonList := `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "pool-old"}, ` +
		`"status": {"nodeInfo": {"kubeletVersion": "v1.28.15-eks-4f4795d"}}}]}` + "\n"
	for name, items := range map[string]string{
		"a Node after the workload": batch + "---\n" + node,
		"a Node in a List":          batch + "---\n" + inList,
		"a Node in a JSON List":     batch + "---\n" + jsonList,
	} {
		reports, failed := everyPath(t, items, cfg, true)
		for path, report := range reports {
			if !failed[path] || !strings.Contains(report, `Job shop/batch spec.template.spec.initContainers[name=shipper].restartPolicy: a native sidecar (an init container with restartPolicy: Always), which kubelets serve from 1.29 on`) ||
				!strings.Contains(report, `"pool-old" (v1.28.15-eks-4f4795d)`) {
				t.Errorf("%s, %s: want the Job's native sidecar reported, naming the Node:\n%s", name, path, report)
			}
			if strings.Contains(report, "restartPolicy: Always\n") {
				t.Errorf("%s, %s: native sidecars proposed for a 1.28 kubelet:\n%s", name, path, report)
			}
		}
		rl, err := krmtest.ResourceList([]byte(items), []byte(cfg))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := run(t, rl)
		if !strings.Contains(string(out), "kubernetesVersion auto: 1.28, the oldest kubelet among the input") {
			t.Errorf("%s: the results do not say which version auto took:\n%s", name, out)
		}
	}
}

// TestNodeDeadlinesOnEveryPath: the Nodes and NodePools that set a node
// deadline are read wherever they stand (as documents of their own, as
// entries of a kubectl List, of a JSON List) on the whole-list and the
// streamed path and in the plain stream, and each gives the golden case's
// node-deadline finding.
func TestNodeDeadlinesOnEveryPath(t *testing.T) {
	for dir, want := range map[string]string{
		"deadline-gke-spot-nodes": "may land on GKE Spot VMs nodes (Node gke-shop-spot-1)",
		"deadline-karpenter":      "may land on Karpenter NodePool web nodes",
	} {
		items, err := os.ReadFile(filepath.Join("testdata", dir, "items.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := os.ReadFile(filepath.Join("testdata", dir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(items), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatal(err)
		}
		var facts, rest []*yaml.RNode
		for _, n := range nodes {
			if k := n.GetKind(); k == "Node" || k == "NodePool" {
				facts = append(facts, n)
			} else {
				rest = append(rest, n)
			}
		}
		if len(facts) == 0 {
			t.Fatalf("%s: no Node or NodePool", dir)
		}
		list := yaml.MustParse("apiVersion: v1\nkind: List\nitems: []\n")
		jsonList := []byte(`{"apiVersion":"v1","kind":"List","items":[`)
		for i, f := range facts {
			if err := list.PipeE(yaml.Lookup("items"), yaml.Append(f.YNode())); err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				jsonList = append(jsonList, ',')
			}
			if jsonList, err = yamlio.AppendJSON(jsonList, f.YNode()); err != nil {
				t.Fatal(err)
			}
		}
		jsonList = append(jsonList, "]}\n"...)
		others, err := kio.StringAll(rest)
		if err != nil {
			t.Fatal(err)
		}
		for form, text := range map[string]string{
			"documents":   string(items),
			"a List":      others + "---\n" + list.MustString(),
			"a JSON List": others + "---\n" + string(jsonList),
		} {
			reports, _ := everyPath(t, text, string(cfg), true)
			if len(reports) != 3 {
				t.Fatalf("%s as %s: %d paths", dir, form, len(reports))
			}
			for path, report := range reports {
				if !strings.Contains(report, want) {
					t.Errorf("%s as %s, %s: no %q:\n%s", dir, form, path, want, report)
				}
			}
		}
	}
}
