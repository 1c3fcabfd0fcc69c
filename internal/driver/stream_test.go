package driver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/yamltest"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// compareRuns runs the whole-list path, the streaming path alone, and the
// ResourceList entry point on in. The streaming path must write the same
// bytes and return the same error and report (what stderr shows) as the
// whole-list path whenever it takes the input; ResourceList must always
// match the whole-list path, whose output must be strict YAML when it
// succeeds. It returns whether the streaming path took the input, and
// describes the first difference.
func compareRuns(in []byte) (streamed bool, problem string) {
	var whole, streaming, def bytes.Buffer
	wholeRep, wholeErr := driver.RunWholeList(bytes.NewReader(in), &whole)
	if err := krmtest.Strict(whole.Bytes()); wholeErr == nil && err != nil {
		return false, fmt.Sprintf("the whole-list path succeeded with %v:\n%s", err, whole.Bytes())
	}
	want := outcome{whole.Bytes(), wholeRep, wholeErr}
	streamed, why, streamRep, streamErr := driver.RunStreamOnly(bytes.NewReader(in), &streaming)
	defRep, defErr := driver.ResourceList(bytes.NewReader(in), &def)
	if streamed {
		if p := sameRun("streaming", outcome{streaming.Bytes(), streamRep, streamErr}, want); p != "" {
			return true, p
		}
	} else if streamErr != nil || streaming.Len() > 0 {
		return false, fmt.Sprintf("streaming path declined (%s) but returned %v and wrote %d bytes", why, streamErr, streaming.Len())
	}
	return streamed, sameRun("ResourceList", outcome{def.Bytes(), defRep, defErr}, want)
}

// outcome is what one path returned.
type outcome struct {
	out []byte
	rep driver.Report
	err error
}

// sameRun compares one path's output, report and error with the whole-list path's.
func sameRun(name string, got, want outcome) string {
	switch {
	case (got.err == nil) != (want.err == nil):
		return fmt.Sprintf("%s returned %v, the whole-list path %v", name, got.err, want.err)
	case errors.Is(got.err, report.ErrResults) != errors.Is(want.err, report.ErrResults):
		return fmt.Sprintf("%s returned %v, the whole-list path %v", name, got.err, want.err)
	case got.err != nil && got.err.Error() != want.err.Error():
		return fmt.Sprintf("%s error %q, the whole-list path %q", name, got.err, want.err)
	case !bytes.Equal(got.out, want.out):
		return fmt.Sprintf("%s output differs from the whole-list path's:\n%s", name, krmtest.Diff(string(want.out), string(got.out)))
	}
	if g, w := stderrOf(got.rep), stderrOf(want.rep); g != w {
		return fmt.Sprintf("%s reports otherwise than the whole-list path:\n%s", name, krmtest.Diff(w, g))
	}
	return ""
}

// stderrOf is what the command line prints of a report, with the file of
// each line.
func stderrOf(rep driver.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "shown by the orchestrator: %v\n", rep.Shown)
	for _, r := range rep.Problems {
		fmt.Fprintf(&b, "%s: %s [%s]\n", r.Severity, report.Line(r), report.File(r))
	}
	return b.String()
}

// differential is one input of the differential test.
type differential struct {
	name string
	in   []byte
	// mustStream is set when the streaming path has to take the input,
	// mustDecline when it has to hand it to the whole-list path.
	mustStream, mustDecline bool
}

