package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/shapes"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// fragmentMarker, on the last line before a ```yaml block, says that the
// block is part of a file rather than a whole one: it is only parsed.
const fragmentMarker = "<!-- fragment"

// markdownFiles are the documentation pages the tests check: README.md,
// every docs/*.md and each chart's README.md.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	charts, err := filepath.Glob(filepath.Join("charts", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(docs)
	slices.Sort(charts)
	return append(append([]string{"README.md"}, docs...), charts...)
}

// readFile reads a documentation page.
func readFile(t *testing.T, name string) string {
	t.Helper()
	text, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// block is a ```yaml block of a Markdown page.
type block struct {
	line     int // of the opening fence
	text     string
	fragment bool
}

// yamlBlocks extracts the ```yaml blocks of a Markdown text, with their
// indentation (in a list item) taken off; name is the page, for errors.
func yamlBlocks(t *testing.T, name, md string) []block {
	t.Helper()
	var blocks []block
	var cur *block
	indent, previous := "", ""
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && (trimmed == "```yaml" || trimmed == "```yml"):
			indent = line[:strings.Index(line, "`")]
			cur = &block{line: n, fragment: strings.HasPrefix(previous, fragmentMarker)}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		}
		if trimmed != "" {
			previous = trimmed
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: the yaml block is not closed", name, cur.line)
	}
	return blocks
}

// TestMarkdownYAML: every ```yaml block of README.md and docs/*.md parses,
// without duplicate keys; a functionConfig in it loads, and a
// SidecarLifecycle also passes the committed schema; a Kustomization
// decodes strictly; a workload decodes strictly into its k8s.io/api type
// and passes the rules of the API server the tests check; any other
// resource has apiVersion, kind and a name. A block that is none of these,
// part of a file, follows a "<!-- fragment: ... -->" line and is only
// parsed.
func TestMarkdownYAML(t *testing.T) {
	schema := committedSchema(t)
	for _, name := range markdownFiles(t) {
		blocks := yamlBlocks(t, name, readFile(t, name))
		if name == "README.md" && len(blocks) < 5 {
			t.Errorf("found %d yaml blocks in README.md", len(blocks))
		}
		for _, b := range blocks {
			checkBlock(t, name, b, schema)
		}
	}
}

// checkBlock checks one ```yaml block of the page name.
func checkBlock(t *testing.T, name string, b block, schema *jsonschema.Schema) {
	t.Helper()
	docs, err := documents(b.text)
	if err != nil {
		t.Errorf("%s:%d: %v", name, b.line, err)
		return
	}
	if b.fragment {
		return
	}
	for i, doc := range docs {
		if err := checkDocument(doc, schema); err != nil {
			t.Errorf("%s:%d: document %d: %v", name, b.line, i+1, err)
		}
	}
}

// TestMarkdownYAMLCatches: the checks of TestMarkdownYAML reject what they
// are there to reject.
func TestMarkdownYAMLCatches(t *testing.T) {
	schema := committedSchema(t)
	for name, text := range map[string]string{
		"a config Load rejects":     "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  sidecars: [{preset: linkerd, cloudSQLProxy: {}}]\n",
		"a ConfigMap config":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {preset: linkerd, mode: fast}\n",
		"a Kustomization":           "resources: [a.yaml]\ntransformer: [b.yaml]\n",
		"a workload":                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: a, imagee: x}]\n",
		"a resource without a name": "apiVersion: v1\nkind: Service\nspec: {}\n",
		"a fragment":                "metadata:\n  annotations: {a: b}\n",
	} {
		docs, err := documents(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := checkDocument(docs[0], schema); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for name, text := range map[string]string{
		"duplicate keys": "a: 1\na: 2\n",
		"not YAML":       "a: [\n",
	} {
		if _, err := documents(text); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	blocks := yamlBlocks(t, "test.md", "text\n\n<!-- fragment: part of a Kptfile -->\n\n```yaml\na: 1\n```\n\n- item\n\n  ```yaml\n  b: 2\n  ```\n")
	if len(blocks) != 2 || !blocks[0].fragment || blocks[0].text != "a: 1\n" || blocks[1].fragment || blocks[1].text != "b: 2\n" || blocks[1].line != 11 {
		t.Errorf("blocks = %+v", blocks)
	}
}

// documents parses a YAML stream, rejecting duplicate keys.
func documents(text string) ([]*yaml.RNode, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	var docs []*yaml.RNode
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return docs, nil
		} else if err != nil {
			return nil, err
		}
		if _, err := shapes.Walk(&n); err != nil {
			return nil, err
		}
		docs = append(docs, yaml.NewRNode(n.Content[0]))
	}
}

