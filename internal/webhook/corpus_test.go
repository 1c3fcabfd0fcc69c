package webhook

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestWebhookAgreesWithMutate: every Pod of the driver's golden inputs,
// and a Pod made from every pod template there, comes out of /mutate as
// the mutate verb (the plain stream) writes it with the catalog's
// defaults, and /validate gives the findings the validate verb gives.
func TestWebhookAgreesWithMutate(t *testing.T) {
	pods := corpusPods(t)
	if len(pods) < 30 {
		t.Fatalf("only %d pods", len(pods))
	}
	h := newHandler(t, nil)
	check := config.ActionValidate
	patched, found := 0, 0
	for i, pod := range pods {
		name := pod.GetNamespace() + "/" + pod.GetName()
		raw, err := yamlio.AppendJSON(nil, pod.YNode())
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := plain(t, pod, "")
		_, resp := post(t, h.Mutate(), reviewBody(t, "m", raw))
		if resp == nil || !resp.Allowed {
			t.Fatalf("%s: %+v", name, resp)
		}
		if err != nil {
			// An error result writes nothing; the webhook admits unchanged.
			if resp.Patch != nil {
				t.Errorf("%s: a patch where mutate fails: %v", name, err)
			}
			continue
		}
		got := raw
		if resp.Patch != nil {
			got = applyPatch(t, raw, resp)
			patched++
		}
		if !sameJSON(t, got, want) {
			t.Errorf("pod %d %s: /mutate\n%s\nmutate\n%s", i, name, got, want)
		}
		_, findings, _ := plain(t, pod, check)
		_, vresp := post(t, h.Validate(), reviewBody(t, "v", raw))
		if len(withoutSummary(findings)) > 0 {
			found++
		}
		if vresp == nil || !reflect.DeepEqual(withoutSummary(vresp.Warnings), withoutSummary(findings)) {
			t.Errorf("pod %d %s: /validate warnings\n%q\nvalidate\n%q", i, name, vresp.Warnings, findings)
		}
	}
	t.Logf("%d pods, %d patched, %d with findings", len(pods), patched, found)
	if patched < 10 || found < 10 {
		t.Errorf("only %d pods patched and %d with findings: the corpus proves little", patched, found)
	}
}

// plain runs the pod alone through the plain stream with the catalog's
// defaults and action (mutate when empty): the pod written, as JSON, the
// findings as the webhook words them, and the run's error.
func plain(t *testing.T, pod *yaml.RNode, action config.Action) ([]byte, []string, error) {
	t.Helper()
	var cfg *yaml.RNode
	if action != "" {
		cfg = yaml.MustParse("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  action: " + string(action) + "\n")
	}
	var out bytes.Buffer
	rep, err := driver.PlainStream(cfg, strings.NewReader(pod.MustString()), &out)
	written := out.Bytes()
	if out.Len() == 0 {
		written = []byte(pod.MustString()) // an error result writes nothing
	}
	n, err := yaml.Parse(string(written))
	if err != nil {
		t.Fatal(err)
	}
	b, err := yamlio.AppendJSON(nil, n.YNode())
	if err != nil {
		t.Fatal(err)
	}
	return b, findingsOf(rep.Problems), err
}

// withoutSummary drops the run's closing summary line, which counts
// workloads and so differs between a stream and one review.
func withoutSummary(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, "workload") || !strings.Contains(l, "checked") {
			out = append(out, l)
		}
	}
	return out
}

// corpusPods are the Pods of the driver's golden inputs, and a Pod with
// the metadata and spec of every pod template there.
func corpusPods(t *testing.T) []*yaml.RNode {
	t.Helper()
	files, _ := filepath.Glob("../driver/testdata/*/items.yaml")
	var pods []*yaml.RNode
	for _, f := range files {
		for _, item := range readItems(t, f) {
			if duplicateKey(item.YNode()) || aliased(item.YNode()) {
				continue
			}
			switch item.GetKind() {
			case "Pod":
				pods = append(pods, item)
			case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job":
				tmpl, err := item.Pipe(yaml.Lookup("spec", "template"))
				if err != nil || tmpl == nil || tmpl.Field("spec") == nil {
					continue
				}
				pod := yaml.MustParse("apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + item.GetName() + "-0\n")
				if ns := item.GetNamespace(); ns != "" {
					_ = pod.SetNamespace(ns)
				}
				if m := tmpl.Field("metadata"); m != nil {
					for _, k := range []string{"labels", "annotations"} {
						if v := m.Value.Field(k); v != nil {
							_ = pod.PipeE(yaml.Lookup("metadata"), yaml.SetField(k, v.Value.Copy()))
						}
					}
				}
				_ = pod.PipeE(yaml.SetField("spec", tmpl.Field("spec").Value.Copy()))
				pods = append(pods, pod)
			}
		}
	}
	return pods
}

// aliased reports whether n or a node under it is an alias or an anchor:
// JSON has neither, so no admitted object does.
func aliased(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	for _, c := range n.Content {
		if aliased(c) {
			return true
		}
	}
	return false
}