// goldenLists builds the ResourceList of every golden case.
func goldenLists(t testing.TB) []differential {
	dirs, err := filepath.Glob("testdata/*/items.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	var out []differential
	for _, itemsPath := range dirs {
		dir := filepath.Dir(itemsPath)
		items, _ := os.ReadFile(itemsPath)
		cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
		rl, err := krmtest.ResourceList(items, cfg)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out = append(out, differential{name: "golden/" + filepath.Base(dir), in: rl, mustStream: true})
	}
	return out
}

// exampleLists builds a ResourceList from each example package's resources
// and functionConfig.
func exampleLists(t testing.TB) []differential {
	var out []differential
	for _, ex := range []struct{ dir, config string }{
		{"../../examples/kustomize-exec", "sidecar-lifecycle.yaml"},
		{"../../examples/kpt-exec/orders", "sidecar-lifecycle.yaml"},
	} {
		files, _ := filepath.Glob(filepath.Join(ex.dir, "*.yaml"))
		files2, _ := filepath.Glob(filepath.Join(ex.dir, "Kptfile"))
		files = append(files, files2...)
		sort.Strings(files)
		var items bytes.Buffer
		for _, f := range files {
			base := filepath.Base(f)
			if base == ex.config || base == "kustomization.yaml" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			items.WriteString("---\n")
			items.Write(b)
		}
		cfg, err := os.ReadFile(filepath.Join(ex.dir, ex.config))
		if err != nil {
			t.Fatal(err)
		}
		rl, err := krmtest.ResourceList(items.Bytes(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", ex.dir, err)
		}
		out = append(out, differential{name: "example/" + filepath.Base(ex.dir), in: rl, mustStream: true})
	}
	return out
}

// toolLists are ResourceLists as kustomize build and kpt fn render sent them
// to the function for the examples, captured with a wrapper script.
func toolLists(t testing.TB) []differential {
	files, err := filepath.Glob("testdata/tool-inputs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no tool inputs: %v", err)
	}
	var out []differential
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, differential{name: "tool/" + strings.TrimSuffix(filepath.Base(f), ".yaml"), in: b, mustStream: true})
	}
	return out
}

// corpusLists are generated meshed workloads with configs that edit them,
// skip a Namespace, validate, and fail.
func corpusLists(t testing.TB, workloads int) []differential {
	var b bytes.Buffer
	if err := corpus.Write(&b, workloads); err != nil {
		t.Fatal(err)
	}
	base := b.Bytes()
	withConfig := func(cfg string) []byte {
		i := bytes.Index(base, []byte("functionConfig:\n"))
		var out bytes.Buffer
		out.Write(base[:i])
		out.WriteString("functionConfig:\n")
		for _, line := range strings.SplitAfter(strings.TrimSuffix(cfg, "\n"), "\n") {
			out.WriteString("  " + line)
		}
		out.WriteString("\n")
		return out.Bytes()
	}
	skipNamespace := bytes.Replace(base, []byte("    name: payments-1\n    annotations:\n"),
		[]byte("    name: payments-1\n    annotations:\n      sidecar-lifecycle.dev/skip: \"true\"\n"), 1)
	const head = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\n"
	return []differential{
		{"corpus", base, true, false},
		{"corpus/namespace-skip", skipNamespace, true, false},
		{"corpus/native", withConfig(head + "spec: {mode: native, sidecars: [{preset: linkerd}]}\n"), true, false},
		{"corpus/validate", withConfig(head + "spec: {action: validate, sidecars: [{preset: linkerd}]}\n"), true, false},
		{"corpus/ifabsent-fail", withConfig(head + "spec: {sidecars: [{preset: linkerd, ifAbsent: fail}]}\n"), true, false},
		{"corpus/validate-fail", withConfig(head + "spec: {action: validate, sidecars: [{preset: linkerd, ifAbsent: fail}]}\n"), true, false},
		{"corpus/config-error", withConfig(head + "spec: {mood: happy}\n"), true, false},
		{"corpus/no-config", base[:bytes.Index(base, []byte("functionConfig:\n"))], true, false},
		{"corpus/rollout", withConfig(head + "spec: {rolloutOnChange: true, sidecars: [{preset: linkerd, waitBeforeExit: 20s}]}\n"), true, false},
	}
}

// splitList cuts a ResourceList written by kio.ByteWriter (items at column
// 0, first or after the header) into the text before its items key, its
// items, and the text after them.
func splitList(in string) (head, items, tail string, ok bool) {
	start := strings.Index(in, "items:\n") + len("items:\n")
	end := strings.Index(in, "\nfunctionConfig:\n") + 1
	if start < len("items:\n") || end <= 0 {
		end = len(in)
		if i := strings.Index(in, "\nresults:\n"); i >= 0 {
			end = i + 1
		}
	}
	if start < len("items:\n") || end < start {
		return "", "", "", false
	}
	return in[:start-len("items:\n")], in[start:end], in[end:], true
}

