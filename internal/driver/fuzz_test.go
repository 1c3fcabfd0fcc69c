package driver_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
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
	for _, seed := range append(shapeSeeds, formSeeds...) {
		f.Add([]byte(seed))
	}
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
	err := driver.Run(bytes.NewReader(in), &out)
	switch {
	case err == nil:
		o, perr := krmtest.Split(out.Bytes())
		if perr == nil {
			perr = krmtest.Strict(out.Bytes())
		}
		if perr != nil {
			return fmt.Sprintf("success with output that does not parse strictly: %v\n%s", perr, out.String())
		}
		doc, _ := driver.ParseResourceList(in)
		want := 0
		if f := doc.Field("items"); f != nil && f.Value.YNode().Kind == yaml.SequenceNode {
			want = len(f.Value.YNode().Content)
		}
		if len(o.Items) != want {
			return fmt.Sprintf("%d items in, %d out", want, len(o.Items))
		}
		return secondRun(out.Bytes(), o)
	case errors.Is(err, report.ErrResults):
		o, perr := krmtest.Split(out.Bytes())
		if perr != nil || !krmtest.HasErrors(o.ResultList()) {
			return fmt.Sprintf("ErrResults without error results: %v\n%s", perr, out.String())
		}
		doc, _ := driver.ParseResourceList(in)
		var items []*yaml.RNode
		if f := doc.Field("items"); f != nil && f.Value.YNode().Kind == yaml.SequenceNode {
			items, _ = f.Value.Elements()
		}
		a, _ := krmtest.Stream(bare(items))
		b, _ := krmtest.Stream(bare(o.Items))
		if !bytes.Equal(a, b) {
			return "ErrResults with changed items:\n" + krmtest.Diff(string(a), string(b))
		}
	default:
		if out.Len() != 0 {
			return fmt.Sprintf("error %v but output written", err)
		}
	}
	return ""
}

// secondRun runs the function on out, the output o of a successful run:
// it must succeed, write the same items and report no change.
func secondRun(out []byte, o krmtest.Output) string {
	var again bytes.Buffer
	if err := driver.Run(bytes.NewReader(out), &again); err != nil {
		return fmt.Sprintf("the second run failed: %v\n%s", err, out)
	}
	next, err := krmtest.Split(again.Bytes())
	if err != nil {
		return fmt.Sprintf("the second run's output does not parse: %v", err)
	}
	a, _ := krmtest.Stream(o.Items)
	b, _ := krmtest.Stream(next.Items)
	if !bytes.Equal(a, b) {
		return "not idempotent:\n" + krmtest.Diff(string(a), string(b))
	}
	for _, r := range next.ResultList() {
		if r.Severity == "info" && r.Ref != "" {
			return fmt.Sprintf("the second run reports a change to %s: %s", r.Ref, r.Message)
		}
	}
	return ""
}

// bare copies items without their comments: written with error results,
// the items are the input as kyaml reads and writes it, and kyaml's own
// round trip moves some comments.
func bare(items []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, len(items))
	for i, it := range items {
		n := yaml.CopyYNode(it.YNode())
		uncomment(n)
		out[i] = yaml.NewRNode(n)
	}
	return out
}

// uncomment clears the comments of a tree.
func uncomment(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		uncomment(c)
	}
}

// shapeSeeds are ResourceLists with YAML shapes that once came out wrong:
// aliases of the app container's anchors on the sidecar, merge keys, a
// duplicate key, anchors across items, and comment layouts of vendors'
// examples (comment blocks between blank lines, commented-out entries,
// comments at the end of a list and of an item).
var shapeSeeds = []string{
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n      env: &e [{name: A}]\n      resources: &r {requests: {cpu: 1m}}\n    - {name: linkerd-proxy, env: *e, resources: *r}\n",
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - &b {name: app, image: x}\n    - <<: *b\n      name: linkerd-proxy\n    - <<: [{name: c}, *b]\n",
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    terminationGracePeriodSeconds: 1\n    containers: [{name: app}, {name: linkerd-proxy}]\n    terminationGracePeriodSeconds: 2\n",
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec:\n    containers: [{name: app, env: &e [{name: A}]}, {name: linkerd-proxy}]\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec:\n    containers: [{name: b, env: *e}]\n",
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n    - name: linkerd-proxy\n      env:\n      - name: A\n        value: \"1\"\n\n      # why\n\n      # - name: B\n      #   value: \"2\"\n\n      # next\n      - name: C\n        value: \"3\"\n      # end of the list\n    # end of the containers\n  # end of the item\n",
}

// formSeeds are ResourceLists in the input forms orchestrators and people
// send: CRLF line breaks, a byte order mark, JSON, control characters and
// line breaks in names, and comment blocks between blank lines between
// items and after the last one.
var formSeeds = []string{
	"kind: ResourceList\r\nitems:\r\n- apiVersion: v1\r\n  kind: Pod\r\n  metadata: {name: p}\r\n  spec:\r\n    containers:\r\n    - name: app\r\n    # proxy\r\n    - name: linkerd-proxy\r\n",
	"\ufeffkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: app}, {name: linkerd-proxy}]}\n",
	`{"kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "app"}, {"name": "linkerd-proxy"}]}}]}`,
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: \"p\\n::error x\\e[31m\"}\n  spec: {containers: [{name: \"a\\tb\"}, {name: linkerd-proxy}], terminationGracePeriodSeconds: x}\n",
	"kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: one\n# a\n\n\n# b\n\n# c\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: two\n  # end of two\n\n# after the last item\n",
}
