package scan_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/yamltest"
)

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n"

// metadataMapping is what the drivers check of every item they parse
// (their checkItem): metadata, when present and not null, is a mapping.
// A scanned text never holds an alias, so none is followed.
func metadataMapping(root *yaml.Node) error {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if v := root.Content[i+1]; root.Content[i].Value == "metadata" && v.ShortTag() != yaml.NodeTagNull && v.Kind != yaml.MappingNode {
			return fmt.Errorf("metadata is not a mapping (kind %d)", v.Kind)
		}
	}
	return nil
}

// FuzzScanAgreesWithParse: whenever scan.Scan reads a document, the
// parser reads it too, with the same apiVersion and kind, no duplicate key,
// no anchor, and metadata a mapping when present: a document written as it
// came without a parse is one the parse would have passed as it is.
func FuzzScanAgreesWithParse(f *testing.F) {
	f.Add(configMap)
	f.Add("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n    x\n   y\n")
	f.Add("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"\\x41\\q\"\n")
	f.Add("apiVersion: v1\nkind: ConfigMap\nx:\n- - a\n-\n  b: 1\n- c\n  d\n")
	for _, v := range yamltest.ScalarClasses() {
		f.Add("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: " + v + "\n")
	}
	items, err := filepath.Glob("../../driver/testdata/*/items.yaml")
	if err != nil || len(items) == 0 {
		f.Fatalf("no golden items: %v", err)
	}
	for _, path := range items {
		text, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, doc := range bytes.Split(text, []byte("\n---\n")) {
			f.Add(string(doc) + "\n")
		}
	}
	f.Fuzz(checkScan)
}

// TestScanMutations checks FuzzScanAgreesWithParse's property on every
// deletion of a byte and insertion of a few bytes in a document.
func TestScanMutations(t *testing.T) {
	for _, seed := range []string{
		"apiVersion: v1\nkind: ConfigMap # c\nmetadata:\n  name: a\ndata:\n  a: |\n    x\n\n      y\n  b: 'it''s' # c\n  c: \"y\\x41\"\n  d:\n  e:\n  - 1\n  - k: v\n    l: >-\n      z\n  f: long\n    text\n",
		"apiVersion: v1\nkind: X\nmetadata:\n  labels:\n    a: b\nspec:\n  list:\n  - a: 1\n    b:\n    - c\n    -\n      d: e\n  other:\n      x: y\n",
		"apiVersion: v1\nkind: X\nmetadata:\n  labels:\n    \"a/b\": c\n    'd': e\nspec:\n  - \"f\": g\n",
		"apiVersion: v1\nkind: X\nspec:\n  names: {kind: Thing, plural: things}\n  list: [a, 1, true, 'b c', \"d\", {e: [], f: {}}]\n  more:\n  - {g: h}\n",
		"apiVersion: v1\nkind: X\nspec:\n  description: 'A long\n    text, it''s\n\n    folded' # c\n  list:\n  - \"an \\x41\n    escape\"\n  - 'x'\n  empty:\n    {}\n  more:\n    [a, b]\nstatus: {}\n",
	} {
		checkScan(t, seed)
		for p := 0; p <= len(seed); p++ {
			if p < len(seed) {
				checkScan(t, seed[:p]+seed[p+1:])
			}
			for _, c := range []string{" ", "  ", "-", ":", "#", "'", "\"", "|", "\n", ">", "{", "}", "&", "*", "!", "?",
				",", "~", "\\", "a", "- ", ": ", " #", "\n  ", "\n- ", "\n    ", "|-", "|+", "---", "...", "\t", "\r", "%", "<<: ", "kind: ", "\nkind: Pod\n", "\nmetadata: 1\n"} {
				checkScan(t, seed[:p]+c+seed[p:])
			}
		}
	}
}

// checkScan is FuzzScanAgreesWithParse's property.
func checkScan(t *testing.T, body string) {
	t.Helper()
	{
		s, ok := scan.Scan([]byte(body))
		if !ok {
			return
		}
		doc, err := yamlio.DecodeOne(strings.NewReader(body))
		if err != nil {
			t.Fatalf("scanned, but the parser fails: %v\n%q", err, body)
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			t.Fatalf("scanned, but not a mapping:\n%q", body)
		}
		item := yaml.NewRNode(root)
		if item.GetKind() != s.Kind || item.GetApiVersion() != s.APIVersion {
			t.Fatalf("scanned %+v, parsed %q %q:\n%q", s, item.GetApiVersion(), item.GetKind(), body)
		}
		shape, err := shapes.Walk(root)
		if err != nil || shape.Anchored {
			t.Fatalf("scanned, but the walk finds %v (anchored %v):\n%q", err, shape.Anchored, body)
		}
		if err := metadataMapping(root); err != nil {
			t.Fatalf("scanned, but checkItem: %v\n%q", err, body)
		}
	}
}