// layouts rewrites a ResourceList written by kio.ByteWriter into the other
// layouts the streaming path takes: the functionConfig first, the items
// indented under their key, blank lines between items.
func layouts(d differential) []differential {
	head, items, tail, ok := splitList(string(d.in))
	if !ok {
		return nil
	}
	var indented, spaced strings.Builder
	for _, line := range strings.SplitAfter(items, "\n") {
		if line != "" && line != "\n" {
			indented.WriteString("  ")
		}
		indented.WriteString(line)
		if strings.HasPrefix(line, "- ") {
			spaced.WriteString("\n")
		}
		spaced.WriteString(line)
	}
	out := []differential{
		{d.name + "/items-indented", []byte(head + "items:\n" + indented.String() + tail), d.mustStream, false},
		{d.name + "/blank-lines", []byte(head + "items:\n" + spaced.String() + "\n" + tail), d.mustStream, false},
	}
	if tail != "" {
		out = append(out, differential{d.name + "/functionConfig-first", []byte(head + tail + "items:\n" + items), d.mustStream, false})
	}
	return out
}

// shapes rewrites a ResourceList written by kio.ByteWriter into the input
// forms the streaming path takes with the same bounded memory: CRLF line
// breaks, a byte order mark, a document start marker, comments and blank
// lines before, between and after the items, and JSON, pretty-printed and on
// one line.
func shapes(t testing.TB, d differential) []differential {
	in := string(d.in)
	out := []differential{
		{d.name + "/crlf", []byte(strings.ReplaceAll(in, "\n", "\r\n")), d.mustStream, false},
		{d.name + "/bom", []byte("\ufeff" + in), d.mustStream, false},
		{d.name + "/document-start", []byte("# a comment\n---\n" + in), d.mustStream, false},
	}
	if head, items, tail, ok := splitList(in); ok {
		var commented strings.Builder
		n := 0
		for _, line := range strings.SplitAfter(items, "\n") {
			if strings.HasPrefix(line, "- ") {
				if n%2 == 1 {
					commented.WriteString("\n")
				}
				fmt.Fprintf(&commented, "# item %d\n", n)
				if n%3 == 2 {
					commented.WriteString("#\n\n")
				}
				n++
			}
			commented.WriteString(line)
		}
		commented.WriteString("# after the last item\n\n")
		text := head + "items:\n" + commented.String() + tail
		out = append(out,
			differential{d.name + "/comments", []byte(text), d.mustStream, false},
			differential{d.name + "/comments-crlf-bom", []byte("\ufeff" + strings.ReplaceAll(text, "\n", "\r\n")), d.mustStream, false})
	}
	node, err := yaml.Parse(in)
	if err != nil {
		t.Fatalf("%s: %v", d.name, err)
	}
	oneLine, err := node.MarshalJSON()
	if err != nil {
		return out // JSON cannot hold it: duplicate keys
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, oneLine, "", "  "); err != nil {
		t.Fatalf("%s: %v", d.name, err)
	}
	var tabs bytes.Buffer
	if err := json.Indent(&tabs, oneLine, "", "\t"); err != nil {
		t.Fatalf("%s: %v", d.name, err)
	}
	return append(out,
		differential{d.name + "/json", oneLine, d.mustStream, false},
		differential{d.name + "/json-pretty", pretty.Bytes(), d.mustStream, false},
		differential{d.name + "/json-tabs", tabs.Bytes(), d.mustStream, false},
		differential{d.name + "/json-pretty-crlf-bom", []byte("\ufeff" + strings.ReplaceAll(pretty.String(), "\n", "\r\n")), d.mustStream, false})
}

