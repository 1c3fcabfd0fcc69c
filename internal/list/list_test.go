package list_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
)

func TestItems(t *testing.T) {
	for _, c := range []struct {
		name, item string
		want       int // entries; -1: not a List
	}{
		{"kubectl's List", "apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n- {apiVersion: v1, kind: Pod}\n- {apiVersion: v1, kind: Pod}\n", 2},
		{"typed list", "apiVersion: apps/v1\nkind: DeploymentList\nmetadata: {resourceVersion: \"42\"}\nitems: [{kind: Deployment}]\n", 1},
		{"custom resource's list", "apiVersion: argoproj.io/v1alpha1\nkind: RolloutList\nitems: []\n", 0},
		{"JSON", `{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod"}]}`, 1},
		{"empty items", "apiVersion: v1\nkind: List\nitems: []\n", 0},
		{"entries of any shape", "apiVersion: v1\nkind: List\nitems: [a, [b]]\n", 2},
		{"null items", "apiVersion: v1\nkind: List\nitems: null\n", -1},
		{"no items", "apiVersion: v1\nkind: List\n", -1},
		{"items not a sequence", "apiVersion: v1\nkind: List\nitems: {a: b}\n", -1},
		{"a kind not ending in List", "apiVersion: v1\nkind: ConfigMap\nitems: [{kind: Pod}]\n", -1},
		{"a function's ResourceList", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{kind: Pod}]\n", -1},
		{"not a mapping", "[a]\n", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			entries, ok := list.Items(yaml.MustParse(c.item))
			if got := map[bool]int{true: len(entries), false: -1}[ok]; got != c.want {
				t.Errorf("Items = %d entries, List %v; want %d (-1: not a List)", len(entries), ok, c.want)
			}
		})
	}
}

// TestWith: the List comes back with the new entries, its comments and
// other fields kept, and the input List, metadata included, unchanged.
func TestWith(t *testing.T) {
	const in = `# live objects
apiVersion: v1
items: # from kubectl
- kind: Pod # first
  metadata: {name: a}
- kind: Pod
  metadata: {name: b}
kind: List
metadata:
  resourceVersion: ""
  annotations: {config.k8s.io/id: "1"}
`
	item := yaml.MustParse(in)
	entries, _ := list.Items(item)
	edited := yaml.MustParse("kind: Pod # edited\nmetadata: {name: b}\n").YNode()
	out := list.With(item, []*yaml.Node{entries[0], edited})
	if err := out.PipeE(yaml.ClearAnnotation("config.k8s.io/id")); err != nil {
		t.Fatal(err)
	}
	if got := item.MustString(); got != in {
		t.Errorf("the input List changed:\n%s", got)
	}
	got := out.MustString()
	for _, want := range []string{"# live objects", "items: # from kubectl", "- kind: Pod # first", "- kind: Pod # edited", "kind: List", "resourceVersion: \"\""} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "config.k8s.io/id") {
		t.Errorf("the copy's annotation was not removed:\n%s", got)
	}
	if e, _ := list.Items(out); len(e) != 2 || e[0] != entries[0] {
		t.Errorf("the unchanged entry is not the input's node")
	}
}

func TestWithout(t *testing.T) {
	item := yaml.MustParse("apiVersion: v1\nitems: [{kind: Pod}]\nkind: List\n")
	if got, want := list.Without(item).MustString(), "apiVersion: v1\nkind: List\n"; got != want {
		t.Errorf("Without = %q, want %q", got, want)
	}
	if _, ok := list.Items(item); !ok {
		t.Error("Without changed the List")
	}
}