// FuzzScanItemIsItemText: whenever scan.ScanItem reads an item's text,
// the text is what the writer writes for the item it parses to, and the
// parse agrees with the scan as in FuzzScanAgreesWithParse: the streaming
// path may write the text in the item's place.
func FuzzScanItemIsItemText(f *testing.F) {
	var list bytes.Buffer
	if err := corpus.WriteMix(&list, corpus.Mix{Workloads: 30, Others: 4}); err != nil {
		f.Fatal(err)
	}
	in, err := yamlio.Read(bytes.NewReader(list.Bytes()), yamlio.Options{})
	if err != nil || in.Layout == nil {
		f.Fatalf("the corpus does not split: %v", err)
	}
	defer in.Close()
	for i := 0; i < in.Layout.Len(); i++ {
		text, err := in.Item(i)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(text))
	}
	for _, seed := range scanItemSeeds {
		f.Add(seed)
	}
	for _, v := range yamltest.ScalarClasses() {
		f.Add("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    annotations: " + v + "\n  data:\n    a: " + v + "\n")
	}
	f.Fuzz(checkScanItem)
}

// scanItemSeeds are items with every form scan.ScanItem reads.
var scanItemSeeds = []string{
	"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    a: |\n      x\n\n        y\n    b: 'it''s'\n    c: \"y\"\n    d: ~\n    e:\n    - 1\n    - k: v\n      l: |-\n        z\n",
	"- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  spec:\n    versions:\n    - name: v1\n      schema:\n        description: a b, c (d)\n",
	"- apiVersion: v1\n  kind: X\n  metadata:\n    labels:\n      a: b\n  spec:\n    list:\n    - a: 1\n      b:\n      - c\n      - d: e\n    other:\n      x: y\n",
	"- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n    labels: {}\n  spec:\n    volumes:\n    - name: tmp\n      emptyDir: {}\n    containers:\n    - name: a\n      args: []\n      resources: {}\n    - {}\n    - []\n",
	"- # Source: chart/templates/cm.yaml\n  #\n  ### section\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      \"helm.sh/hook\": \"pre-install,pre-upgrade\"\n      'it''s': v\n  data:\n    k: v\n    l:\n    - \"m\": n\n      o: p\n",
	"- apiVersion: apps/v1\n  kind: Deployment\n  spec:\n    template:\n      spec:\n        containers:\n        - args:\n          - --config=/etc/a.yaml\n          - -c\n          - -log-level=info\n          command:\n          - |2\n\n            x\n          - |2-\n             y\n            z\n",
	"- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  spec:\n    description: \"a \\n b \\\"c\\\" \\\\ \\t \\x01 \\x7F é ü 日本\"\n    mode:\n      description: |2-\n         lead\n        next\n",
	"- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  spec:\n    names: {kind: Thing, plural: things}\n    list: [a, 1, -2, true, 'b c', 'it''s', \"d\", {e: [], f: {}}, []]\n    more:\n    - {g: h/i.j, k: [l]}\n",
	"- # Source: chart/templates/deployment.yaml\n  apiVersion: apps/v1\n  kind: StatefulSet\n  # the app\n  metadata:\n    # its name\n    #\n    name: a\n  spec:\n    template:\n      spec:\n        containers:\n        # first\n        - name: a\n          # the image\n          image: x\n          args:\n          # one\n          - a\n          - b\n        - name: b\n          env:\n          - name: c\n            # d\n            value: e\n",
}

