package engine_test

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

const (
	skipShop = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations: {sidecar-lifecycle.dev/skip: \"true\"}\n"
	shopPod  = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers: [{name: app}, {name: linkerd-proxy}]\n"
	twicePod = "apiVersion: v1\nkind: Pod\nmetadata: {name: \"bad\\nname\"}\nspec:\n  containers: [{name: a}, {name: a}]\n"
)

func items(t *testing.T, docs ...string) []*yaml.RNode {
	t.Helper()
	out, err := kio.FromBytes([]byte(strings.Join(docs, "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTransformerIsReusable: a Namespace that skips its workloads in one
// run does not skip them in a later run without it.
func TestTransformerIsReusable(t *testing.T) {
	tr := engine.New(krmtest.Config(t, ""))
	in := items(t, skipShop, shopPod)
	out, err := tr.Filter(in)
	if err != nil || out[1].MustString() != in[1].MustString() {
		t.Fatalf("first run: err %v; the skipped Namespace's Pod changed:\n%s", err, out[1].MustString())
	}
	alone := items(t, shopPod)
	out, err = tr.Filter(alone)
	if err != nil || out[0].MustString() == alone[0].MustString() {
		t.Errorf("second run: err %v; the Pod, with no Namespace skipping it now, did not change", err)
	}
}

// TestFilterErrorIsEscaped: the kio.Filter's error lists every error result
// as the command line prints it: one line, input text escaped.
func TestFilterErrorIsEscaped(t *testing.T) {
	bad := strings.Replace(twicePod, "bad\\nname", "second", 1)
	_, err := engine.New(krmtest.Config(t, "")).Filter(items(t, twicePod, bad))
	if !errors.Is(err, report.ErrResults) {
		t.Fatalf("Filter = %v, want error results", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, `Pod "bad\nname": `) || !strings.Contains(msg, "; Pod second: ") {
		t.Errorf("error %q: want one line naming both Pods, the first name escaped", msg)
	}
}

// TestEngineRestartsOnTheFirstFailure: the engine hands out edited items
// until an item fails, then asks for every item again and writes each as
// it came, without the changes it would have made; the summary counts
// every item once.
func TestEngineRestartsOnTheFirstFailure(t *testing.T) {
	in := items(t, strings.Replace(shopPod, "namespace: shop", "namespace: web", 1), twicePod, shopPod)
	e := engine.New(krmtest.Config(t, "")).Start()
	first, err := e.Add(e.Edit(in[0]))
	if err != nil || first.Node == in[0] {
		t.Fatalf("first item: err %v, edited %v; want it edited", err, first.Node != in[0])
	}
	if _, err := e.Add(e.Edit(in[1])); !errors.Is(err, engine.ErrRestart) {
		t.Fatalf("failed item: Add = %v, want ErrRestart", err)
	}
	var problems []string
	for i, item := range in {
		w, err := e.Add(e.Edit(item))
		if err != nil || w.Node != item {
			t.Fatalf("item %d again: err %v; written as it came: %v", i, err, w.Node == item)
		}
		for _, r := range w.Results {
			problems = append(problems, string(r.Severity)+": "+report.Line(r))
		}
	}
	if len(problems) != 1 || !strings.HasPrefix(problems[0], `error: Pod "bad\nname": `) {
		t.Errorf("results %q, want the one error and no changes", problems)
	}
	closing := e.Close()
	if msg := closing[len(closing)-1].Message; msg != "ordered 2 workloads, converted 0 to native sidecars, annotated 0, skipped 0; 1 resource failed, so nothing was changed" {
		t.Errorf("summary %q", msg)
	}
}

// TestWrittenChanged: Written.Changed is set exactly for an item an edit
// changed (a List for a changed entry), with action mutate; an item
// nothing changed is not Changed, though it is written as a copy whose
// comments read back in place.
func TestWrittenChanged(t *testing.T) {
	// The comment before B, then a blank line, is read onto A's first key.
	moving := "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n  - port: 443\n# at the first column\n\n  - protocol: TCP\n    port: 80\n"
	podList := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(shopPod, "\n"), "\n", "\n  ") + "\n"
	for _, c := range []struct {
		name, doc, action string
		changed, copied   bool
	}{
		{"unchanged", moving, "mutate", false, true},
		{"changed", shopPod, "mutate", true, true},
		{"changed, with action validate", shopPod, "validate", false, false},
		{"a List with a changed entry", podList, "mutate", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := krmtest.Config(t, "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec: {action: "+c.action+"}\n")
			item := krmtest.Parse(t, c.doc)
			w := engine.New(cfg).Start().Edit(item).Written()
			if w.Changed != c.changed || (w.Node != item) != c.copied {
				t.Errorf("Changed %v, a copy %v; want %v, %v", w.Changed, w.Node != item, c.changed, c.copied)
			}
		})
	}
}