// TestStreamMatchesWholeList is the differential test: for every golden
// case, every example, the lists kustomize and kpt sent for the examples, a
// generated corpus under several configs, and other layouts of each, the streaming path writes the same bytes and returns the
// same error as the whole-list path, and takes the input.
func TestStreamMatchesWholeList(t *testing.T) {
	workloads := 120
	if testing.Short() {
		workloads = 60 // two Namespaces: corpus/namespace-skip skips the second
	}
	var cases []differential
	cases = append(cases, goldenLists(t)...)
	cases = append(cases, exampleLists(t)...)
	cases = append(cases, toolLists(t)...)
	generated := corpusLists(t, workloads)
	cases = append(cases, generated[0])
	for _, d := range cases[:len(cases):len(cases)] {
		cases = append(cases, layouts(d)...)
		cases = append(cases, shapes(t, d)...)
	}
	cases = append(cases, generated[1:]...)
	cases = append(cases, shapes(t, generated[1])...) // Namespaces marked in every form
	cases = append(cases, vendorShapeLists(t)...)
	cases = append(cases, declinedLists()...)
	cases = append(cases, localLists()...)
	for _, d := range cases {
		t.Run(d.name, func(t *testing.T) {
			streamed, problem := compareRuns(d.in)
			if problem != "" {
				t.Fatal(problem)
			}
			if d.mustStream && !streamed {
				_, why, _, _ := driver.RunStreamOnly(bytes.NewReader(d.in), &bytes.Buffer{})
				t.Errorf("the streaming path declined: %s", why)
			}
			if d.mustDecline && streamed {
				t.Errorf("the streaming path took an input it must hand to the whole-list path")
			}
			if strings.HasPrefix(d.name, "corpus/") && strings.Contains(d.name, "fail") || strings.HasSuffix(d.name, "/config-error") || strings.HasSuffix(d.name, "/validate") {
				if err := driver.Run(bytes.NewReader(d.in), io.Discard); !errors.Is(err, report.ErrResults) {
					t.Errorf("Run = %v, want error results", err)
				}
			}
			if strings.HasPrefix(d.name, "corpus/namespace-skip") {
				var out bytes.Buffer
				if err := driver.Run(bytes.NewReader(d.in), &out); err != nil || strings.Contains(out.String(), ", skipped 0\n") {
					t.Errorf("the skipped Namespace's workloads were not skipped (%v)", err)
				}
			}
		})
	}
}

// vendorShapes are lists with the shapes of vendors' published files that
// the streaming path takes item by item: a comment at the end of an item
// (Google's samples end every file with "# [END region_tag]") before an
// item, before the functionConfig and at the end of the input; a block
// scalar whose last lines start with "#" (Kuma's chart: a config file of
// comments only); and resources the run does not edit with flow-style
// lines (a CRD's names, a ConfigMap's data), comments and quoted keys.
var vendorShapes = map[string]string{
	"comment-at-end": "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n    - name: linkerd-proxy\n      # [END region_tag]\n" +
		"- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n  # [END service]\n" +
		"- # Source: chart/templates/cm.yaml\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n  # [END cm]\n\n" +
		"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {preset: linkerd}\n",
	"comment-at-end-of-the-input": "kind: ResourceList\nfunctionConfig: {}\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n    - name: linkerd-proxy\n  # [END region_tag]\n",
	"block-scalar-of-comments": "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: kuma-control-plane-config\n  data:\n    config.yaml: |\n      # use this file to override default configuration of `kuma-cp`\n      #\n      # see conf/kuma-cp.conf.yml for available settings\n" +
		"- # Source: kuma/templates/cp-deployment.yaml\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: kuma-control-plane\n  spec:\n    template:\n      spec:\n        containers:\n        - name: control-plane\n          args:\n          - run\n          # - --log-level=debug\n",
	"comment-at-end-of-last-item": "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: s}\n- # Copyright Google LLC\n  #\n  # Licensed under the Apache License\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n    - name: linkerd-proxy\n      # [END gke_pod_container]\n  # [END gke_pod]\n" +
		"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {preset: linkerd}\n",
	"comment-at-end-of-last-item-at-the-end": "kind: ResourceList\nfunctionConfig: {}\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: s}\n- # Source: chart/templates/pod.yaml\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n    - name: linkerd-proxy\n  # [END gke_pod]\n",
	"comment-at-end-of-last-flow-item":       "kind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {preset: linkerd}\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: s}\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: app}, {name: linkerd-proxy}]}}\n  # [END pod]\n",
	"flow-style-untouched": "kind: ResourceList\nitems:\n- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata:\n    name: things.example.com\n  spec:\n    group: example.com\n    names: {kind: Thing, plural: things}\n    scope: Namespaced\n    versions: [{name: v1, served: true, storage: true}]\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c, labels: {app: a}}\n  data: {a: '1', b: \"x y\", c: [1, 2]}\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: d}\n  data: {a: {b: {}}, e: [], 'k': v,\n    f: g}\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: e # line\n  \"data\":\n    # head\n    a: b\n" +
		"- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: app}, {name: linkerd-proxy}]}\n",
}

