package driver_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
)

const (
	// liveList is what `kubectl get deploy,pods -n shop -o yaml` prints:
	// a Deployment to edit and a Pod its ReplicaSet owns.
	liveList = `apiVersion: v1
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
    resourceVersion: "1123"
    uid: 5d0c2f6e-8a51-4c1e-b0a4-1f0d7e0e9a01
  spec:
    template:
      spec:
        containers:
        - name: app # the shop
          image: shop/web:1.4.2
        - name: linkerd-proxy
          image: cr.l5d.io/linkerd/proxy:edge-25.4.4
  status:
    replicas: 1
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-6c9f8-x7kq2
    namespace: shop
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-6c9f8, uid: 9e7a, controller: true, blockOwnerDeletion: true}
  spec:
    containers:
    - {name: app, image: shop/web:1.4.2}
    - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:edge-25.4.4}
kind: List
metadata:
  resourceVersion: ""
`
	linkerd = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  sidecars:\n  - {preset: linkerd, waitBeforeExit: 30s}\n"
)

// checkLiveList checks the output List: the Deployment edited, the Pod
// left to its ReplicaSet, the comment kept.
func checkLiveList(t *testing.T, out string) {
	t.Helper()
	node, err := yaml.Parse(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	entries, ok := list.Items(node)
	if !ok || len(entries) != 2 {
		t.Fatalf("not a List of 2 entries:\n%s", out)
	}
	deployment := yaml.NewRNode(entries[0]).MustString()
	if strings.Index(deployment, "- name: linkerd-proxy") > strings.Index(deployment, "- name: app # the shop") {
		t.Errorf("the Deployment's proxy is not first:\n%s", deployment)
	}
	if pod := yaml.NewRNode(entries[1]).MustString(); strings.Index(pod, "name: linkerd-proxy") < strings.Index(pod, "name: app") {
		t.Errorf("the Pod its ReplicaSet owns was edited:\n%s", pod)
	}
}

// TestListInResourceList: a List item of a ResourceList is edited entry by
// entry, the same on the streamed and the whole-list path, within the
// invariants (the entries checked as resources).
func TestListInResourceList(t *testing.T) {
	rl := []byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " +
		strings.ReplaceAll(strings.TrimSuffix(liveList, "\n"), "\n", "\n  ") + "\nfunctionConfig:\n  " +
		strings.ReplaceAll(strings.TrimSuffix(linkerd, "\n"), "\n", "\n  ") + "\n")
	if streamed, problem := compareRuns(rl); !streamed || problem != "" {
		t.Fatalf("streamed %v: %s", streamed, problem)
	}
	out, err := run(t, rl)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	for _, e := range krmtest.Check(rl, out) {
		t.Error(e)
	}
	o, err := krmtest.Split(out)
	if err != nil || len(o.Items) != 1 {
		t.Fatalf("output: %v, %d items", err, len(o.Items))
	}
	checkLiveList(t, o.Items[0].MustString())
	results := o.ResultList()
	if len(results) != 3 || results[0].Ref != "Deployment/shop/web" || !strings.HasPrefix(results[1].Message, "ReplicaSet shop/web-6c9f8 controls Pod shop/web-6c9f8-x7kq2") {
		t.Errorf("results %+v: want the Deployment's change, the warning on the ReplicaSet, the summary", results)
	}
	checkIdempotent(t, out)
}

// TestListInPlainStream: a List document of a plain stream, in YAML or in
// JSON (`kubectl get -o json`), is edited entry by entry; the documents
// around it come out as they went in.
func TestListInPlainStream(t *testing.T) {
	const before = "# audit\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n"
	const after = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n"
	node, err := yaml.Parse(liveList)
	if err != nil {
		t.Fatal(err)
	}
	js, err := node.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"YAML": liveList, "JSON": string(js) + "\n"} {
		t.Run(name, func(t *testing.T) {
			out, problems, err := runPlain(t, linkerd, before+doc+after)
			// The Pod's ReplicaSet is not in the input.
			if err != nil || len(problems) != 1 || !strings.HasPrefix(problems[0].Message, "ReplicaSet shop/web-6c9f8 controls Pod") {
				t.Fatalf("err %v, problems %v: want the warning on the ReplicaSet", err, problems)
			}
			if !strings.HasPrefix(out, before) || !strings.HasSuffix(out, after) {
				t.Errorf("the documents around the List changed:\n%s", out)
			}
			docs, err := yamlio.ReadDocuments(strings.NewReader(out), yamlio.Options{})
			if err != nil || docs.Len() != 3 {
				t.Fatalf("output: %v, want 3 documents:\n%s", err, out)
			}
			defer docs.Close()
			body, err := docs.Body(1)
			if err != nil {
				t.Fatal(err)
			}
			if name == "YAML" {
				checkLiveList(t, string(body))
			} else if !strings.Contains(string(body), "linkerd-await") {
				t.Errorf("the JSON List was not edited:\n%s", body)
			}
			again, _, err := runPlain(t, linkerd, out)
			if err != nil || again != out {
				t.Errorf("a second run changed the stream (err %v):\n%s", err, krmtest.Diff(out, again))
			}
		})
	}
}

// TestNamespaceInAListOnEveryPath: a Namespace entry of a List annotated to
// skip its workloads, after them, is noted before any edit on the streamed
// and the whole-list path and in the plain stream: nothing changes.
func TestNamespaceInAListOnEveryPath(t *testing.T) {
	skip := strings.Replace(liveList, "kind: List\n",
		"- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: shop\n    annotations: {sidecar-lifecycle.dev/skip: \"true\"}\nkind: List\n", 1)
	items := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n---\n" + skip
	reports, failed := everyPath(t, items, linkerd, true)
	for path, report := range reports {
		if failed[path] || strings.Contains(report, "error") {
			t.Errorf("%s: %s", path, report)
		}
	}
	rl, err := krmtest.ResourceList([]byte(items), []byte(linkerd))
	if err != nil {
		t.Fatal(err)
	}
	if streamed, problem := compareRuns(rl); !streamed || problem != "" {
		t.Fatalf("streamed %v: %s", streamed, problem)
	}
	out, err := run(t, rl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "skipped 1") || strings.Contains(string(out), "linkerd-await") {
		t.Errorf("the Deployment of the skipped Namespace changed, or was not counted as skipped:\n%s", out)
	}
	if plain, _, err := runPlain(t, linkerd, items); err != nil || plain != items {
		t.Errorf("the plain stream changed (err %v):\n%s", err, krmtest.Diff(items, plain))
	}
}
