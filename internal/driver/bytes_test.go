package driver_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
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
// health-check example), of the catalog corpus and of testdata/published
// (the vendors' charts, manifests and injector goldens), with no config.
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
	published, _ := filepath.Glob("testdata/published/*/*.y*ml")
	for _, p := range slices.Concat(vendor, catalog, published) {
		if b := filepath.Base(p); b == "expect.yaml" || b == "source.yaml" {
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
// head, body and tail (see yamlio.Documents).
func documentTexts(t *testing.T, text []byte) []string {
	t.Helper()
	docs, err := yamlio.ReadDocuments(bytes.NewReader(text), yamlio.Options{})
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

// rewrittenDocuments describes the first document of a plain stream's
// output that holds the same data as the input's document at its place
// but not the same bytes, or says that the documents are not the same
// number; it is empty when there is none.
func rewrittenDocuments(t *testing.T, input, output []byte) string {
	t.Helper()
	in, out := documentTexts(t, input), documentTexts(t, output)
	if len(in) != len(out) {
		return fmt.Sprintf("%d documents in, %d out:\n%s", len(in), len(out), output)
	}
	for i := range in {
		a, okA := streamData([]byte(in[i]))
		b, okB := streamData([]byte(out[i]))
		if okA && okB && reflect.DeepEqual(a, b) && in[i] != out[i] {
			return fmt.Sprintf("document %d holds the same data but was rewritten:\n%s", i, krmtest.Diff(in[i], out[i]))
		}
	}
	return ""
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
				if problem := rewrittenDocuments(t, c.items, out.Bytes()); problem != "" {
					t.Error(problem)
				}
			})
		}
	}
}

// writerForm is a ResourceList as kyaml's ByteReadWriter reads and writes
// it, with no edit.
func writerForm(t *testing.T, rl []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(rl), Writer: &out, OmitReaderAnnotations: true, KeepReaderAnnotations: true}
	nodes, err := rw.Read()
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Write(nodes); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// itemTexts cuts the items of a ResourceList in kyaml's ByteWriter form
// out of its text: each from its "- " line at the first column, with the
// comment lines at that column right before it, to the next item or the
// next key of the list.
func itemTexts(rl []byte) []string {
	var items []string
	var pending string
	in := false
	for _, line := range strings.SplitAfter(string(rl), "\n") {
		switch {
		case line == "items:\n":
			in = true
		case !in:
		case strings.HasPrefix(line, "- "):
			items = append(items, pending+line)
			pending = ""
		case strings.HasPrefix(line, "#"):
			pending += line
		case strings.HasPrefix(line, " ") || line == "\n":
			if len(items) > 0 {
				items[len(items)-1] += pending + line
				pending = ""
			}
		default:
			in = false
			if len(items) > 0 {
				items[len(items)-1] += pending
			}
			pending = ""
		}
	}
	return items
}

// TestResourceListUntouchedByteForByte: in a ResourceList, an item the run
// does not change and that is already as kyaml's ByteWriter writes it
// (its round trip gives its own bytes) comes out byte-identical, on the
// streaming and the whole-list path, whatever the run reports about it.
func TestResourceListUntouchedByteForByte(t *testing.T) {
	for _, c := range byteInputs(t) {
		for name, cfg := range byteConfigs(t, c) {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				rl, err := krmtest.ResourceList(c.items, cfg)
				if err != nil {
					t.Skip(err) // not items kyaml reads
				}
				rl = writerForm(t, rl)
				inTexts, again := itemTexts(rl), itemTexts(writerForm(t, rl))
				in, err := krmtest.Split(rl)
				if err != nil || len(in.Items) != len(inTexts) || len(again) != len(inTexts) {
					t.Fatalf("%d items, %d cut out (%v):\n%s", len(in.Items), len(inTexts), err, rl)
				}
				for path, runPath := range map[string]func(io.Reader, io.Writer) error{
					"streamed": driver.Run,
					"whole": func(r io.Reader, w io.Writer) error {
						_, err := driver.RunWholeList(r, w)
						return err
					},
				} {
					var out bytes.Buffer
					if err := runPath(bytes.NewReader(rl), &out); err != nil && !errors.Is(err, report.ErrResults) {
						t.Fatalf("%s: %v", path, err)
					}
					o, err := krmtest.Split(out.Bytes())
					got := itemTexts(out.Bytes())
					if err != nil || len(o.Items) != len(in.Items) || len(got) != len(in.Items) {
						t.Fatalf("%s: %d items in, %d out, %d cut out (%v)", path, len(in.Items), len(o.Items), len(got), err)
					}
					for i := range inTexts {
						if inTexts[i] == again[i] && krmtest.SameData(in.Items[i], o.Items[i]) && got[i] != inTexts[i] {
							t.Errorf("%s: item %d holds the same data but was rewritten:\n%s", path, i, krmtest.Diff(inTexts[i], got[i]))
						}
					}
				}
			})
		}
	}
}

// TestValidateFailsExactlyWhenMutateChanges: with action validate the run
// has an error result that mutate does not also give as a warning exactly
// when action mutate, with the same config otherwise, would change an item
// or fails itself. The termination budget's breaks are the one exception
// the design makes: warnings with mutate, errors with validate, whether or
// not mutate changes anything (docs/decisions.md). The plain stream's
// validate fails exactly when the ResourceList's does.
func TestValidateFailsExactlyWhenMutateChanges(t *testing.T) {
	checked := 0
	for _, c := range byteInputs(t) {
		for _, mode := range []string{"ordered", "native"} {
			rl, err := krmtest.ResourceList(c.items, withSpec(t, c.config, mode, "mutate"))
			if err != nil {
				continue // not items kyaml reads: the error cases test them
			}
			checked++
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				in, _ := krmtest.Split(rl)
				out, mutateErr := run(t, rl)
				o, err := krmtest.Split(out)
				if err != nil || len(o.Items) != len(in.Items) {
					t.Fatalf("%d items in, %d out (%v)", len(in.Items), len(o.Items), err)
				}
				var changed []string
				for i := range in.Items {
					if !krmtest.SameData(in.Items[i], o.Items[i]) {
						changed = append(changed, krmtest.ID(in.Items[i]))
					}
				}
				warned := map[string]bool{}
				for _, r := range o.ResultList() {
					if r.Severity == "warning" {
						warned[r.Message] = true
					}
				}
				check, _ := krmtest.ResourceList(c.items, withSpec(t, c.config, mode, "validate"))
				vout, validateErr := run(t, check)
				v, _ := krmtest.Split(vout)
				var notBreaks []string
				for _, r := range v.ResultList() {
					if r.Severity == "error" && !warned[r.Message] {
						notBreaks = append(notBreaks, r.Message)
					}
				}
				switch {
				case mutateErr != nil && validateErr == nil:
					t.Errorf("mutate fails, validate passes: %v", mutateErr)
				case mutateErr == nil && (len(changed) > 0) != (len(notBreaks) > 0):
					t.Errorf("mutate changes %v; validate's errors other than budget breaks: %q", changed, notBreaks)
				}
				var plain bytes.Buffer
				_, plainErr := driver.PlainStream(krmtest.Parse(t, string(withSpec(t, c.config, mode, "validate"))), bytes.NewReader(c.items), &plain)
				if (plainErr != nil) != (validateErr != nil) {
					t.Errorf("validate of the plain stream: %v; of the ResourceList: %v", plainErr, validateErr)
				}
			})
		}
	}
	if checked < 100 {
		t.Errorf("checked %d inputs", checked)
	}
}
