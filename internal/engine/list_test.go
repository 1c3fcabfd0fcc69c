package engine_test

import (
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

const (
	linkerdPolicy  = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars:\n  - {preset: linkerd, waitBeforeExit: 30s}\n"
	validatePolicy = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  action: validate\n  sidecars:\n  - {preset: linkerd, waitBeforeExit: 30s}\n"
)

// entry is a List entry: a workload of the kind, its proxy after its app.
func entry(apiVersion, kind, name, extraMeta string) string {
	spec := "  spec:\n    containers: [{name: app, image: app}, {name: linkerd-proxy, image: proxy}]\n"
	if kind != "Pod" {
		spec = "  spec:\n    template:\n      spec:\n        containers: [{name: app, image: app}, {name: linkerd-proxy, image: proxy}]\n"
	}
	return "- apiVersion: " + apiVersion + "\n  kind: " + kind + "\n  metadata:\n    name: " + name + "\n    namespace: shop\n" + extraMeta + spec
}

func kubectlList(entries ...string) string {
	return "apiVersion: v1\nitems:\n" + strings.Join(entries, "") + "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
}

// lines are the results as stderr shows them, the closing ones too.
func lines(results fn.Results) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = string(r.Severity) + ": " + report.Line(r)
	}
	return out
}

// documents parses a stream, a List as a List: kio.FromBytes would read
// a stream of one List as the List's items.
func documents(t *testing.T, docs ...string) []*yaml.RNode {
	t.Helper()
	r := kio.ByteReader{Reader: strings.NewReader(strings.Join(docs, "---\n")), OmitReaderAnnotations: true, DisableUnwrapping: true}
	out, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func run(t *testing.T, policy string, docs ...string) ([]*yaml.RNode, []*yaml.RNode, []string) {
	t.Helper()
	in := documents(t, docs...)
	out, results := engine.New(krmtest.Config(t, policy)).Transform(in)
	return in, out, lines(results)
}

func entryNodes(t *testing.T, item *yaml.RNode) []*yaml.Node {
	t.Helper()
	entries, ok := list.Items(item)
	if !ok {
		t.Fatalf("not a List:\n%s", item.MustString())
	}
	return entries
}

// TestListEntriesAreItems: each entry of kubectl's List is edited as an
// item, with results naming it and counted in the summary; the List is
// written back as a List whose unchanged entries are the input's nodes,
// its comments kept, the input unchanged.
func TestListEntriesAreItems(t *testing.T) {
	cm := "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: settings, namespace: shop}\n  data: {a: b}\n"
	doc := "# kubectl get deploy,cm,pods -n shop -o yaml\n" + kubectlList(entry("apps/v1", "Deployment", "web", ""), cm, entry("v1", "Pod", "debug", ""))
	in, out, got := run(t, linkerdPolicy, doc)
	before := in[0].MustString()
	entries := entryNodes(t, out[0])
	if out[0].GetKind() != "List" || len(entries) != 3 {
		t.Fatalf("output is not the List of 3 entries:\n%s", out[0].MustString())
	}
	inEntries := entryNodes(t, in[0])
	if entries[1] != inEntries[1] || entries[0] == inEntries[0] || entries[2] == inEntries[2] {
		t.Errorf("want the two workloads edited and the ConfigMap's own node kept")
	}
	for _, e := range []*yaml.Node{entries[0], entries[2]} {
		if s := yaml.NewRNode(e).MustString(); strings.Index(s, "name: linkerd-proxy") > strings.Index(s, "name: app") {
			t.Errorf("the proxy is not first:\n%s", s)
		}
	}
	if !strings.HasPrefix(out[0].MustString(), "# kubectl get deploy,cm,pods") {
		t.Errorf("the List's comment is lost:\n%s", out[0].MustString())
	}
	if in[0].MustString() != before {
		t.Error("the input List changed")
	}
	krmtest.CheckLog(t, "results", got, []string{
		"info: Deployment shop/web spec.template.spec: moved linkerd-proxy to the front of containers; added postStart [\"/usr/lib/linkerd/linkerd-await\", \"--timeout=2m\", \"--port=4191\"] to linkerd-proxy; added preStop sleep 30s to linkerd-proxy; raised terminationGracePeriodSeconds from 30 to 40 (preStop of linkerd-proxy 30s + margin 10s)",
		"info: Pod shop/debug spec: moved linkerd-proxy to the front of containers; added postStart [\"/usr/lib/linkerd/linkerd-await\", \"--timeout=2m\", \"--port=4191\"] to linkerd-proxy; added preStop sleep 30s to linkerd-proxy; raised terminationGracePeriodSeconds from 30 to 40 (preStop of linkerd-proxy 30s + margin 10s)",
		"info: ordered 2 workloads, converted 0 to native sidecars, annotated 0, skipped 0",
	})
	// Idempotent: the output List run again changes nothing.
	again, results := engine.New(krmtest.Config(t, linkerdPolicy)).Transform(out)
	if again[0] != out[0] || len(results) != 1 {
		t.Errorf("a second run changed the List or reported %q", lines(results))
	}
}

// TestTypedListValidate: a typed list (the API's DeploymentList, as
// `kubectl get --raw` prints it, in JSON) is read the same way; validate
// reports each entry that is not as configured and writes the List as it
// came.
func TestTypedListValidate(t *testing.T) {
	deployment := func(name string) string {
		return `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "` + name + `", "namespace": "shop"},
 "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "app"}, {"name": "linkerd-proxy", "image": "proxy"}]}}}}`
	}
	doc := `{"apiVersion": "apps/v1", "kind": "DeploymentList", "metadata": {"resourceVersion": "4711"}, "items": [` + deployment("web") + ", " + deployment("api") + "]}\n"
	in, out, got := run(t, validatePolicy, doc)
	if out[0] != in[0] {
		t.Error("validate changed the List")
	}
	if len(got) != 3 || !strings.HasPrefix(got[0], "error: Deployment shop/web spec.template.spec: not as configured;") ||
		!strings.HasPrefix(got[1], "error: Deployment shop/api spec.template.spec: not as configured;") || got[2] != "info: validate: 2 workloads not as configured, skipped 0" {
		t.Errorf("results %q: want an error for each Deployment and the summary", got)
	}
}

// TestEmptyList: a List with no items comes out as it went in.
func TestEmptyList(t *testing.T) {
	in, out, got := run(t, linkerdPolicy, "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n")
	if out[0] != in[0] {
		t.Error("the empty List changed")
	}
	krmtest.CheckLog(t, "results", got, []string{"info: ordered 0 workloads, converted 0 to native sidecars, annotated 0, skipped 0"})
}

// TestNamespaceInAList: a Namespace annotated to skip its workloads counts
// inside a List too, for the List's workloads and for other items.
func TestNamespaceInAList(t *testing.T) {
	ns := "- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: shop\n    annotations: {sidecar-lifecycle.dev/skip: \"true\"}\n"
	in, out, got := run(t, linkerdPolicy, kubectlList(entry("apps/v1", "Deployment", "web", ""), ns), shopPod)
	if out[0] != in[0] || out[1] != in[1] {
		t.Error("a workload of the skipped Namespace changed")
	}
	krmtest.CheckLog(t, "results", got, []string{"info: ordered 0 workloads, converted 0 to native sidecars, annotated 0, skipped 2"})
}

// TestListErrors: an entry that is not a mapping fails the List, and an
// entry that fails fails the run: every item is written as it came.
func TestListErrors(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []string
	}{{
		name: "entry not a mapping",
		doc:  kubectlList(entry("apps/v1", "Deployment", "web", ""), "- just a string\n"),
		want: []string{
			`error: List with no name: items[1] must be a mapping (a resource), found the string "just a string"`,
			"info: ordered 1 workload, converted 0 to native sidecars, annotated 0, skipped 0; 1 resource failed, so nothing was changed",
		},
	}, {
		name: "duplicate items",
		doc:  "apiVersion: v1\nkind: List\nitems: []\nitems: []\n",
		want: []string{
			`error: List with no name items: duplicate key "items": remove one; the API server rejects duplicate fields and this function would read only the first`,
			"info: ordered 1 workload, converted 0 to native sidecars, annotated 0, skipped 0; 1 resource failed, so nothing was changed",
		},
	}, {
		name: "entry that fails",
		doc:  kubectlList(entry("apps/v1", "Deployment", "web", ""), "- apiVersion: v1\n  kind: Pod\n  metadata: {name: twice, namespace: shop}\n  spec:\n    containers: [{name: a}, {name: a}]\n"),
		want: []string{
			`error: Pod shop/twice: spec.containers[1].name: found the string "a"; want unique container names: spec.containers[0].name has the same name; rename one`,
			"info: ordered 2 workloads, converted 0 to native sidecars, annotated 0, skipped 0; 1 resource failed, so nothing was changed",
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			in, out, got := run(t, linkerdPolicy, c.doc, shopPod)
			if out[0] != in[0] || out[1] != in[1] {
				t.Error("an item changed in a run that fails")
			}
			krmtest.CheckLog(t, "results", got, c.want)
		})
	}
}