// configMapKeys are keys of the ConfigMap form of the functionConfig.
var configMapKeys = []string{"sidecar", "preset", "mode", "kubernetesVersion", "waitBeforeExit", "appDrainDelay", "action"}

// checkDocument checks one document of a block that is not a fragment.
func checkDocument(doc *yaml.RNode, schema *jsonschema.Schema) error {
	text, err := doc.String()
	if err != nil {
		return err
	}
	kind := doc.GetKind()
	switch {
	case kind == config.Kind:
		if _, err := config.LoadBytes([]byte(text)); err != nil {
			return err
		}
		return schemaCheck(doc, schema)
	case kind == "ConfigMap" && isFunctionConfig(doc):
		_, err := config.LoadBytes([]byte(text))
		return err
	case kind == "Kustomization" || (kind == "" && (doc.Field("resources") != nil || doc.Field("transformers") != nil)):
		var k types.Kustomization
		return k.Unmarshal([]byte(text))
	case kind == "":
		return fmt.Errorf("is neither a config nor a manifest (no kind): put a line %q before a block that is part of a file", fragmentMarker+": part of ... -->")
	}
	if doc.GetApiVersion() == "" || doc.GetName() == "" {
		return fmt.Errorf("%s has no apiVersion or no metadata.name", kind)
	}
	return krmtest.Valid(doc)
}

// isFunctionConfig reports whether a ConfigMap is the function's config:
// it names the function or has a key of the ConfigMap form.
func isFunctionConfig(cm *yaml.RNode) bool {
	if _, ok := cm.GetAnnotations()["config.kubernetes.io/function"]; ok {
		return true
	}
	for key := range cm.GetDataMap() {
		if slices.Contains(configMapKeys, key) {
			return true
		}
	}
	return false
}

// committedSchema compiles schema/sidecarlifecycle.schema.json.
func committedSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	schema, err := c.Compile("schema/sidecarlifecycle.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// schemaCheck checks a SidecarLifecycle against the schema.
func schemaCheck(doc *yaml.RNode, schema *jsonschema.Schema) error {
	js, err := doc.MarshalJSON()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("the schema rejects it: %v", err)
	}
	return nil
}

// link is a Markdown link of a page: where it is and what it points at.
type link struct {
	line   int
	target string
}

// inlineLink is a Markdown inline link or image, [text](target "title").
var inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// codeSpan is an inline code span, whose text is not Markdown.
var codeSpan = regexp.MustCompile("(`+)[^`]*?(`+)")

// atxHeading is an ATX heading line: its level's hashes and its text.
var atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)

// proseLines calls f with each line of a Markdown text that is not inside
// a fenced code block, and its number.
func proseLines(md string, f func(n int, line string)) {
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
		case fence == "":
			f(i+1, line)
		}
	}
}

// links returns the links of a Markdown text outside code blocks and code
// spans.
func links(md string) []link {
	var out []link
	proseLines(md, func(n int, line string) {
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			out = append(out, link{line: n, target: m[1]})
		}
	})
	return out
}

// anchors returns the anchors GitHub gives the headings of a Markdown
// text: a heading's text lower-cased, without punctuation other than - and
// _, spaces turned into dashes; a repeated one gets -1, -2, ...
func anchors(md string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	proseLines(md, func(_ int, line string) {
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		id := anchor(m[2])
		if k := seen[id]; k > 0 {
			out[fmt.Sprintf("%s-%d", id, k)] = true
		} else {
			out[id] = true
		}
		seen[id]++
	})
	return out
}

