package driver_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// byteCase is an input stream and the functionConfig it is run with (nil:
// none, the defaults).
type byteCase struct {
	name          string
	items, config []byte
}

// byteInputs are the streams the byte-for-byte tests run: every golden
// case's items with its config, the vendors' documents of
// testdata/untouched (Helm charts rendered as they come, Google's Cloud SQL
// health-check example) and of the catalog corpus, with no config.
func byteInputs(t *testing.T) []byteCase {
	t.Helper()
	var cases []byteCase
	golden, _ := filepath.Glob("testdata/*/items.yaml")
	for _, p := range golden {
		dir := filepath.Dir(p)
		items, _ := os.ReadFile(p)
		cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
		cases = append(cases, byteCase{filepath.Base(dir), items, cfg})
	}
	vendor, _ := filepath.Glob("testdata/untouched/*.yaml")
	catalog, _ := filepath.Glob("testdata/catalog/*/*.y*ml")
	for _, p := range append(vendor, catalog...) {
		if filepath.Base(p) == "expect.yaml" {
			continue
		}
		items, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, byteCase{strings.TrimPrefix(p, "testdata/"), items, nil})
	}
	if len(golden) == 0 || len(vendor) == 0 {
		t.Fatal("no inputs")
	}
	return cases
}

// withSpec is the config with spec.mode and spec.action set (data.mode and
// data.action in the ConfigMap form); a nil config is the defaults'.
func withSpec(t *testing.T, config []byte, mode, action string) []byte {
	t.Helper()
	if len(bytes.TrimSpace(config)) == 0 {
		config = []byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: defaults}\n")
	}
	node, err := yaml.Parse(string(config))
	if err != nil {
		t.Fatal(err)
	}
	field := "spec"
	if node.GetKind() == "ConfigMap" {
		field = "data"
	}
	for key, value := range map[string]string{"mode": mode, "action": action} {
		if err := node.PipeE(yaml.LookupCreate(yaml.MappingNode, field), yaml.SetField(key, yaml.NewStringRNode(value))); err != nil {
			t.Fatal(err)
		}
	}
	return []byte(node.MustString())
}

// byteConfigs are the configs each input runs with: its own, and ordered
// and native, mutate and validate on top of it.
func byteConfigs(t *testing.T, c byteCase) map[string][]byte {
	t.Helper()
	configs := map[string][]byte{"own": c.config}
	for _, mode := range []string{"ordered", "native"} {
		for _, action := range []string{"mutate", "validate"} {
			configs[mode+"-"+action] = withSpec(t, c.config, mode, action)
		}
	}
	return configs
}

// streamData is what a piece of a YAML stream holds, every document
// decoded, comments and layout ignored; ok is false when it does not decode.
func streamData(text []byte) (data []any, ok bool) {
	// The parser reads YAML 1.1 only: "%YAML 1.2" is read as "%YAML 1.1".
	dec := yaml.NewDecoder(bytes.NewReader(bytes.ReplaceAll(text, []byte("%YAML 1.2\n"), []byte("%YAML 1.1\n"))))
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return data, true
		}
		if err != nil {
			return nil, false
		}
		data = append(data, v)
	}
}

// documentTexts splits a plain stream into its documents' texts, each its
// head, body and tail (see stream.Documents).
func documentTexts(t *testing.T, text []byte) []string {
	t.Helper()
	docs, err := stream.ReadDocuments(bytes.NewReader(text), stream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer docs.Close()
	out := make([]string, docs.Len())
	for i := range out {
		head, err1 := docs.Head(i)
		body, err2 := docs.Body(i)
		tail, err3 := docs.Tail(i)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		out[i] = string(head) + string(body) + string(tail)
	}
	return out
}

// TestPlainStreamUntouchedByteForByte: in a plain stream, every document
// the run does not change comes out as its input bytes, however the run
// read it (a Service the budget reads, a Namespace, a workload with a
// warning or a validate finding), in every mode and action; a changed one
// keeps what surrounds its content.
func TestPlainStreamUntouchedByteForByte(t *testing.T) {
	for _, c := range byteInputs(t) {
		for name, cfg := range byteConfigs(t, c) {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				var cfgNode *yaml.RNode
				if len(bytes.TrimSpace(cfg)) > 0 {
					cfgNode = krmtest.Parse(t, string(cfg))
				}
				var out bytes.Buffer
				if _, err := driver.PlainStream(cfgNode, bytes.NewReader(c.items), &out); err != nil {
					if out.Len() > 0 {
						t.Errorf("output written with the error %v", err)
					}
					return // nothing is written
				}
				in, got := documentTexts(t, c.items), documentTexts(t, out.Bytes())
				if len(in) != len(got) {
					t.Fatalf("%d documents in, %d out:\n%s", len(in), len(got), out.Bytes())
				}
				for i := range in {
					a, okA := streamData([]byte(in[i]))
					b, okB := streamData([]byte(got[i]))
					if okA && okB && reflect.DeepEqual(a, b) && in[i] != got[i] {
						t.Errorf("document %d holds the same data but was rewritten:\n%s", i, krmtest.Diff(in[i], got[i]))
					}
				}
			})
		}
	}
}