// localShapes are lists with items the streaming path cannot parse alone:
// it parses each with its neighbours (a comment at the end of an item or
// after it that the parser may attach elsewhere alone: see
// yamlio.Layout.Joined), or mends the split (a quoted scalar or a flow
// collection holding a line that looks like an item's start: see
// yamlio.Input.Merge), and takes the rest of the list item by item.
var localShapes = map[string]string{
	"comment-in-item-at-column-0":        "- " + itemPod + "# inside\n  status: {}\n- " + itemPod,
	"comment-after-flow-item":            "- {kind: Pod, metadata: {name: q}}\n# between\n- " + itemPod,
	"comment-at-end-of-flow-item":        "- {apiVersion: v1, kind: Pod, metadata: {name: q}, spec: {containers: [{name: app}, {name: linkerd-proxy}]}}\n   # trailing\n\n\n  # between\n\n- " + itemPod,
	"comment-at-end-quoted-key":          "- \"kind\": ConfigMap\n  data: {a: b}\n  # trailing\n- " + itemPod,
	"comment-after-keep-chomping":        "- kind: ConfigMap\n  data:\n    a: |+\n      x\n\n# between\n- " + itemPod,
	"comment-at-end-then-between":        "- " + itemPod + "  # trailing\n# between\n- " + itemPod,
	"quote-across-items":                 "- kind: ConfigMap\n  metadata: {name: q}\n  data:\n    a: \"x\n- b: 1\"\n- " + itemPod,
	"joined-and-mended":                  "- {kind: Pod, metadata: {name: q}}\n# between\n- kind: ConfigMap\n  data:\n    a: 'x\n- y'\n- " + itemPod,
	"anchor-across-items":                "- " + strings.Replace(itemPod, "{name: app}", "&c {name: app}", 1) + "- kind: ConfigMap\n  metadata: {name: c, labels: &l {a: b}}\n- " + strings.Replace(strings.Replace(itemPod, "{name: app}", "*c", 1), "{name: p}", "{name: q, labels: *l}", 1),
	"comment-at-end-of-last-quoted-item": "- " + itemPod + "- \"apiVersion\": v1\n  kind: ConfigMap\n  metadata: {name: c}\n  # trailing\n",
	"tabs-in-items":                      "- kind: ConfigMap\n  metadata: {name: make}\n  data:\n    Makefile: |\n      all:\n      \tgo build ./...\n\n      \ttest:\n    quoted: \"a\tb\n  \tc\"\n    plain: a\tb\t# c\n  #\ttrailing\n- a:\tb\n  kind:\tConfigMap\n- " + itemPod + "  # x\t\n- " + itemPod,
}

// itemPod is a Pod the run edits, as the text after an item's "- ".
const itemPod = "apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers: [{name: app}, {name: linkerd-proxy}]\n"