// linkText is a link inside a heading, whose anchor is made of its text.
var linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// anchor is the anchor GitHub makes of one heading's text.
func anchor(heading string) string {
	text := strings.ToLower(linkText.ReplaceAllString(heading, "$1"))
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// external reports whether a link target leaves the repository.
func external(target string) bool {
	return strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:")
}

// checkLink checks one relative link of the page name: the file it names
// exists and, when it names an anchor, a heading of that Markdown file
// has it.
func checkLink(name string, l link) error {
	path, frag, _ := strings.Cut(l.target, "#")
	file := name
	if path != "" {
		file = filepath.Join(filepath.Dir(name), filepath.FromSlash(path))
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("%s:%d: %s: no such file or directory %s", name, l.line, l.target, file)
		}
	}
	if frag == "" {
		return nil
	}
	if filepath.Ext(file) != ".md" {
		return fmt.Errorf("%s:%d: %s: an anchor in %s, which is not a Markdown page", name, l.line, l.target, file)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%s:%d: %s: %v", name, l.line, l.target, err)
	}
	if !anchors(string(text))[frag] {
		return fmt.Errorf("%s:%d: %s: %s has no heading with the anchor #%s", name, l.line, l.target, file, frag)
	}
	return nil
}

// TestMarkdownLinks: every relative link of README.md and docs/*.md
// resolves: the file or directory exists, and a #anchor names a heading
// of that page as GitHub spells its anchors.
func TestMarkdownLinks(t *testing.T) {
	for _, name := range markdownFiles(t) {
		for _, l := range links(readFile(t, name)) {
			if external(l.target) {
				continue
			}
			if err := checkLink(name, l); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestMarkdownLinksCatches: the link checks read links and anchors as
// GitHub does, and reject what they are there to reject.
func TestMarkdownLinksCatches(t *testing.T) {
	for heading, want := range map[string]string{
		"kustomize (`exec`)": "kustomize-exec",
		"The vendor's own proxy: Cloud SQL Auth Proxy v2.27.0": "the-vendors-own-proxy-cloud-sql-auth-proxy-v2270",
		"`waitBeforeExit: auto`":                               "waitbeforeexit-auto",
		"Load balancers → ≥ 1.29 [here](x.md)":                 "load-balancers---129-here",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
	md := "# A\n\n```sh\n# not a heading\n[no](link.md)\n```\n\n## A\n\nSee [b](README.md#a-1), `[code](x.md)` and ![i](docs/x.png \"t\").\n"
	if got := anchors(md); len(got) != 2 || !got["a"] || !got["a-1"] {
		t.Errorf("anchors = %v", got)
	}
	if got := links(md); !slices.Equal(got, []link{{10, "README.md#a-1"}, {10, "docs/x.png"}}) {
		t.Errorf("links = %+v", got)
	}
	for _, target := range []string{"missing.md", "README.md#no-such-heading", "go.mod#x", "#nowhere"} {
		if err := checkLink("README.md", link{1, target}); err == nil {
			t.Errorf("%s: accepted", target)
		}
	}
	if err := checkLink("docs/usage.md", link{1, "../README.md#quick-start"}); err != nil {
		t.Error(err)
	}
}

// TestKubeletProofTable: the README's "Proven on a real kubelet" table has
// one row per catalog entry; a row that says "proven with the vendor's
// binary vX" names a version the end-to-end suite builds
// (e2e/vendor_images_test.go), and every other row says why the entry is
// not run.
func TestKubeletProofTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### Proven on a real kubelet")
	if !ok {
		t.Fatal(`README.md has no "### Proven on a real kubelet" section`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	suite, err := os.ReadFile(filepath.Join("e2e", "vendor_images_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
	}
	for _, e := range preset.Builtin() {
		row, ok := rows[e.Name]
		switch {
		case !ok:
			t.Errorf("%s: no row in the README's kubelet proof table", e.Name)
		case strings.HasPrefix(row, "proven"):
			version := regexp.MustCompile(`v\d+\.\d+\.\d+`).FindString(row)
			if version == "" || !regexp.MustCompile(`version:\s*"`+regexp.QuoteMeta(version)+`"`).Match(suite) {
				t.Errorf("%s: the row says %q, but the end-to-end suite builds no such version", e.Name, row)
			}
		case !strings.HasPrefix(row, "not run: ") && !strings.HasPrefix(row, "not yet run: "):
			t.Errorf("%s: the row says %q: say it is proven, or why it is not run", e.Name, row)
		}
		delete(rows, e.Name)
	}
	for name := range rows {
		t.Errorf("%s: a row for an entry the catalog does not have", name)
	}
}

// TestLibraryExample: the README's Go block is the kustomize embedding
// example that go test runs, word for word.
func TestLibraryExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("transformer/kustomize/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(example)+"```\n") {
		t.Error("README.md's Go library block is not transformer/kustomize/example_test.go: copy the file into it")
	}
}
