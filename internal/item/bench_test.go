package item

import (
	"bytes"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// typicalDeployment is a meshed Deployment of the benchmark corpus: an app
// container with probes, the Linkerd proxy second, a log shipper, comments.
func typicalDeployment(b *testing.B) *yaml.RNode {
	b.Helper()
	for _, item := range corpusItems(b, 2) {
		if item.GetKind() == "Deployment" {
			return item
		}
	}
	b.Fatal("no Deployment in the corpus")
	return nil
}

// corpusItems are the items of the benchmark corpus of n workloads.
func corpusItems(tb testing.TB, n int) []*yaml.RNode {
	tb.Helper()
	var list bytes.Buffer
	if err := corpus.Write(&list, n); err != nil {
		tb.Fatal(err)
	}
	items, err := (&kio.ByteReader{Reader: &list, OmitReaderAnnotations: true}).Read()
	if err != nil {
		tb.Fatal(err)
	}
	return items
}

func benchConfig(b *testing.B) *config.SidecarLifecycle {
	b.Helper()
	cfg, err := config.LoadBytes([]byte(corpus.FunctionConfig))
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkItem is the transformer's cost for one typical workload: the
// plan, a copy of the item and the ordered-mode edits.
func BenchmarkItem(b *testing.B) {
	item := typicalDeployment(b)
	tr := New(benchConfig(b))
	b.ReportAllocs()
	for b.Loop() {
		if r := tr.edit1(item); r.Outcome != OutcomeOrdered {
			b.Fatalf("outcome %v, want Ordered", r.Outcome)
		}
	}
}

// BenchmarkItemRoundTrip is one item through the streaming path's steps:
// parse its text, edit it, encode it.
func BenchmarkItemRoundTrip(b *testing.B) {
	text, err := emit.ItemText(typicalDeployment(b))
	if err != nil {
		b.Fatal(err)
	}
	tr := New(benchConfig(b))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		item, err := yamlio.ParseItem(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := emit.ItemText(tr.edit1(item).Node); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkItemZeroConfig is BenchmarkItem with no functionConfig: every
// entry of the catalog is recognised, as users run the function by
// default. It should cost no more than a config naming one preset.
func BenchmarkItemZeroConfig(b *testing.B) {
	item := typicalDeployment(b)
	cfg, err := config.Load(nil)
	if err != nil {
		b.Fatal(err)
	}
	tr := New(cfg)
	b.ReportAllocs()
	for b.Loop() {
		if r := tr.edit1(item); r.Outcome != OutcomeOrdered {
			b.Fatalf("outcome %v, want Ordered", r.Outcome)
		}
	}
}

// edit1 edits one item as Editor.Edit does, with no Namespace noted.
func (t *Editor) edit1(item *yaml.RNode) Result {
	w, _ := workload.Find(item, t.Config.Spec.PodSpecPaths)
	return t.item(item, w, nil)
}
