package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/scan"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/stream"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlshape"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamltext"
)

const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n"

func TestUntouched(t *testing.T) {
	custom, err := yaml.Parse("apiVersion: sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: c}\nspec:\n  podSpecPaths:\n  - {group: example.com, kind: Widget, path: spec/pod}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, body string
		cfg        *yaml.RNode
		want       bool
	}{
		{"ConfigMap", configMap, nil, true},
		{"CRD with block scalars and lists", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w.example.com\nspec:\n  versions:\n  - name: v1\n    schema:\n      description: |-\n        A long\n\n        text: with a colon\n    served: true\n  - name: v2\n    served: 'no' # a comment\n", nil, true},
		{"CRLF", strings.ReplaceAll(configMap, "\n", "\r\n"), nil, true},
		{"a Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n", nil, false},
		{"a custom workload kind", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n", custom, false},
		{"not a custom workload without the config", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n", nil, true},
		{"a Service, read for load balancers", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n", nil, false},
		{"an Ingress", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n", nil, false},
		{"a Namespace", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n", nil, false},
		{"a List", "apiVersion: v1\nkind: ConfigMapList\nitems: []\n", nil, false},
		{"kpt's package path", strings.Replace(configMap, "  namespace: shop\n", "  annotations:\n    internal.config.kubernetes.io/package-path: a\n", 1), nil, false},
		{"a duplicate key", configMap + "  mode: slow\n", nil, false},
		{"a duplicate key under a list entry", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx:\n- a: 1\n  a: 2\n", nil, false},
		{"the same key in two list entries", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx:\n- a: 1\n- a: 2\n", nil, true},
		{"metadata a list", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n- a\n", nil, false},
		{"metadata a scalar", "apiVersion: v1\nkind: ConfigMap\nmetadata: a\n", nil, false},
		{"a kind that goes on", "apiVersion: v1\nkind: Config\n  Map\n", nil, false},
		{"a quoted kind", "apiVersion: v1\nkind: \"ConfigMap\"\n", nil, false},
		{"a flow mapping with a duplicate key", "apiVersion: v1\nkind: ConfigMap\ndata: {a: 1, a: 2}\n", nil, false},
		{"flow collections", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  names: {kind: Thing, plural: things}\n  versions: [{name: v1, served: true}, {name: v2, served: false}]\n", nil, true},
		{"a flow mapping on two lines", "apiVersion: v1\nkind: ConfigMap\ndata: {a: 1,\n  b: 2}\n", nil, false},
		{"a flow mapping with a comment after it", "apiVersion: v1\nkind: ConfigMap\ndata: {a: 1} # c\n", nil, false},
		{"quoted keys below the top level", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    \"helm.sh/hook\": pre-install\n    'b': c\ndata:\n  x:\n  - \"y\": z\n", nil, true},
		{"a quoted key at the top level", "apiVersion: v1\nkind: ConfigMap\n\"data\": {}\n", nil, false},
		{"a quoted and a plain key, the same", "apiVersion: v1\nkind: ConfigMap\ndata:\n  \"a\": 1\n  a: 2\n", nil, false},
		{"a quoted key with an escape", "apiVersion: v1\nkind: ConfigMap\ndata:\n  \"a\\x41\": 1\n", nil, false},
		{"a quoted annotations key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  \"annotations\": {}\n", nil, false},
		{"an alias", "apiVersion: v1\nkind: ConfigMap\nx: &a 1\ny: *a\n", nil, false},
		{"a merge key", "apiVersion: v1\nkind: ConfigMap\n<<: {kind: Pod}\n", nil, false},
		{"JSON", `{"apiVersion": "v1", "kind": "ConfigMap"}` + "\n", nil, false},
		{"a bad indentation", "apiVersion: v1\nkind: ConfigMap\ndata:\n    a: 1\n  b: 2\n", nil, false},
		{"a quote that goes on", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\nkind: Pod\"\n", nil, false},
		{"quoted scalars over several lines", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: w.example.com\nspec:\n  a: 'Configuration affecting\n    load balancing, it''s\n\n    long'\n  b:\n  - description: \"x \\\"y\\\"\n      z\" # c\n", nil, true},
		{"a quote that goes on to the end", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x\n    y\n", nil, false},
		{"a quote that goes on past a marker", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x\n---\n    y'\n", nil, false},
		{"text after a quote that went on", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: 'x\n    y' z\n", nil, false},
		{"an escaped line break", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\\\n    y\"\n", nil, false},
		{"a flow mapping under its key", "apiVersion: v1\nkind: ConfigMap\ndata:\n  {}\nx:\n- a:\n    [b, c]\n", nil, true},
		{"metadata under its key in flow style", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  {}\n", nil, false},
		{"a flow mapping under its key, then more", "apiVersion: v1\nkind: ConfigMap\ndata:\n  {}\n  b: 1\n", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := engine.Start(c.cfg)
			if got := untouched(e, []byte(c.body)); got != c.want {
				t.Errorf("untouched = %v, want %v for\n%s", got, c.want, c.body)
			}
		})
	}
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
	for _, v := range scalarClasses() {
		f.Add("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: " + v + "\n")
	}
	items, _ := filepath.Glob("testdata/*/items.yaml")
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
		doc, err := stream.DecodeOne(strings.NewReader(body))
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
		shape, err := yamlshape.Walk(root)
		if err != nil || shape.Anchored {
			t.Fatalf("scanned, but the walk finds %v (anchored %v):\n%q", err, shape.Anchored, body)
		}
		if err := checkItem(root); err != nil {
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
	in, err := stream.Read(bytes.NewReader(list.Bytes()), stream.Options{})
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
	for _, v := range scalarClasses() {
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
		dirs = append(dirs, "../../"+dir)
	}
	files, err := corpus.Published(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	if err := corpus.WritePublished(&list, files, 1); err != nil {
		t.Fatal(err)
	}
	in, err := stream.Read(bytes.NewReader(list.Bytes()), stream.Options{})
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
		item, err := stream.ParseItem([]byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := yamltext.ItemText(item); err != nil || string(out) == c.text {
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
		item, err := stream.ParseItem([]byte(text))
		if err != nil {
			t.Fatalf("scanned, but the parser fails: %v\n%q", err, text)
		}
		if item.GetKind() != s.Kind || item.GetApiVersion() != s.APIVersion {
			t.Fatalf("scanned %+v, parsed %q %q:\n%q", s, item.GetApiVersion(), item.GetKind(), text)
		}
		if shape, err := yamlshape.Walk(item.YNode()); err != nil || shape.Anchored {
			t.Fatalf("scanned, but the walk finds %v (anchored %v):\n%q", err, shape.Anchored, text)
		}
		if err := checkItem(item.YNode()); err != nil {
			t.Fatalf("scanned, but checkItem: %v\n%q", err, text)
		}
		out, err := yamltext.ItemText(item)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != text {
			t.Fatalf("scanned, but the writer writes\n%q\nfor\n%q", out, text)
		}
	}
}

// TestMayBeNamespace: the Namespace pre-pass parses each marked item but
// those whose scan reads a kind that is neither Namespace nor a List.
func TestMayBeNamespace(t *testing.T) {
	items := []struct {
		text  string
		parse bool
	}{
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  pattern: a\\d+\n", false},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Namespace\n", false},
		{"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n", true},
		{"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: shop\n", true},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # not in a Namespace\n", true},
	}
	var docs []string
	for _, it := range items {
		docs = append(docs, it.text)
	}
	var rl bytes.Buffer
	rl.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, doc := range docs {
		for i, line := range strings.SplitAfter(strings.TrimSuffix(doc, "\n"), "\n") {
			if i == 0 {
				rl.WriteString("- " + line)
			} else {
				rl.WriteString("  " + line)
			}
		}
		rl.WriteString("\n")
	}
	in, err := stream.Read(&rl, stream.Options{Mark: mayNameNoted})
	if err != nil || in.Layout == nil {
		t.Fatalf("the list does not split: %v", err)
	}
	defer in.Close()
	if len(in.Layout.Marked) != len(items) {
		t.Fatalf("marked %v, want every item", in.Layout.Marked)
	}
	parse := mayBeNoted(in)
	for i, it := range items {
		item, err := parse(i)
		if err != nil || (item != nil) != it.parse {
			t.Errorf("item %d: parsed %v, %v; want parsed %v:\n%s", i, item != nil, err, it.parse, it.text)
		}
	}
}
