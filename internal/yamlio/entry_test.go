package yamlio

import (
	"strings"
	"testing"
)

// deploymentList is a ResourceList with one Deployment whose application
// container has an env, in the writer's form, with extra appended to the
// env's last entry.
func deploymentList(extra string) string {
	return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		"- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    template:\n      spec:\n" +
		"        containers:\n        - name: app\n          image: app\n          env:\n          - name: A\n            value: b" + extra + "\n" +
		"        - name: proxy\n          image: proxy\n"
}

func firstItem(t *testing.T, list string) (*Input, []byte) {
	t.Helper()
	in, err := Read(strings.NewReader(list), Options{})
	if err != nil || in.Layout == nil {
		t.Fatalf("the list does not split: %v", err)
	}
	t.Cleanup(func() { in.Close() })
	text, err := in.Item(0)
	if err != nil {
		t.Fatal(err)
	}
	return in, text
}

// TestEntryScans: ScanItem reads an item in the writer's form, declines
// one that is not and any item of a JSON list; ScanDocument reads a
// document's apiVersion and kind.
func TestEntryScans(t *testing.T) {
	in, text := firstItem(t, deploymentList(""))
	if s, ok := in.ScanItem(text); !ok || s.APIVersion != "apps/v1" || s.Kind != "Deployment" {
		t.Errorf("ScanItem = %+v, %v", s, ok)
	}
	in, text = firstItem(t, deploymentList(" # c"))
	if s, ok := in.ScanItem(text); ok {
		t.Errorf("ScanItem reads an item with a line comment: %+v", s)
	}
	in, text = firstItem(t, `{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "ConfigMap"}]}`+"\n")
	if !in.Layout.JSON {
		t.Fatal("the JSON list is not read as JSON")
	}
	if s, ok := in.ScanItem(text); ok {
		t.Errorf("ScanItem reads an item of a JSON list: %+v\n%s", s, text)
	}
	if s, ok := ScanDocument([]byte("apiVersion: v1\nkind: ConfigMap\n")); !ok || s.Kind != "ConfigMap" {
		t.Errorf("ScanDocument = %+v, %v", s, ok)
	}
}

// TestEntryElides: Elide elides the env of a container the run does not
// take for a sidecar, and declines an item with a comment after its first
// key, with an escape, or of a kind with no pod spec.
func TestEntryElides(t *testing.T) {
	podSpec := func(apiVersion, kind string) ([]string, bool) {
		return []string{"spec", "template", "spec"}, kind == "Deployment"
	}
	sidecar := func(name, _ string) bool { return name == "proxy" }
	in, text := firstItem(t, deploymentList(""))
	it, ok := in.Elide(text, podSpec, sidecar)
	if !ok || it.Elided() != 1 || strings.Contains(string(it.Text), "name: A") {
		t.Fatalf("Elide = %v; want the app's env elided", ok)
	}
	if back, ok := it.Restore(it.Text); !ok || string(back) != string(text) {
		t.Errorf("Restore gives\n%s\nwant\n%s", back, text)
	}
	for _, extra := range []string{"\n          # c", " \\t", "é"} {
		in, text := firstItem(t, deploymentList(extra))
		if _, ok := in.Elide(text, podSpec, sidecar); ok {
			t.Errorf("Elide takes\n%s", text)
		}
	}
	in, text = firstItem(t, strings.Replace(deploymentList(""), "kind: Deployment", "kind: Widget", 1))
	if _, ok := in.Elide(text, podSpec, sidecar); ok {
		t.Error("Elide takes a kind with no pod spec")
	}
}