// localLists are the lists of localShapes, in mutate and validate, and
// failing after them: the streaming path takes every one.
func localLists() []differential {
	var out []differential
	for name, items := range localShapes {
		for _, action := range []string{"mutate", "validate"} {
			for _, tail := range []string{"", "- apiVersion: v1\n  kind: Pod\n  metadata: {name: twice}\n  spec:\n    containers: [{name: a}, {name: a}]\n"} {
				in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items + tail +
					"functionConfig:\n  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec: {action: " + action + ", sidecars: [{preset: linkerd}]}\n"
				what := action
				if tail != "" {
					what += "-failing"
				}
				out = append(out, differential{name: "local/" + name + "/" + what, in: []byte(in), mustStream: true})
			}
		}
	}
	var declines bytes.Buffer
	if err := corpus.WriteDeclines(&declines, 256<<10); err != nil {
		panic(err)
	}
	out = append(out, differential{name: "local/declines-corpus", in: declines.Bytes(), mustStream: true})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// vendorShapeLists are the vendors' published files the tests hold, as one
// ResourceList as kustomize and kpt send it, and the lists of vendorShapes:
// the streaming path takes every one.
func vendorShapeLists(t testing.TB) []differential {
	var dirs []string
	for _, dir := range corpus.PublishedDirs() {
		dirs = append(dirs, filepath.Join("../..", dir))
	}
	files, err := corpus.Published(dirs...)
	if err != nil || len(files) == 0 {
		t.Fatalf("no published files: %v", err)
	}
	var published bytes.Buffer
	if err := corpus.WritePublished(&published, files, 1); err != nil {
		t.Fatal(err)
	}
	out := []differential{{name: "vendor/published", in: published.Bytes(), mustStream: true}}
	for name, in := range vendorShapes {
		out = append(out, differential{name: "vendor/" + name, in: []byte(in), mustStream: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// declinedLists are inputs the splitter must hand to the whole-list path;
// the output is still the same.
func declinedLists() []differential {
	const pod = itemPod
	const jsonPod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "app"}, {"name": "linkerd-proxy"}]}}`
	var out []differential
	for name, in := range map[string]string{
		"comment-at-the-end-unbroken": "kind: ResourceList\nitems:\n- " + pod + "# no line break after it",
		"anchor-far-back":             "kind: ResourceList\nitems:\n- " + strings.Replace(pod, "{name: app}", "&c {name: app}", 1) + strings.Repeat("- {kind: ConfigMap}\n", 64) + "- " + strings.Replace(pod, "{name: app}", "*c", 1),
		"flow-items":                  "kind: ResourceList\nitems: [{kind: Pod, spec: {containers: [{name: a}, {name: linkerd-proxy}]}}]\n",
		"lone-cr":                     "kind: ResourceList\nitems:\n- " + strings.Replace(pod, "\n", "\r", 1),
		"bom-inside":                  "kind: ResourceList\n\ufeffitems:\n- " + pod,
		"tab":                         "kind: ResourceList\nitems:\n- " + pod + "\t# comment\n",
		"document-marker":             "kind: ResourceList\n---\nitems:\n- " + pod,
		"document-end":                "kind: ResourceList\nitems:\n- " + pod + "...\n",
		"alias-across-items":          "kind: ResourceList\nitems:\n- &p " + pod + "- *p\n",
		"odd-indentation":             "kind: ResourceList\nitems:\n- " + pod + " - " + pod,
		"two-items-keys":              "kind: ResourceList\nitems:\n- " + pod + "items:\n- " + pod,
		"quoted-items-key":            "kind: ResourceList\n\"items\":\n- " + pod,
		"not-a-list":                  "kind: ConfigMap\nitems:\n- " + pod,
		"flow-across-items":           "kind: ResourceList\nitems:\n- kind: ConfigMap\n  data: {a: [1,\n- 2]}\n- " + pod,
		"bad-yaml":                    "kind: ResourceList\nitems:\n- " + pod + "- {a: [\n",
		"scalar-item":                 "kind: ResourceList\nitems:\n- " + pod + "- just text\n",
		"quote-across-items":          "kind: ResourceList\napiVersion: \"a\nitems:\n- b: c\"\nx: \"\n",
		"json-escaped-items-key":      `{"kind": "ResourceList", "\u0069tems": [` + jsonPod + `]}`,
		"json-two-items-keys":         `{"kind": "ResourceList", "items": [` + jsonPod + `], "items": [` + jsonPod + `]}`,
		"json-comment":                "{\"kind\": \"ResourceList\", # a comment\n\"items\": [" + jsonPod + "]}",
		"json-trailing-comma":         `{"kind": "ResourceList", "items": [` + jsonPod + `,]}`,
		"json-scalar-item":            `{"kind": "ResourceList", "items": [` + jsonPod + `, "text"]}`,
		"json-yaml-flow":              `{kind: ResourceList, items: [{kind: Pod, spec: {containers: [{name: a}, {name: linkerd-proxy}]}}]}`,
		"json-unbalanced":             `{"kind": "ResourceList", "items": [{"kind": "Pod"]}]}`,
		"json-not-done":               `{"kind": "ResourceList", "items": [` + jsonPod + `]`,
		"json-more-after":             `{"kind": "ResourceList", "items": [` + jsonPod + `]} {}`,
		"json-control-character":      `{"kind": "ResourceList", "items": [{"kind": "Pod", "metadata": {"name": "a` + "\t" + `b"}}]}`,
	} {
		out = append(out, differential{name: "declined/" + name, in: []byte(in), mustDecline: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// FuzzStreamMatchesWholeList feeds mutated ResourceLists to the whole-list
// path and to the streaming path: both must write the same bytes and return
// the same error, or both fail. With asItems set, the input is placed as the
// items of a fixed list, so that most inputs reach the streaming path.
func FuzzStreamMatchesWholeList(f *testing.F) {
	for _, d := range append(goldenLists(f), toolLists(f)...) {
		f.Add(d.in, false)
	}
	for _, d := range corpusLists(f, 3)[:3] {
		f.Add(d.in, false)
		for _, shape := range shapes(f, d) {
			f.Add(shape.in, false)
		}
	}
	for _, d := range declinedLists() {
		f.Add(d.in, false)
	}
	for _, items := range localShapes {
		f.Add([]byte(items), true)
	}
	for _, in := range vendorShapes {
		f.Add([]byte(in), false)
	}
	for _, seed := range shapeSeeds {
		f.Add([]byte(seed), false)
	}
	f.Add([]byte("- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n    annotations: {sidecar-lifecycle.dev/skip: \"true\"}\n"+
		"- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: a}\n  spec:\n    containers: [{name: app}, {name: linkerd-proxy}]\n"), true)
	f.Add([]byte("- # head\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p, annotations: {}}\n  spec:\n    containers:\n    - name: app # line\n    # foot\n    - name: linkerd-proxy\n\n- kind: Service\n"), true)
	f.Add([]byte("- kind: ConfigMap\n  data:\n    script: |+\n      echo\n\n- kind: Pod\n  spec: {containers: [{name: linkerd-proxy}]}\n"), true)
	f.Add([]byte("# first\n- kind: Pod\n  spec: {containers: [{name: app}, {name: linkerd-proxy}]}\n\n# between\n#\n\n- # head\n  kind: Service\n# after\n\n"), true)
	f.Add([]byte("- kind: Pod\r\n  spec:\r\n    containers: [{name: app}, {name: linkerd-proxy}] # line\r\n# between\r\n- kind: Service\r\n"), true)
	f.Add([]byte("- kind: Pod\n  metadata: {name: \"Name\\\n    space\"}\n  spec:\n    containers: [{name: app}, {name: linkerd-proxy}]\n"), true)
	for _, v := range yamltest.ScalarClasses() {
		f.Add([]byte("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations: "+v+"\n  data:\n    a: "+v+"\n"+
			"- kind: Pod\n  spec: {containers: [{name: app}, {name: linkerd-proxy}]}\n"), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, asItems bool) {
		if asItems {
			in = append([]byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"), in...)
			in = append(in, "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {preset: linkerd, waitBeforeExit: 10s}\n"...)
		}
		done := make(chan string, 1)
		go func() {
			_, problem := compareRuns(in)
			done <- problem
		}()
		select {
		case problem := <-done:
			if problem != "" {
				t.Fatalf("%s\ninput:\n%s", problem, in)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer within 20s on %q", in)
		}
	})
}

// TestStreamThroughFiles runs the corpus with spools that move to temporary
// files after 4 KiB, and with stdin a regular file, which the streaming path
// reads in place: the output is still the whole-list path's.
func TestStreamThroughFiles(t *testing.T) {
	defer driver.SetSpoolLimit(4 << 10)()
	for _, d := range corpusLists(t, 40)[:5] {
		t.Run(d.name, func(t *testing.T) {
			streamed, problem := compareRuns(d.in)
			if problem != "" || !streamed {
				t.Fatalf("streamed %v: %s", streamed, problem)
			}
			path := filepath.Join(t.TempDir(), "list.yaml")
			if err := os.WriteFile(path, append([]byte("ignored by Run: already read\n"), d.in...), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Seek(int64(len("ignored by Run: already read\n")), 0); err != nil {
				t.Fatal(err)
			}
			var fromFile, whole bytes.Buffer
			fileRep, fileErr := driver.ResourceList(f, &fromFile)
			wholeRep, wholeErr := driver.RunWholeList(bytes.NewReader(d.in), &whole)
			if p := sameRun("ResourceList from a file", outcome{fromFile.Bytes(), fileRep, fileErr}, outcome{whole.Bytes(), wholeRep, wholeErr}); p != "" {
				t.Fatal(p)
			}
		})
	}
}

// TestUnusableTempDir: with a temporary directory the streaming path cannot
// use, a list larger than its memory limit is a one-line error naming the
// directory, with nothing written, whether stdin is a pipe (the input
// spools) or a regular file (only the output spools); never a silent switch
// to the whole-list path, which holds everything in memory. A read-only
// directory is an error too, unless this user may write to it anyway (root).
func TestUnusableTempDir(t *testing.T) {
	defer driver.SetSpoolLimit(4 << 10)()
	in := corpusLists(t, 40)[0].in
	listFile := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(listFile, in, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(t.TempDir(), "read-only")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	probe, err := os.CreateTemp(readOnly, "probe-")
	writable := err == nil
	if writable {
		probe.Close()
		os.Remove(probe.Name())
	}
	for _, dir := range []struct {
		name, path string
		usable     bool
	}{
		{"missing", filepath.Join(t.TempDir(), "missing"), false},
		{"read-only", readOnly, writable},
	} {
		for _, stdin := range []string{"pipe", "file"} {
			t.Run(dir.name+"/"+stdin, func(t *testing.T) {
				t.Setenv("TMPDIR", dir.path)
				var r io.Reader = bytes.NewReader(in)
				if stdin == "file" {
					f, err := os.Open(listFile)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					r = f
				}
				var out, whole bytes.Buffer
				rep, err := driver.ResourceList(r, &out)
				if dir.usable {
					wholeRep, wholeErr := driver.RunWholeList(bytes.NewReader(in), &whole)
					if p := sameRun("ResourceList", outcome{out.Bytes(), rep, err}, outcome{whole.Bytes(), wholeRep, wholeErr}); p != "" {
						t.Fatal(p)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("temporary directory %q", dir.path)) || strings.Contains(err.Error(), "\n") {
					t.Errorf("Run = %v, want one line naming %q", err, dir.path)
				}
				if out.Len() > 0 {
					t.Errorf("%d bytes written", out.Len())
				}
			})
		}
	}
}

// TestCRLFReadsAsLF: a list with CRLF line breaks gives the output of the
// same list with LF, on both paths: the parser alone attaches some comments
// elsewhere when lines end in CRLF.
func TestCRLFReadsAsLF(t *testing.T) {
	cases := append(goldenLists(t), corpusLists(t, 20)[0])
	cases = append(cases, toolLists(t)...)
	for _, d := range cases {
		t.Run(d.name, func(t *testing.T) {
			crlf := bytes.ReplaceAll(d.in, []byte("\n"), []byte("\r\n"))
			var lfOut, crlfOut bytes.Buffer
			lfRep, lfErr := driver.RunWholeList(bytes.NewReader(d.in), &lfOut)
			crlfRep, crlfErr := driver.RunWholeList(bytes.NewReader(crlf), &crlfOut)
			if p := sameRun("the whole-list path on CRLF", outcome{crlfOut.Bytes(), crlfRep, crlfErr}, outcome{lfOut.Bytes(), lfRep, lfErr}); p != "" {
				t.Fatal(p)
			}
		})
	}
}

// TestLateFailureMatchesWholeList: an item that fails after items the run
// changed (a small workload, one large enough to be edited elided, a
// List, a Service passed through unread), in mutate and validate, makes
// the streaming path write every item as the whole-list path does: as it
// came, with only the warnings and errors, from the items' text rather
// than a second pass.
func TestLateFailureMatchesWholeList(t *testing.T) {
	pod := func(name string) string {
		return "- apiVersion: v1\n  kind: Pod\n  metadata: {name: " + name + "}\n  spec:\n    containers:\n    - name: app\n    - name: linkerd-proxy\n"
	}
	big := "- apiVersion: v1\n  kind: Pod\n  metadata: {name: big}\n  spec:\n    containers:\n    - name: app\n      env:\n" +
		strings.Repeat("      - {name: K, value: \"0123456789012345678901234567890123456789\"}\n", 300<<10/60) + "    - name: linkerd-proxy\n"
	list := "- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: entry}\n    spec:\n      containers: [{name: app}, {name: linkerd-proxy}]\n"
	service := "- apiVersion: v1\n  kind: Service\n  metadata: {name: s}\n  spec: {ports: [{port: 80}]}\n"
	failing := "- apiVersion: v1\n  kind: Pod\n  metadata: {name: twice}\n  spec:\n    containers: [{name: a}, {name: a}]\n"
	for _, action := range []string{"mutate", "validate"} {
		for _, order := range [][]string{
			{pod("a"), big, service, list, failing, pod("b")},
			{failing, pod("a"), big},
			{pod("a"), pod("b"), failing},
		} {
			in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + strings.Join(order, "") +
				"functionConfig:\n  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec: {action: " + action + "}\n"
			streamed, problem := compareRuns([]byte(in))
			if !streamed {
				t.Errorf("%s: the streaming path declined the list", action)
			}
			if problem != "" {
				t.Errorf("%s, %d items: %s", action, len(order), problem)
			}
		}
	}
}
