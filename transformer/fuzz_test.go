package transformer_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer"
)

// FuzzRun feeds arbitrary stdin to the whole stdin→stdout path: it must never
// panic; when it succeeds the output is a ResourceList with as many items as
// the input; when it fails it writes nothing or a list with error results.
func FuzzRun(f *testing.F) {
	dirs, _ := filepath.Glob("testdata/*/items.yaml")
	for _, itemsPath := range dirs {
		items, _ := os.ReadFile(itemsPath)
		cfg, _ := os.ReadFile(filepath.Join(filepath.Dir(itemsPath), "config.yaml"))
		if rl, err := krmtest.ResourceList(items, cfg); err == nil {
			f.Add(rl)
		}
	}
	f.Add([]byte("kind: ResourceList\nitems: [{kind: Pod, spec: {containers: [{name: a}, {name: linkerd-proxy}]}}]\n"))
	f.Add([]byte("kind: ResourceList\nitems: [{apiVersion: v1, kind: Pod, spec: {containers: {name: a}}}]\n"))
	f.Add([]byte("kind: ResourceList\nitems:\n- &a {kind: Pod}\n- *a\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		done := make(chan string, 1)
		go func() { done <- checkRun(in) }()
		select {
		case problem := <-done:
			if problem != "" {
				t.Fatal(problem)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer within 10s on %q", in)
		}
	})
}

// checkRun runs the function on in and describes what is wrong, if anything.
func checkRun(in []byte) string {
	var out bytes.Buffer
	err := transformer.Run(bytes.NewReader(in), &out)
	switch {
	case err == nil:
		o, perr := krmtest.Split(out.Bytes())
		if perr != nil {
			return fmt.Sprintf("success with output that does not parse: %v\n%s", perr, out.String())
		}
		doc, _ := transformer.ParseResourceList(in)
		want := 0
		if f := doc.Field("items"); f != nil && f.Value.YNode().Kind == yaml.SequenceNode {
			want = len(f.Value.YNode().Content)
		}
		if len(o.Items) != want {
			return fmt.Sprintf("%d items in, %d out", want, len(o.Items))
		}
	case errors.Is(err, transformer.ErrResults):
		o, perr := krmtest.Split(out.Bytes())
		if perr != nil || !krmtest.HasErrors(o.ResultList()) {
			return fmt.Sprintf("ErrResults without error results: %v\n%s", perr, out.String())
		}
	default:
		if out.Len() != 0 {
			return fmt.Sprintf("error %v but output written", err)
		}
	}
	return ""
}
