package driver_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// elisionCase is one input of the elision tests: at least elided of its
// items must be elided, and check, when set, reads the output.
type elisionCase struct {
	name   string
	in     []byte
	elided int
	check  func(t *testing.T, out string)
}

// runElided runs the function on in with elision from the item size.
func runElided(size int, in []byte) outcome {
	defer driver.SetElideFrom(size)()
	var out bytes.Buffer
	rep, err := driver.ResourceList(bytes.NewReader(in), &out)
	return outcome{out.Bytes(), rep, err}
}

// sameOutcome describes how an outcome differs from the one without elision.
func sameOutcome(got, want outcome) string {
	switch {
	case fmt.Sprint(got.err) != fmt.Sprint(want.err):
		return fmt.Sprintf("returned %v, without elision %v", got.err, want.err)
	case !bytes.Equal(got.out, want.out):
		return "output differs from the output without elision:\n" + krmtest.Diff(string(want.out), string(got.out))
	case stderrOf(got.rep) != stderrOf(want.rep):
		return "reports otherwise than without elision:\n" + krmtest.Diff(stderrOf(want.rep), stderrOf(got.rep))
	}
	return ""
}

// TestElisionChangesNothing runs every input with every workload item
// elided that can be, and without elision: the output, the error and the
// report must be the same. The inputs are the golden cases, the vendor
// corpus, the examples, the inputs kustomize and kpt sent, the generated
// corpus, the golden and vendor cases with their comments and flow styles
// dropped (so that more of their items are elided), and generated
// workloads with large environments (see elisionLists).
func TestElisionChangesNothing(t *testing.T) {
	var cases []elisionCase
	groups := map[string][]differential{"golden": goldenLists(t), "vendor": vendorLists(t),
		"other": append(append(exampleLists(t), toolLists(t)...), corpusLists(t, 20)...)}
	groups["block style"] = blockStyle(t, append(append(groups["golden"], groups["vendor"]...), groups["other"]...))
	for _, group := range []string{"golden", "vendor", "other", "block style"} {
		elided := 0
		for _, d := range groups[group] {
			cases = append(cases, elisionCase{name: group + "/" + d.name, in: d.in})
			elided += elidedItems(t, d.in, 0)
		}
		t.Logf("%s: %d items elided in %d lists", group, elided, len(groups[group]))
		if group == "block style" && elided == 0 {
			t.Errorf("%s: no item is elided", group)
		}
	}
	for _, c := range append(cases, elisionLists(t)...) {
		t.Run(c.name, func(t *testing.T) {
			if n := elidedItems(t, c.in, 0); n < c.elided {
				t.Errorf("%d items elided, want %d", n, c.elided)
			}
			on, off := runElided(0, c.in), runElided(math.MaxInt, c.in)
			if p := sameOutcome(on, off); p != "" {
				t.Fatal(p)
			}
			if c.check != nil {
				c.check(t, string(on.out))
			}
		})
	}
}

// elidedItems is the number of items of the list elided from the size.
func elidedItems(t *testing.T, in []byte, size int) int {
	t.Helper()
	defer driver.SetElideFrom(size)()
	n, err := driver.ElidedItems(in)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestElisionThreshold: a workload item under the threshold is parsed
// whole; one over it, here a quarter of a MiB of environment, is elided.
func TestElisionThreshold(t *testing.T) {
	small := listOf(t, corpus.FunctionConfig, deployment(nil, []string{app("app", 10), linkerdProxy}))
	large := listOf(t, corpus.FunctionConfig, deployment(nil, []string{app("app", 3000), linkerdProxy}))
	if len(large) < 256<<10 {
		t.Fatalf("the large list is %d bytes", len(large))
	}
	for _, c := range []struct {
		name string
		in   []byte
		want int
	}{{"small", small, 0}, {"large", large, 1}} {
		if n, err := driver.ElidedItems(c.in); err != nil || n != c.want {
			t.Errorf("%s: %d items elided, %v; want %d", c.name, n, err, c.want)
		}
	}
}

// vendorLists builds the ResourceList of every vendor case in every mode.
func vendorLists(t testing.TB) []differential {
	dirs, err := filepath.Glob("testdata/vendor/*/items.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no vendor cases: %v", err)
	}
	var out []differential
	for _, itemsPath := range dirs {
		dir := filepath.Dir(itemsPath)
		items, _ := os.ReadFile(itemsPath)
		for _, mode := range vendorModes {
			cfg, err := os.ReadFile(filepath.Join(dir, mode+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			rl, err := krmtest.ResourceList(items, cfg)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			out = append(out, differential{name: filepath.Base(dir) + "/" + mode, in: rl})
		}
	}
	return out
}

// blockStyle rewrites each list's items without comments, with every
// mapping and sequence in block style: items as the writer writes such
// items, which the streaming path may elide. A list that does not read
// back is left out.
func blockStyle(t testing.TB, lists []differential) []differential {
	var out []differential
	for _, d := range lists {
		r := &kio.ByteReader{Reader: bytes.NewReader(d.in), OmitReaderAnnotations: true}
		nodes, err := r.Read()
		if err != nil {
			continue
		}
		for _, n := range nodes {
			plain(n.YNode())
		}
		var items bytes.Buffer
		if err := (kio.ByteWriter{Writer: &items}).Write(nodes); err != nil {
			t.Fatal(err)
		}
		var cfg []byte
		if r.FunctionConfig != nil {
			s, err := r.FunctionConfig.String()
			if err != nil {
				t.Fatal(err)
			}
			cfg = []byte(s)
		}
		rl, err := krmtest.ResourceList(items.Bytes(), cfg)
		if err != nil {
			continue
		}
		out = append(out, differential{name: d.name, in: rl})
	}
	return out
}

// plain drops the comments of a node tree and writes its collections in
// block style.
func plain(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = 0
	}
	for _, c := range n.Content {
		plain(c)
	}
}
