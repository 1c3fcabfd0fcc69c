package engine_test

import (
	"errors"
	"fmt"
	"slices"
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

// memoryPass is a Pass over items held in memory: it records what is
// written for each item, how often each is prepared, and where the run
// learnt of a failure.
type memoryPass struct {
	items    []*yaml.RNode
	prepared []int
	written  []*engine.Written
	failedAt int
}

func (m *memoryPass) pass(e *engine.Engine) engine.Pass[int] {
	m.prepared, m.written, m.failedAt = make([]int, len(m.items)), make([]*engine.Written, len(m.items)), -1
	return engine.Pass[int]{
		Len: len(m.items), Window: 1,
		Prepare: func(i int) (int, *engine.Edit, error) {
			m.prepared[i]++
			ed := e.Edit(m.items[i])
			return i, &ed, nil
		},
		Write: func(i int, _ int, w *engine.Written) error {
			m.written[i] = w
			return nil
		},
		Failed: func(k int) error {
			if m.failedAt >= 0 {
				return fmt.Errorf("told twice of a failure: at %d and %d", m.failedAt, k)
			}
			m.failedAt = k
			for i := range k {
				m.written[i] = nil // to be written again as it came
			}
			return nil
		},
	}
}

// TestRunOnTheFirstFailure: the run hands out edited items until an item
// fails, then tells the driver to write the items before it again as they
// came, and writes every item from there as it came, without the changes
// it would have made; no item is prepared twice, and the summary counts
// every item once.
func TestRunOnTheFirstFailure(t *testing.T) {
	m := &memoryPass{items: items(t, strings.Replace(shopPod, "namespace: shop", "namespace: web", 1), twicePod, shopPod)}
	e := engine.New(krmtest.Config(t, "")).Start()
	closing, err := engine.Run(e, m.pass(e))
	if err != nil {
		t.Fatal(err)
	}
	if m.failedAt != 1 {
		t.Fatalf("told of the failure at %d, want 1", m.failedAt)
	}
	if !slices.Equal(m.prepared, []int{1, 1, 1}) {
		t.Errorf("items prepared %v times, want once each", m.prepared)
	}
	if m.written[0] != nil {
		t.Error("the item before the failure was written again by the run: the driver writes it as it came")
	}
	var problems []string
	for i, w := range m.written[1:] {
		if w.Node != m.items[i+1] || w.Changed {
			t.Errorf("item %d not written as it came", i+1)
		}
		for _, r := range w.Results {
			problems = append(problems, string(r.Severity)+": "+report.Line(r))
		}
	}
	if len(problems) != 1 || !strings.HasPrefix(problems[0], `error: Pod "bad\nname": `) {
		t.Errorf("results %q, want the one error and no changes", problems)
	}
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
			w := engine.New(cfg).Start().Edit(item).Written
			if w.Changed != c.changed || (w.Node != item) != c.copied {
				t.Errorf("Changed %v, a copy %v; want %v, %v", w.Changed, w.Node != item, c.changed, c.copied)
			}
		})
	}
}
