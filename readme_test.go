package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/yamlshape"
)

// fragmentMarker, on the last line before a ```yaml block, says that the
// block is part of a file rather than a whole one: it is only parsed.
const fragmentMarker = "<!-- fragment"

// block is a ```yaml block of the README.
type block struct {
	line     int // of the opening fence
	text     string
	fragment bool
}

// yamlBlocks extracts the ```yaml blocks of a Markdown text, with their
// indentation (in a list item) taken off.
func yamlBlocks(t *testing.T, md string) []block {
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
		t.Fatalf("README.md:%d: the yaml block is not closed", cur.line)
	}
	return blocks
}

// TestReadmeYAML: every ```yaml block of the README parses, without
// duplicate keys; a functionConfig in it loads, and a SidecarLifecycle
// also passes the committed schema; a Kustomization decodes strictly; a
// workload decodes strictly into its k8s.io/api type and passes the rules
// of the API server the tests check; any other resource has apiVersion,
// kind and a name. A block that is none of these, part of a file, follows
// a "<!-- fragment: ... -->" line and is only parsed.
func TestReadmeYAML(t *testing.T) {
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := yamlBlocks(t, string(md))
	if len(blocks) < 5 {
		t.Fatalf("found %d yaml blocks in README.md", len(blocks))
	}
	schema := committedSchema(t)
	for _, b := range blocks {
		docs, err := documents(b.text)
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
			continue
		}
		if b.fragment {
			continue
		}
		for i, doc := range docs {
			if err := checkDocument(doc, schema); err != nil {
				t.Errorf("README.md:%d: document %d: %v", b.line, i+1, err)
			}
		}
	}
}

// TestReadmeYAMLCatches: the checks of TestReadmeYAML reject what they
// are there to reject.
func TestReadmeYAMLCatches(t *testing.T) {
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
	blocks := yamlBlocks(t, "text\n\n<!-- fragment: part of a Kptfile -->\n\n```yaml\na: 1\n```\n\n- item\n\n  ```yaml\n  b: 2\n  ```\n")
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
		if _, err := yamlshape.Walk(&n); err != nil {
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