// TestListResultsCarryItsFile: in kpt, an entry's results name the file of
// the List, and the orchestrator's id annotation is dropped from a changed
// List (see dropOrchestratorIDs), not from the input.
func TestListResultsCarryItsFile(t *testing.T) {
	doc := strings.Replace(kubectlList(entry("v1", "Pod", "debug", "")), "metadata:\n  resourceVersion: \"\"\n",
		"metadata:\n  annotations:\n    config.kubernetes.io/path: live/shop.yaml\n    config.kubernetes.io/index: \"0\"\n    config.k8s.io/id: \"1\"\n", 1)
	in := documents(t, doc)
	out, results := engine.New(krmtest.Config(t, linkerdPolicy)).Transform(in)
	if r := results[0]; r.File == nil || r.File.Path != "live/shop.yaml" || r.ResourceRef == nil || r.ResourceRef.Name != "debug" {
		t.Errorf("result %+v: want Pod debug in live/shop.yaml", r)
	}
	if _, ok := out[0].GetAnnotations()["config.k8s.io/id"]; ok {
		t.Error("the changed List keeps the orchestrator's id")
	}
	if _, ok := in[0].GetAnnotations()["config.k8s.io/id"]; !ok {
		t.Error("the input List lost its id")
	}
}

// TestAnchorsAcrossEntries: an entry's alias whose anchor was in an entry
// written expanded is replaced by what it referred to: the List reads back
// strictly, with the same data in the entry that kept its alias.
func TestAnchorsAcrossEntries(t *testing.T) {
	doc := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: shop, labels: &labels {app: shop}}
  spec:
    containers: [{name: app}, {name: linkerd-proxy}]
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: b, namespace: shop, labels: *labels}
`
	_, out, _ := run(t, linkerdPolicy, doc)
	var buf strings.Builder
	if err := (kio.ByteWriter{Writer: &buf}).Write(out); err != nil {
		t.Fatal(err)
	}
	if err := krmtest.Strict([]byte(buf.String())); err != nil {
		t.Fatalf("output does not read back: %v\n%s", err, buf.String())
	}
	if !strings.Contains(buf.String(), "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b, namespace: shop, labels: {app: shop}}") {
		t.Errorf("the alias of the edited entry's anchor was not replaced:\n%s", buf.String())
	}
}