// TestScanItemPublished checks FuzzScanItemIsItemText's property on every
// item of the vendors' published manifests.
func TestScanItemPublished(t *testing.T) {
	var dirs []string
	for _, dir := range corpus.PublishedDirs() {
		dirs = append(dirs, "../../../"+dir)
	}
	files, err := corpus.Published(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	if err := corpus.WritePublished(&list, files, 1); err != nil {
		t.Fatal(err)
	}
	in, err := yamlio.Read(bytes.NewReader(list.Bytes()), yamlio.Options{})
	if err != nil || in.Layout == nil {
		t.Fatalf("the list does not split: %v", err)
	}
	defer in.Close()
	for i := 0; i < in.Layout.Len(); i++ {
		text, err := in.Item(i)
		if err != nil {
			t.Fatal(err)
		}
		checkScanItem(t, string(text))
	}
}

// TestScanItemEmptyCollections: "{}" and "[]" are read as values, which
// ItemText writes so, except where ItemText drops an empty mapping: the
// top-level metadata and its annotations.
func TestScanItemEmptyCollections(t *testing.T) {
	const head = "- apiVersion: v1\n  kind: Pod\n"
	for _, c := range []struct {
		text          string
		want, dropped bool
	}{
		{head + "  spec:\n    volumes:\n    - name: tmp\n      emptyDir: {}\n", true, false},
		{head + "  spec:\n    containers: []\n", true, false},
		{head + "  spec:\n    list:\n    - {}\n    - []\n", true, false},
		{head + "  metadata:\n    name: p\n    labels: {}\n", true, false},
		{head + "  metadata:\n    name: p\n    annotations: {}\n", false, true},
		{head + "  metadata: {}\n", false, true},
		{head + "  spec:\n    a: {b: c}\n", true, false},
		{head + "  metadata:\n    name: p\n  spec:\n    a: {annotations: {}}\n", false, false},
		{head + "  spec:\n    a: { }\n", false, false},
		{head + "  spec:\n    a: {}\n      b: c\n", false, false},
	} {
		if _, ok := scan.ScanItem([]byte(c.text)); ok != c.want {
			t.Errorf("ScanItem = %v, want %v:\n%s", ok, c.want, c.text)
		}
		checkScanItem(t, c.text)
		if !c.dropped {
			continue
		}
		item, err := yamlio.ParseItem([]byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := emit.ItemText(item); err != nil || string(out) == c.text {
			t.Errorf("ItemText writes the empty mapping: %v\n%s", err, out)
		}
	}
}

// TestScanItemSeeds: ScanItem reads every seed.
func TestScanItemSeeds(t *testing.T) {
	for _, seed := range scanItemSeeds {
		if _, ok := scan.ScanItem([]byte(seed)); !ok {
			t.Errorf("ScanItem does not read\n%s", seed)
		}
	}
}

// TestScanItemMutations checks FuzzScanItemIsItemText's property on every
// deletion of a byte and insertion of a few bytes in the seeds.
func TestScanItemMutations(t *testing.T) {
	for _, seed := range scanItemSeeds {
		checkScanItem(t, seed)
		for p := 0; p <= len(seed); p++ {
			if p < len(seed) {
				checkScanItem(t, seed[:p]+seed[p+1:])
			}
			for _, c := range []string{" ", "  ", "-", ":", "#", "'", "\"", "|", "\n", ">", "{", "}", "&", "*", "!", "?",
				",", "~", "\\", "a", "- ", ": ", " #", "\n  ", "\n- ", "\n    ", "|-", "|+", "---", "...", "\t", "\r"} {
				checkScanItem(t, seed[:p]+c+seed[p:])
			}
		}
	}
}

// checkScanItem is FuzzScanItemIsItemText's property.
func checkScanItem(t *testing.T, text string) {
	t.Helper()
	{
		s, ok := scan.ScanItem([]byte(text))
		if !ok {
			return
		}
		item, err := yamlio.ParseItem([]byte(text))
		if err != nil {
			t.Fatalf("scanned, but the parser fails: %v\n%q", err, text)
		}
		if item.GetKind() != s.Kind || item.GetApiVersion() != s.APIVersion {
			t.Fatalf("scanned %+v, parsed %q %q:\n%q", s, item.GetApiVersion(), item.GetKind(), text)
		}
		if shape, err := shapes.Walk(item.YNode()); err != nil || shape.Anchored {
			t.Fatalf("scanned, but the walk finds %v (anchored %v):\n%q", err, shape.Anchored, text)
		}
		if err := metadataMapping(item.YNode()); err != nil {
			t.Fatalf("scanned, but checkItem: %v\n%q", err, text)
		}
		out, err := emit.ItemText(item)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != text {
			t.Fatalf("scanned, but the writer writes\n%q\nfor\n%q", out, text)
		}
	}
}
