package engine_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// ownedBy is an ownerReferences entry, as the API server writes it, under
// an entry's metadata.
func ownedBy(apiVersion, kind, name string) string {
	return "    ownerReferences:\n    - apiVersion: " + apiVersion + "\n      blockOwnerDeletion: true\n      controller: true\n      kind: " + kind +
		"\n      name: " + name + "\n      uid: 0b6f1b43-7e2c-4a4e-9d38-6f0c8d8a1c11\n"
}

// TestOwnedAreLeftToTheirController: what `kubectl get deploy,rs,pods`
// prints. The ReplicaSet and its Pods are neither edited nor reported on
// their own, though their proxies are out of order; one note says where
// the fix goes, and the Deployment is checked and edited.
func TestOwnedAreLeftToTheirController(t *testing.T) {
	doc := kubectlList(
		entry("apps/v1", "Deployment", "web", ""),
		entry("apps/v1", "ReplicaSet", "web-6c9f8", ownedBy("apps/v1", "Deployment", "web")),
		entry("v1", "Pod", "web-6c9f8-a", ownedBy("apps/v1", "ReplicaSet", "web-6c9f8")),
		entry("v1", "Pod", "web-6c9f8-b", ownedBy("apps/v1", "ReplicaSet", "web-6c9f8")),
	)
	const note = "info: Deployment shop/web controls ReplicaSet shop/web-6c9f8 and 2 more objects in the input, which are not edited or checked on their own " +
		"(the API server refuses edits to a Pod's containers or a Job's template, and a controller rewrites what it owns): the fix goes in Deployment shop/web, which is checked itself"

	_, _, got := run(t, validatePolicy, doc)
	krmtest.CheckLog(t, "validate", got, []string{
		"error: Deployment shop/web spec.template.spec: not as configured; to fix, run sidecar-lifecycle with action: mutate",
		note,
		"info: validate: 1 workload not as configured, skipped 0",
	})

	in, out, got := run(t, linkerdPolicy, doc)
	before, after := entryNodes(t, in[0]), entryNodes(t, out[0])
	if after[0] == before[0] {
		t.Error("the Deployment was not edited")
	}
	for i := 1; i < 4; i++ {
		if after[i] != before[i] {
			t.Errorf("entry %d, owned by a controller, was edited", i)
		}
	}
	krmtest.CheckLog(t, "mutate", got, []string{
		"info: Deployment shop/web spec.template.spec: moved linkerd-proxy to the front of containers",
		note,
		"info: ordered 1 workload, converted 0 to native sidecars, annotated 0, skipped 0",
	})
}

// TestControllerNotInTheInput: objects whose controller is not in the
// input are left unchecked, with a warning when the controller is a kind
// of workload the function checks (the input misses it) and an info
// result otherwise; items that are not in a List count the same. Notes
// come once per controller, in the order of the first object it owns.
func TestControllerNotInTheInput(t *testing.T) {
	pod := func(name, refs string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: shop\n" + dedent(refs) +
			"spec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n"
	}
	in, out, got := run(t, validatePolicy,
		pod("web-6c9f8-a", ownedBy("apps/v1", "ReplicaSet", "web-6c9f8")),
		pod("etcd-node-1", ownedBy("v1", "Node", "node-1")),
		pod("web-6c9f8-b", ownedBy("apps/v1", "ReplicaSet", "web-6c9f8")),
		pod("report-x1", ownedBy("argoproj.io/v1alpha1", "Workflow", "report")),
	)
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("item %d changed", i)
		}
	}
	krmtest.CheckLog(t, "results", got, []string{
		"warning: ReplicaSet shop/web-6c9f8 controls Pod shop/web-6c9f8-a and 1 more object in the input but is not in it, so they are not checked: " +
			"a controller's objects are checked through it; add it to the input (kubectl get replicasets)",
		"info: Node node-1 controls Pod shop/etcd-node-1 in the input, which is not edited or checked on its own",
		"info: Workflow shop/report controls Pod shop/report-x1 in the input, which is not edited or checked on its own " +
			"(the API server refuses edits to a Pod's containers or a Job's template, and a controller rewrites what it owns), and Workflow is not a kind of workload the function checks: " +
			"the fix goes wherever Workflow shop/report takes its pod spec from",
		"info: validate: 0 workloads not as configured, skipped 0",
	})
}

// dedent moves an entry's lines two columns left, for a top-level item.
func dedent(s string) string {
	return strings.ReplaceAll("\n"+s, "\n  ", "\n")[1:]
}

// TestOwnedNotSelected: an owned workload the targets do not select is
// not noted; a cycle of ownerReferences ends.
func TestOwnedNotSelected(t *testing.T) {
	onlyDeployments := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  action: validate\n" +
		"  targets: {include: [{kind: Deployment}, {kind: ReplicaSet}]}\n  sidecars:\n  - {preset: linkerd, waitBeforeExit: 30s}\n"
	_, _, got := run(t, onlyDeployments, kubectlList(
		entry("v1", "Pod", "web-a", ownedBy("apps/v1", "ReplicaSet", "a")),
		entry("apps/v1", "ReplicaSet", "a", ownedBy("apps/v1", "ReplicaSet", "b")),
		entry("apps/v1", "ReplicaSet", "b", ownedBy("apps/v1", "ReplicaSet", "a")),
	))
	for _, line := range got {
		if strings.Contains(line, "web-a") {
			t.Errorf("the Pod, not selected, is noted: %q", line)
		}
	}
	if len(got) != 3 || got[2] != "info: validate: 0 workloads not as configured, skipped 0" {
		t.Errorf("results %q: want a note for each ReplicaSet and the summary", got)
	}
}

// TestOwnedDuplicateKey: a workload left to its controller is not checked,
// but a duplicate key in it is an error, as anywhere in the input.
func TestOwnedDuplicateKey(t *testing.T) {
	pod := entry("v1", "Pod", "web-a", ownedBy("apps/v1", "ReplicaSet", "a")+"    labels: {app: web}\n    labels: {app: web}\n")
	in, out, got := run(t, linkerdPolicy, kubectlList(pod))
	if out[0] != in[0] {
		t.Error("the List changed in a run that fails")
	}
	if len(got) < 1 || !strings.HasPrefix(got[0], `error: Pod shop/web-a: metadata: duplicate key "labels"`) {
		t.Errorf("results %q: want the duplicate key", got)
	}
}
